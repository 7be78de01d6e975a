// The lbdesk driver: the served subset, as a workspace `lbdesk validate` and `lbdesk serve` accept.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../../helpers/cli';
import { renderForAppliance, servedWorkspace } from '../../../../main/services/drivers';
import { workspaceSchema } from '../../../../shared/model/schema';
import { RICH_PATH, appliance, loadRich, parseWorkspaceText, workspace, writeTemp } from '../../../helpers/drivers';

const ctx = { workspacePath: RICH_PATH };

describe('lbdesk driver', () => {
  const site = loadRich();
  const daemon = appliance(site, 'daemon');
  const r = renderForAppliance(site, daemon, ctx);

  it('renders the included services, their groups and servers, and the included target sets', () => {
    expect(r.errors).toEqual([]);
    const back = parseWorkspaceText(r.text);
    expect(back.services.map((s) => s.name)).toEqual(['web-vip', 'dns-vip']);
    expect(back.groups.map((g) => g.name)).toEqual(['web', 'resolvers']);
    expect(back.servers.map((s) => s.name)).toEqual(['web1', 'web2', 'web3', 'dns1', 'dns2']);
    expect(back.targetSets.map((t) => t.number)).toEqual([2]);
  });

  it('reads back as exactly the served part (durations and defaults survive the round trip)', () => {
    expect(parseWorkspaceText(r.text)).toEqual(servedWorkspace(site, daemon).workspace);
  });

  it('is accepted by `lbdesk validate` (what the appliance runs before reloading)', async () => {
    const file = writeTemp('workspace.yaml', r.text);
    const v = await runCli(['validate', file]);
    expect(v.stderr).toBe('');
    expect(v.stdout).toBe(`${file}: valid\n`);
    expect(v.code).toBe(0);
  });

  it('writes every duration with its unit (a heartbeat ttl of 3s was written as 3000, read back as 3000 s)', () => {
    const hb = workspace({
      targetSets: [{ number: 1, address: '192.0.2.50', ports: [3868], algorithm: 'least-load', heartbeat: { port: 9999, ttl: '3s' }, servers: [{ address: '192.0.2.51' }] }],
      appliances: [{ name: 'd', host: '192.0.2.1', driver: 'lbdesk', include: ['ts1'] }],
    });
    const out = renderForAppliance(hb, hb.appliances[0]!, ctx);
    expect(out.errors).toEqual([]);
    expect((parse(out.text) as { targetSets: { heartbeat: { ttl: unknown } }[] }).targetSets[0]!.heartbeat.ttl).toBe('3s');
    expect(parseWorkspaceText(out.text).targetSets[0]!.heartbeat).toEqual(hb.targetSets[0]!.heartbeat);
  });

  it('writes Fm + Fc as saved (normalised to 100), not 30 + 30 that validate says are saved as 50 + 50', () => {
    const ll = workspace({
      targetSets: [{ number: 1, address: '192.0.2.50', ports: [3868], leastLoad: { mpsFactor: 30, connectionFactor: 30 }, servers: [{ address: '192.0.2.51' }] }],
      appliances: [{ name: 'd', host: '192.0.2.1', driver: 'lbdesk', include: ['ts1'] }],
    });
    const out = renderForAppliance(ll, ll.appliances[0]!, ctx);
    expect((parse(out.text) as { targetSets: { leastLoad: unknown }[] }).targetSets[0]!.leastLoad).toMatchObject({ mpsFactor: 50, connectionFactor: 50 });
  });

  it('writes nothing the appliance\'s validate warns of (defaults that have no effect)', async () => {
    const plain = workspace({
      servers: [{ name: 'a', address: '192.0.2.21' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 80 }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'vip', address: '192.0.2.10', port: 80, group: 'g' }],
      targetSets: [{ number: 1, address: '192.0.2.50', ports: [3868], algorithm: 'hash', servers: [{ address: '192.0.2.51' }] }],
      appliances: [{ name: 'd', host: '192.0.2.1', driver: 'lbdesk', include: ['vip', 'ts1'] }],
    });
    const out = renderForAppliance(plain, plain.appliances[0]!, ctx);
    expect(out.errors).toEqual([]);
    expect(parseWorkspaceText(out.text)).toEqual(servedWorkspace(plain, plain.appliances[0]!).workspace);
    const file = writeTemp('plain.yaml', out.text);
    expect(await runCli(['validate', file])).toMatchObject({ code: 0, stdout: `${file}: valid\n`, stderr: '' });
  });

  it('has no appliances section: hosts, users and key files stay home', () => {
    const raw = parse(r.text) as Record<string, unknown>;
    expect(raw.lbdesk).toBe(1);
    expect('appliances' in raw).toBe(false);
    expect(r.text).not.toContain('192.0.2.202');
  });

  it('keeps the whole workspace when the appliance includes everything', () => {
    const all = workspace({
      healthTimers: { interval: '750ms' },
      servers: [{ name: 's', address: '192.0.2.1' }],
      groups: [{ name: 'g', members: [{ server: 's', port: 389 }], healthCheck: { type: 'ldap', ldap: { bindDn: 'cn=x', bindSecret: 'dir-probe' } } }],
      services: [{ name: 'v', address: '192.0.2.10', port: 389, group: 'g', persistence: { type: 'client-ip', timeout: '90s' } }],
      appliances: [{ name: 'me', host: 'h', driver: 'lbdesk' }],
    });
    const out = renderForAppliance(all, all.appliances[0]!, ctx);
    expect(workspaceSchema.parse(parse(out.text))).toEqual({ ...all, appliances: [] });
    expect(out.text).toContain('interval: 750ms');
    expect(out.warnings).toEqual([{ subject: 'group g', message: expect.stringContaining('secret "dir-probe"') }]);
  });
});
