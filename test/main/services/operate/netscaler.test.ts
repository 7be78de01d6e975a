// `lbdesk state | drain | maint | ready` on a NetScaler (the NetScaler test box over loopback SSH):
// `show serviceGroup` and `stat serviceGroupMember` beside the running config read into each
// member's state, the member disabled gracefully (drain) or its server disabled (maint) and
// enabled again at once, never saved.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nsMembers, parseShowServiceGroup, parseStatClientConnections } from '../../../../main/services/drivers/netscaler/show';
import { runCli } from '../../../helpers/cli';
import { startNsBox, type NsBox } from '../../../helpers/command-boxes/netscaler-box';

const CONFIG = [
  '#NS13.1 Build 37.38', '# Last modified by `save config`, Thu Dec  3 06:12:09 2026',
  'add server web1 192.0.2.11', 'add server web2 192.0.2.12',
  'add serviceGroup web TCP', 'add lb vserver vip1 TCP 192.0.2.100 80',
  'bind lb vserver vip1 web',
  'bind serviceGroup web web1 80', 'bind serviceGroup web web2 80 -weight 3', '',
].join('\n');

interface JsonState { members: { server: string; admin?: string; health: string; sessions?: number; weight?: number; check?: string; why?: string }[] }

describe('NetScaler show serviceGroup', () => {
  // The member block as a Citrix ADC VPX prints it (drivers/netscaler/show.ts names the sample), addresses in documentation ranges.
  const show = [
    '\tweb - SSL', '\tState: ENABLED\tEffective State: UP\tMonitor Threshold : 0', '\tMax Conn: 0\tMax Req: 0\tMax Bandwidth: 0 kbits', '', '',
    '\t1)    198.51.100.20:443\tState: UP\tServer Name: 198.51.100.20\tServer ID: None\tWeight: 1',
    '\t\tLast state change was at Sat Jan 16 05:19:47 2021 ', '\t\tTime since last state change: 0 days, 00:01:00.240', '',
    '\t\tMonitor Name: tcp-default \tState: UP\tPassive: 0', '\t\tProbes: 23\tFailed [Total: 12 Current: 0]',
    '\t\tLast response: Success - TCP syn+ack received.', '\t\tResponse Time: 0 millisec',
    '\t2)    198.51.100.21:443\tState: OUT OF SERVICE\tServer Name: s2\tServer ID: None\tWeight: 4',
    ' Done',
  ].join('\r\n');

  it('reads each member block: address, port, state, server name, weight, its monitor and last response', () => {
    expect(parseShowServiceGroup(show)).toEqual([
      { address: '198.51.100.20', port: 443, state: 'UP', server: '198.51.100.20', weight: 1, monitor: 'tcp-default', monitorState: 'UP', lastResponse: 'Success - TCP syn+ack received.' },
      { address: '198.51.100.21', port: 443, state: 'OUT OF SERVICE', server: 's2', weight: 4 },
    ]);
    expect(parseStatClientConnections('Current client connections                      --                    7\r\n')).toBe(7);
    expect(parseStatClientConnections('Requests      0     0\n')).toBeUndefined();
  });

  it('admin from the running config and the member state: a disabled server is maint, an out-of-service member drain', () => {
    const running = ['add server 198.51.100.20 198.51.100.20', 'add server s2 198.51.100.21 -state DISABLED', 'add serviceGroup web SSL',
      'bind serviceGroup web 198.51.100.20 443', 'bind serviceGroup web s2 443 -weight 4', ''].join('\n');
    const stat = (n: number) => `Current client connections    --    ${n}\n`;
    expect(nsMembers([running, show, stat(5), stat(0)]).map((m) => [m.object, m.address, m.port, m.container, m.admin, m.health, m.sessions, m.weight, m.check])).toEqual([
      ['198.51.100.20', '198.51.100.20', 443, 'web', 'ready', 'up', 5, 1, 'State: UP, monitor tcp-default UP: Success - TCP syn+ack received.'],
      ['s2', '198.51.100.21', 443, 'web', 'maint', 'no-check', 0, 4, 'State: OUT OF SERVICE'],
    ]);
    const drained = nsMembers([running.replace(' -state DISABLED', ''), show, stat(5), stat(0)])[1]!;
    expect(drained.admin).toBe('drain');
  });
});

