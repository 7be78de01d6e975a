import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { workspaceSchema, type WorkspaceInput } from '../../../../shared/model/schema';
import { membersOf } from '../../../../main/services/health/members';

const workspace = (input: Partial<WorkspaceInput>) => workspaceSchema.parse({ lbdesk: 1, name: 't', ...input });

describe('membersOf', () => {
  it('reads the spec example: groups with resolved checks, target sets with TCP L4 on the first port', () => {
    const example = workspaceSchema.parse(parse(readFileSync(resolve(__dirname, '../../../../assets/demo/lab-site-a.yaml'), 'utf8')));
    const got = membersOf(example).map((m) => [m.key, m.check.type, m.check.layer, m.port, m.disabled ?? '']);
    expect(got).toEqual([
      ['g:web/web1:8081', 'http', 7, 8081, ''],
      ['g:web/web2:8081', 'http', 7, 8081, ''],
      ['g:directory/dir1:1389', 'ldap', 7, 1389, ''],
      ['g:resolvers/dns1:53', 'dns', 7, 53, 'disabled'],
      ['ts:1/127.0.0.51', 'tcp', 4, 3868, ''],
      ['ts:1/127.0.0.52', 'tcp', 4, 3868, ''],
    ]);
    const web2 = membersOf(example).find((m) => m.server === 'web2')!;
    expect(web2.timers.interval).toBe(5000);
    expect(web2.timers.source.interval).toBe('server');
    const dns1 = membersOf(example).find((m) => m.server === 'dns1')!;
    expect([dns1.timers.interval, dns1.timers.failAfter, dns1.timers.retryInterval]).toEqual([10_000, 3, 10_000]);
  });

  it('target sets: their own check if given, ping without ports, timers target set > global', () => {
    const w = workspace({
      healthTimers: { interval: '7s', timeout: '2s' },
      targetSets: [
        { number: 2, address: '127.0.4.1', ports: [], servers: [{ address: '127.0.4.2' }] },
        { number: 3, address: '127.0.4.3', ports: [80, 81], servers: [{ address: '127.0.4.4' }], healthCheck: { type: 'auto' }, healthTimers: { interval: '3s' } },
        { number: 4, address: '127.0.4.5', ports: [9000], disabled: true, servers: [{ address: '127.0.4.6' }] },
      ],
    });
    const [ping, http, off] = membersOf(w);
    expect([ping!.key, ping!.check.type, ping!.port, ping!.timers.interval]).toEqual(['ts:2/127.0.4.2', 'ping', undefined, 7000]);
    expect([http!.check.type, http!.port, http!.timers.interval, http!.timers.timeout]).toEqual(['http', 80, 3000, 2000]);
    expect(off!.disabled).toBe('target set 4 is disabled');
  });

  it('UDP groups get UDP checks; an undefined server is a problem, not a crash', () => {
    const w = workspace({
      servers: [{ name: 'a', address: '127.0.4.7' }],
      groups: [{ name: 'u', members: [{ server: 'a', port: 5000 }, { server: 'ghost', port: 5000 }] }],
      services: [{ name: 'v', address: '127.0.4.8', port: 5000, protocol: 'udp', group: 'u' }],
    });
    const [a, ghost] = membersOf(w);
    expect(a!.check).toMatchObject({ type: 'udp', layer: 4 });
    expect(ghost!.problem).toBe('server "ghost" is not defined');
  });

  it('probeId changes with what the probe depends on, timerId with the timers only', () => {
    const base = { servers: [{ name: 'a', address: '127.0.4.7' }], groups: [{ name: 'g', members: [{ server: 'a', port: 80 }], healthCheck: { type: 'http' as const, http: { path: '/x' } } }] };
    const [m1] = membersOf(workspace(base));
    const [m2] = membersOf(workspace({ ...base, healthTimers: { interval: '5s' } }));
    const [m3] = membersOf(workspace({ ...base, groups: [{ ...base.groups[0]!, healthCheck: { type: 'http', http: { path: '/y' } } }] }));
    const [m4] = membersOf(workspace({ ...base, groups: [{ ...base.groups[0]!, members: [{ server: 'a', port: 80, weight: 5 }] }] }));
    expect(m2!.probeId).toBe(m1!.probeId);
    expect(m2!.timerId).not.toBe(m1!.timerId);
    expect(m3!.probeId).not.toBe(m1!.probeId);
    expect([m4!.probeId, m4!.timerId]).toEqual([m1!.probeId, m1!.timerId]);
  });
});
