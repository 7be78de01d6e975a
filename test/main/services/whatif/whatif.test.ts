// What-if on the demo and on a workspace with every algorithm, both kinds of target set and two
// HA pairs. Expected shares are worked out by hand from the weights and each algorithm's rule.
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { WhatIfPool, WhatIfReport } from '../../../../shared/api/whatif';
import type { Workspace } from '../../../../shared/model/schema';
import { loadWorkspace } from '../../../../main/services/workspace/load';
import { thinPools, UnknownFailure, whatIf } from '../../../../main/services/whatif';

async function load(file: string): Promise<Workspace> {
  const loaded = await loadWorkspace(resolve(__dirname, '../../../..', file), {});
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.workspace;
}
const demo = () => load('assets/demo/lab-site-a.yaml');
const all = () => load('test/fixtures/workspaces/whatif-all.yaml');
const pool = (r: WhatIfReport, name: string): WhatIfPool => {
  const p = r.pools.find((x) => x.name === name);
  if (!p) throw new Error(`no pool ${name}`);
  return p;
};
const shareOf = (p: WhatIfPool) => Object.fromEntries(p.members.map((m) => [m.name, m.share]));

describe('whatif on the demo', () => {
  it('web1 failed: web-vip keeps web2 with every new connection, and web1\'s third of the sticky clients move to it', async () => {
    const r = whatIf(await demo(), ['web1']);
    const web = pool(r, 'web-vip');
    expect(web).toMatchObject({ left: 1, total: 2, before: 2, none: false });
    expect(shareOf(web)).toEqual({ 'web/web1:8081': 0, 'web/web2:8081': 1 });
    expect(web.members[0]!.state).toBe('failed');
    // Weights 100:200 with client-ip persistence: 1 client in 3 was pinned to web1.
    expect(web.moves).toEqual({ by: 'client-ip persistence', moved: 250, clients: 750, to: { 'web/web2:8081': 250 } });
    expect(pool(r, 'ldap-vip')).toMatchObject({ left: 1, none: false });
  });

  it('dns-vip has none (dns1 is disabled in the workspace) and is listed first', async () => {
    const r = whatIf(await demo(), ['web1']);
    expect(r.pools[0]).toMatchObject({ name: 'dns-vip', left: 0, before: 0, none: true });
    expect(r.pools[0]!.members[0]!.state).toBe('disabled');
    expect(r.pools.slice(1).every((p) => !p.none)).toBe(true);
  });

  it('the IPFE least-load target set shares by weight (100:300), and one server failed leaves the other everything', async () => {
    expect(shareOf(pool(whatIf(await demo(), ['dir1']), 'target set 1'))).toEqual({ '127.0.0.51': 0.25, '127.0.0.52': 0.75 });
    const r = whatIf(await demo(), ['127.0.0.52']);
    expect(r.failed[0]).toMatchObject({ kind: 'address', members: ['ts:1/127.0.0.52'] });
    expect(shareOf(pool(r, 'target set 1'))).toEqual({ '127.0.0.51': 1, '127.0.0.52': 0 });
  });

  it('failing the appliance that serves web-vip and ldap-vip leaves them without a box', async () => {
    const r = whatIf(await demo(), ['lab-haproxy']);
    expect(pool(r, 'web-vip')).toMatchObject({ none: true, left: 2, unserved: 'every appliance that serves it failed (lab-haproxy)' });
    expect(pool(r, 'target set 1').none).toBe(false);
  });
});

describe('the change report\'s capacity lines', () => {
  it('name each service and target set left with one member or none, and why', async () => {
    expect(thinPools(await demo())).toEqual([
      'this change leaves dns-vip with no member (resolvers/dns1:53 disabled)',
      'this change leaves ldap-vip with one member, directory/dir1:1389',
    ]);
    expect(thinPools(await all())).toEqual(['this change leaves hw-vip with one member, solo/app6:8084']);
  });
});