describe('lbdesk state / drain / maint / ready on the NetScaler test box', { timeout: 180_000 }, () => {
  let box: NsBox;
  let dir: string;
  let file: string;
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli([...args, ...ssh()], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
  const state = async () => {
    const r = await cli(['state', file, '--appliance', 'ns1', '--json']);
    expect(r.code, r.stderr).not.toBe(2);
    return (JSON.parse(r.stdout) as JsonState).members;
  };
  const row = (s: JsonState['members'], server: string) => s.find((m) => m.server === server)!;

  beforeAll(async () => {
    box = await startNsBox({ host: '127.0.17.4', config: CONFIG, pageLines: 8 });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-ns-operate-'));
    writeFileSync(join(dir, 'known_hosts'), `${box.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: ns-operate',
      'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }', '  - { name: web3, address: 192.0.2.13 }',
      'groups:', '  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: 80 }, { server: web2, port: 80, weight: 3 }, { server: web3, port: 80 }] }',
      'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web, algorithm: least-connections }',
      'appliances:', '  - name: ns1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: nsroot', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: netscaler', '    cli:', '      timeout: 5s', '',
    ].join('\n'));
  });
  afterAll(async () => { await box?.stop(); });
  beforeEach(() => { box.sessions.clear(); box.health.clear(); });

  it('state: each member as the box has it; web3 (not on the box) unknown and why; nothing changed', async () => {
    box.sessions.set('web1:80', 4);
    box.health.set('web2:80', 'DOWN');
    const s = await state();
    expect(row(s, 'web1')).toMatchObject({ admin: 'ready', health: 'up', sessions: 4, weight: 1, check: 'State: UP, monitor tcp-default UP: Success - TCP syn+ack received.' });
    expect(row(s, 'web2')).toMatchObject({ admin: 'ready', health: 'down', weight: 3, sessions: 0 });
    expect(row(s, 'web3')).toMatchObject({ health: 'unknown', why: 'the box has no service group member for web3 (192.0.2.13) on port 80' });
    expect(box.running()).toBe(CONFIG);
  });

  it('drain, maint, ready: the box shows each at once; never saved; ready leaves the config as it was', async () => {
    const d = await cli(['drain', file, '--appliance', 'ns1', 'web/web1']);
    expect(d.code, d.stderr).toBe(0);
    expect(box.received.slice(-1)).toEqual(['disable serviceGroup web web1 80 -graceFul YES']);
    expect(box.running()).toBe(CONFIG.replace('bind serviceGroup web web1 80', 'bind serviceGroup web web1 80 -state DISABLED'));
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'drain', health: 'no-check', check: expect.stringMatching(/^State: OUT OF SERVICE/) });

    expect((await cli(['maint', file, '--appliance', 'ns1', 'web1'])).code).toBe(0);
    expect(box.received.slice(-1)).toEqual(['disable server web1']);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'maint' });

    const r = await cli(['ready', file, '--appliance', 'ns1', 'web1']);
    expect(r.code, r.stderr).toBe(0);
    expect(box.received.slice(-2)).toEqual(['enable serviceGroup web web1 80', 'enable server web1']);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'ready', health: 'up' });
    expect(box.running()).toBe(CONFIG);
    expect(box.saved()).toBe(CONFIG);
    expect(box.received.some((c) => /^save ns config$/i.test(c))).toBe(false);
  });

  it('drain --wait follows the member\'s connections down (TROFS until none); a member the box lacks is refused, nothing changed', async () => {
    box.sessions.set('web2:80', 3);
    const fall = setInterval(() => {
      const n = box.sessions.get('web2:80') ?? 0;
      if (/web2 80 -weight 3 -state DISABLED/.test(box.running()) && n > 0) box.sessions.set('web2:80', n - 1);
    }, 300);
    try {
      const d = await cli(['drain', file, '--appliance', 'ns1', 'web2', '--wait', '30s']);
      expect(d.code, d.stderr).toBe(0);
      const counts = [...d.stdout.matchAll(/web\/web2:80: (\d+) session/g)].map((x) => Number(x[1]));
      expect(counts[counts.length - 1]).toBe(0);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    } finally {
      clearInterval(fall);
    }
    expect((await cli(['ready', file, '--appliance', 'ns1', 'web2'])).code).toBe(0);
    const sent = box.received.length;
    const unknown = await cli(['drain', file, '--appliance', 'ns1', 'web3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('lbdesk: ns1: web/web3:80: the box has no service group member for web3 (192.0.2.13) on port 80; nothing was changed');
    expect(box.received.slice(sent).filter((c) => /^(disable|enable) /i.test(c))).toEqual([]);
    expect(box.running()).toBe(CONFIG);
  });

  it('a member draining with open connections reads TROFS on the box and drain in lbdesk', async () => {
    box.sessions.set('web1:80', 2);
    expect((await cli(['drain', file, '--appliance', 'ns1', 'web1'])).code).toBe(0);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'drain', sessions: 2, check: expect.stringMatching(/^State: TROFS/) });
    expect((await cli(['ready', file, '--appliance', 'ns1', 'web1'])).code).toBe(0);
    expect(box.running()).toBe(CONFIG);
  });
});
