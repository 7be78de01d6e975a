// `lbdesk whatif WS --fail X…` as a user runs it: the real CLI in a child process.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli';
import type { WhatIfReport } from '../../../../shared/api/whatif';

const ALL = 'test/fixtures/workspaces/whatif-all.yaml';

describe('lbdesk whatif', () => {
  it('every service keeps a member: exit 0, one line per member with its share', async () => {
    const r = await runCli(['whatif', ALL, '--fail', 'app1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('whatif whatif-all: with app1 (server) failed');
    expect(lines[1]).toBe('every service and target set keeps a member');
    expect(lines).toContain('service rr-vip (round-robin): 2 of 3 members left, 3 before');
    expect(lines).toContain('  rr/app2:8080  weight 100  50.0% of new connections');
    expect(lines).toContain('  rr/app1:8080  failed');
    expect(lines).toContain('  moves (client-ip persistence): 188 of 750 clients were on a failed member and choose again: 188 to wrr/app2:8081');
  });

  it('a pair losing both boxes: exit 1, the target sets with none first, the addresses lost', async () => {
    const r = await runCli(['whatif', ALL, '--fail', 'lvs-a1', 'lvs-a2']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toBe('NO MEMBER LEFT: target set 1, target set 2');
    expect(lines[2]).toBe('!! target set 1 (hash): 3 of 3 members left');
    expect(lines).toContain('  203.0.113.50 (target set 1): LOST, both boxes of pair ipfe-a failed');
  });

  it('--json: the structured report, the mate taking over', async () => {
    const r = await runCli(['whatif', ALL, '--fail', 'edge1', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as WhatIfReport;
    expect(report.failed).toEqual([{ name: 'edge1', kind: 'box', members: [], appliances: ['edge1', 'edge1-vrrp'] }]);
    expect(report.takeovers[0]).toEqual({ pair: 'edge', instance: 61, address: '192.0.2.10', from: 'service rr-vip', failed: 'edge1', to: 'edge2' });
    expect(report.pools).toHaveLength(7);
  });

  it('the demo with web1 failed: exit 1 (dns-vip has none, its only server is disabled), dns-vip first', async () => {
    const r = await runCli(['whatif', 'assets/demo/lab-site-a.yaml', '--fail', 'web/web1']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.slice(1, 4)).toEqual(['NO MEMBER LEFT: dns-vip', '!! service dns-vip (round-robin): 0 of 1 members left', '  resolvers/dns1:53  disabled']);
    expect(lines).toContain('  web/web2:8081  weight 200  100.0% of new connections');
  });

  it('usage: an unknown name, with a did-you-mean, or no --fail: exit 2, one line, no stack', async () => {
    const r = await runCli(['whatif', ALL, '--fail', 'app1', 'edge3']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('lbdesk: --fail: nothing named "edge3" in the workspace (a server, GROUP/SERVER, a group, an address or an appliance) (did you mean "edge1"?)\n');
    const none = await runCli(['whatif', ALL]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--fail/);
  });
});