describe('whatif with every algorithm, target sets and pairs', () => {
  it('nothing failed but a server in no group: shares follow each algorithm', async () => {
    const r = whatIf(await all(), ['spare']);
    expect(r.notes[0]).toBe('server spare is in no group: failing it changes no service');
    expect(shareOf(pool(r, 'rr-vip'))).toEqual({ 'rr/app1:8080': 1 / 3, 'rr/app2:8080': 1 / 3, 'rr/app3:8080': 1 / 3 });
    expect(shareOf(pool(r, 'wrr-vip'))).toEqual({ 'wrr/app1:8081': 0.25, 'wrr/app2:8081': 0.75 });
    // Least connections with connections kept open: load per unit of weight evens out, 100:100:200.
    expect(shareOf(pool(r, 'lc-vip'))).toEqual({ 'lc/app3:8082': 0.25, 'lc/app4:8082': 0.25, 'lc/app5:8082': 0.5 });
    expect(shareOf(pool(r, 'hw-vip'))).toEqual({ 'solo/app6:8084': 1 });
    expect(shareOf(pool(r, 'target set 2'))).toEqual({ '203.0.113.61': 0.25, '203.0.113.62': 0.75 });
    // Hashing: shares follow the weights within sampling noise of 6000 clients.
    const sh = shareOf(pool(r, 'sh-vip'));
    expect(sh['sh/app4:8083']).toBeCloseTo(0.5, 1);
    const ts1 = shareOf(pool(r, 'target set 1'));
    expect(ts1['203.0.113.53']).toBeCloseTo(0.5, 1);
    expect(ts1['203.0.113.51']).toBeCloseTo(0.25, 1);
    expect(r.pools.every((p) => !p.none && p.moves === undefined)).toBe(true);
    expect(r.takeovers).toEqual([]);
  });

  it('app1 failed: round-robin halves between the others, wrr-vip\'s sticky quarter moves', async () => {
    const r = whatIf(await all(), ['app1']);
    expect(r.failed[0]).toMatchObject({ kind: 'server', members: ['g:rr/app1:8080', 'g:wrr/app1:8081'] });
    expect(shareOf(pool(r, 'rr-vip'))).toEqual({ 'rr/app1:8080': 0, 'rr/app2:8080': 0.5, 'rr/app3:8080': 0.5 });
    expect(pool(r, 'wrr-vip').moves).toEqual({ by: 'client-ip persistence', moved: 188, clients: 750, to: { 'wrr/app2:8081': 188 } });
  });

  it('app3 and a hash target-set server failed: least connections by 100:200, hashed clients of the failed one rehash', async () => {
    const r = whatIf(await all(), ['app3', '1/203.0.113.53']);
    const lc = shareOf(pool(r, 'lc-vip'));
    expect(lc['lc/app4:8082']).toBeCloseTo(1 / 3, 3);
    expect(lc['lc/app5:8082']).toBeCloseTo(2 / 3, 3);
    const moves = pool(r, 'target set 1').moves!;
    expect(moves.by).toBe('source hash');
    // .53 had about half of the clients (weight 200 of 400); they split between the other two.
    expect(Math.abs(moves.moved - 375)).toBeLessThan(45);
    expect(Object.keys(moves.to).sort()).toEqual(['203.0.113.51', '203.0.113.52']);
    expect(Object.values(moves.to).reduce((a, b) => a + b, 0)).toBe(moves.moved);
  });

  it('a group failed: its only service has none, first; sticky clients had nowhere to go', async () => {
    const r = whatIf(await all(), ['solo']);
    expect(r.pools[0]).toMatchObject({ name: 'hw-vip', left: 0, before: 1, none: true });
    expect(r.pools.filter((p) => p.none)).toHaveLength(1);
  });

  it('an HA box failed: its mate takes over every address of the instance it was master of', async () => {
    for (const name of ['edge1', 'edge1-vrrp']) {
      const r = whatIf(await all(), [name]);
      expect(r.takeovers.map((t) => `${t.address} ${t.failed}>${t.to}`)).toEqual([
        '192.0.2.10 edge1>edge2', '192.0.2.11 edge1>edge2', '192.0.2.12 edge1>edge2', '192.0.2.13 edge1>edge2', '192.0.2.14 edge1>edge2',
      ]);
      expect(r.pools.every((p) => !p.none)).toBe(true);
    }
    // The backup failing moves nothing.
    expect(whatIf(await all(), ['edge2']).takeovers).toEqual([]);
    const a2 = whatIf(await all(), ['lvs-a2']);
    expect(a2.takeovers).toEqual([{ pair: 'ipfe-a', instance: 52, address: '203.0.113.60', from: 'target set 2', failed: 'lvs-a2', to: 'lvs-a1' }]);
  });

  it('both boxes of a pair failed: the addresses are lost and the target sets have none', async () => {
    const r = whatIf(await all(), ['lvs-a1', 'lvs-a2']);
    expect(r.takeovers.map((t) => [t.address, t.to])).toEqual([['203.0.113.50', undefined], ['203.0.113.60', undefined]]);
    expect(r.pools.filter((p) => p.none).map((p) => p.name)).toEqual(['target set 1', 'target set 2']);
    expect(r.pools.slice(0, 2).every((p) => p.none)).toBe(true);
  });

  it('an unknown name is refused with the closest one', async () => {
    const workspace = await all();
    expect(() => whatIf(workspace, ['app7'])).toThrow(new UnknownFailure('nothing named "app7" in the workspace (a server, GROUP/SERVER, a group, an address or an appliance) (did you mean "app1"?)'));
    expect(() => whatIf(workspace, ['wrr/app3'])).toThrow('group wrr has no member app3 (did you mean "app1"?)');
    expect(() => whatIf(workspace, ['wrr/app1:8018'])).toThrow('group wrr has no member app1:8018 (did you mean "app1:8081"?)');
    expect(() => whatIf(workspace, ['wr/app1'])).toThrow('no group "wr" in the workspace (did you mean "rr"?)');
    expect(() => whatIf(workspace, ['1/203.0.113.54'])).toThrow('target set 1 has no server 203.0.113.54 (did you mean "203.0.113.51"?)');
  });
});
