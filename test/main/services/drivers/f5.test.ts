// driver f5 offline: import of a published bigip.conf (every object accounted for), import ->
// plan round trip (no commands, the same bytes), and the steps and inverses of each kind of
// change, checked by applying the inverse to what the commands made.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { importF5 } from '../../../../main/services/drivers/f5/import';
import { applyF5Commands } from '../../../../main/services/drivers/f5/edit';
import { parseF5 } from '../../../../main/services/drivers/f5/parse';
import { planF5 } from '../../../../main/services/drivers/f5/plan';

const published = readFileSync(resolve(__dirname, '../../../fixtures/import/f5/corkscrew-devcloud01.conf'), 'utf8');

function imported(text: string): Workspace {
  const r = importF5(text, 'bigip.conf');
  return workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'bigip1', host: '192.0.2.250', driver: 'f5', manage: 'sections' }] });
}
const plan = (w: Workspace, text: string) => planF5(w, w.appliances[0]!, text);
const undo = (text: string, p: ReturnType<typeof plan>) => applyF5Commands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse));

describe('import --driver f5', () => {
  it('accounts for every object and every line lbdesk does not model, with why', () => {
    const r = importF5(published, 'bigip.conf');
    const cfg = parseF5(published);
    const said = new Set(r.items.map((i) => i.line - 1));
    for (const o of cfg.objects) expect(said.has(o.head), `${o.kind} ${o.name}`).toBe(true);
    expect(r.workspace.servers.map((s) => s.name)).toEqual(['app1_Node1', 'app1_Node2', 'app2_Node1', 'app2_Node2', 'app3_Node1', 'app3_Node2']);
    expect(r.workspace.services.map((s) => `${s.name} ${s.address}:${s.port} ${s.group} ${s.algorithm}`)).toEqual([
      'app1_t443_vs 192.168.1.21:443 app1_t80_pool round-robin',
      'app2_t443_vs 192.168.2.21:443 app2_t80_pool least-connections',
      'app3_t8443_vs 192.168.1.51:8443 app3_t8443_pool least-connections',
    ]);
    const g = r.workspace.groups.find((x) => x.name === 'app2_t80_pool')!;
    expect(g.healthCheck).toEqual({ type: 'http', http: { path: '/anywebsite.com' } });
    expect(g.healthTimers).toEqual({ interval: '5s', failAfter: 3, restoreAfter: 1, timeout: '5s' });
    const item = (section: string) => r.items.filter((i) => i.section === section).map((i) => `${i.outcome}: ${i.detail}`);
    expect(item('ltm virtual /Common/app1_t80_vs')).toEqual(['kept: has no default pool (its iRules or policies choose one): nothing lbdesk balances; kept on the box']);
    expect(item('ltm virtual /Common/app3_t8443_vs')[0]).toMatch(/persist \/Common\/app3_cookie: cookie persistence is not modelled/);
    expect(item('ltm rule /Common/app3_rule')).toHaveLength(1);   // its Tcl at column 0 is one object
    expect(item('ltm virtual /Common/forwarder_net_0.0.0.0')[0]).toMatch(/^kept: destination 0\.0\.0\.0 is not one address/);
  });

  it('a file that is not a BIG-IP config is refused with its line', () => {
    expect(() => importF5('hostname x\n', 'x.conf')).toThrow(/^x\.conf:1: no "ltm node", "ltm pool" or "ltm virtual" object/);
  });
});

describe('driver f5: plan', () => {
  it('the imported workspace plans no command and renders the running config byte for byte', () => {
    for (const text of [published, published.replace(/\n/g, '\r\n')]) {
      const p = plan(imported(text), text);
      expect(p.errors).toEqual([]);
      expect(p.steps).toEqual([]);
      expect(p.after).toBe(text);
    }
  });

  it('a server removed and a weight changed: the member modified and deleted, then the node deleted; the inverse gives the config back', () => {
    const w = imported(published);
    w.servers = w.servers.filter((s) => s.name !== 'app2_Node2');
    const g = w.groups.find((x) => x.name === 'app2_t80_pool')!;
    g.members = g.members.filter((m) => m.server !== 'app2_Node2');
    g.members[0]!.weight = 5;
    const p = plan(w, published);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['modify ltm pool /Common/app2_t80_pool members modify { /Common/app2_Node1:80 { ratio 5 } }', 'modify ltm pool /Common/app2_t80_pool members delete { /Common/app2_Node2:80 }'],
      ['delete ltm node /Common/app2_Node2'],
    ]);
    expect(p.steps.map((s) => s.inverse)).toEqual([
      ['modify ltm pool /Common/app2_t80_pool members modify { /Common/app2_Node1:80 { ratio 1 } }', 'modify ltm pool /Common/app2_t80_pool members add { /Common/app2_Node2:80 { address 192.168.2.23 } }'],
      ['create ltm node /Common/app2_Node2 address 192.168.2.23 description app2_Node2'],
    ]);
    expect(undo(published, p)).toBe(published);
  });

  it('a new server: the node created, then added to the pool; an algorithm change sets the mode', () => {
    const w = imported(published);
    w.servers.push({ name: 'web3', address: '192.0.2.13', enabled: true });
    w.groups.find((x) => x.name === 'app1_t80_pool')!.members.push({ server: 'web3', port: 80, weight: 3 });
    w.services.find((s) => s.name === 'app1_t443_vs')!.algorithm = 'weighted-round-robin';
    const p = plan(w, published);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['create ltm node /Common/web3 address 192.0.2.13'],
      ['modify ltm pool /Common/app1_t80_pool load-balancing-mode ratio-member', 'modify ltm pool /Common/app1_t80_pool members add { /Common/web3:80 { address 192.0.2.13 ratio 3 } }'],
    ]);
    expect(p.after).toContain('ltm pool /Common/app1_t80_pool {\n    load-balancing-mode ratio-member\n    members {\n');
    expect(p.after).toContain('        /Common/web3:80 {\n            address 192.0.2.13\n            ratio 3\n        }\n    }\n    monitor /Common/http and /Common/tcp\n}');
    expect(undo(published, p)).toBe(published);
    w.services.find((s) => s.name === 'app1_t443_vs')!.persistence.type = 'client-ip';
    expect(plan(w, published).warnings.map((x) => x.message)).toEqual([expect.stringMatching(/^persistence client-ip differs from virtual server \/Common\/app1_t443_vs's \(none\): lbdesk does not change/)]);
    w.services.find((s) => s.name === 'app1_t443_vs')!.algorithm = 'source-hash';
    expect(plan(w, published).errors[0]?.message).toMatch(/algorithm source-hash has no BIG-IP load-balancing mode/);
  });

  it('a disabled server: session user-disabled on its node, user-enabled by the inverse', () => {
    const w = imported(published);
    w.servers.find((s) => s.name === 'app3_Node1')!.enabled = false;
    const p = plan(w, published);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([[['modify ltm node /Common/app3_Node1 session user-disabled'], ['modify ltm node /Common/app3_Node1 session user-enabled']]]);
    expect(p.after).toContain('ltm node /Common/app3_Node1 {\n    address 192.168.1.52\n    session user-disabled\n}');
    expect(undo(published, p)).toBe(published);
  });

  it('a quoted name: created quoted, read back unquoted, deleted by its quoted name', () => {
    const text = applyF5Commands(published, ['create ltm node "/Common/web 4" address 192.0.2.14']);
    expect(text).toContain('ltm node "/Common/web 4" {\n    address 192.0.2.14\n}\nltm policy ');
    expect(parseF5(text).nodes.map((n) => n.obj.name)).toContain('/Common/web 4');
    expect(importF5(text, 'x.conf').workspace.servers.map((s) => s.name)).toContain('web-4');
    expect(applyF5Commands(text, ['delete ltm node "/Common/web 4"'])).toBe(published);
  });

  it('without the box: the owned objects as a new box would list them', () => {
    const p = plan(imported(published), '');
    expect(p.errors).toEqual([]);
    expect(p.after).toContain('ltm virtual /Common/app2_t443_vs {\n    destination /Common/192.168.2.21:443\n    ip-protocol tcp\n    pool /Common/app2_t80_pool\n    profiles {\n        /Common/tcp { }\n    }\n}');
    expect(importF5(p.after, 'new.conf').workspace.services).toHaveLength(3);
  });
});

describe('driver f5: a tenant partition and members with every setting (ACC\'s pool test)', () => {
  const acc = readFileSync(resolve(__dirname, '../../../fixtures/import/f5/acc-pool.conf'), 'utf8');
  const POOL = '/AS3_Tenant/AS3_Application/testItem1';
  // What an engineer would type to serve the pool: a virtual server in the tenant's folder.
  const served = applyF5Commands(acc, [`create ltm virtual /AS3_Tenant/AS3_Application/vs destination /AS3_Tenant/192.0.2.10:80 ip-protocol tcp pool ${POOL}`]);

  it('pools no virtual server uses are kept; a served one is imported with its disabled member and per-member settings named', () => {
    const r = importF5(acc, 'pool.conf');
    expect(r.items.filter((i) => i.outcome === 'kept').map((i) => i.section)).toEqual([`ltm pool ${POOL}`, 'ltm pool /AS3_Tenant/AS3_Application/testItem2']);
    const s = importF5(served, 'pool.conf');
    expect(s.workspace.groups).toEqual([{ name: 'AS3_Tenant-AS3_Application-testItem1', members: [{ server: 'AS3_Tenant-10.2.2.2', port: 400, weight: 50 }], healthCheck: { type: 'https' } }]);
    const said = s.items.filter((i) => i.section === `ltm pool ${POOL}`).map((i) => `${i.line} ${i.outcome}: ${i.detail}`);
    expect(said).toContain('12 approximated: member AS3_Tenant-10.2.2.2:400 ratio 50; session user-disabled on the box (lbdesk keeps it; the lab serves it)');
    expect(said).toContain('16 kept: "monitor min 1 of { … }" is not modelled: kept on the box as written');
    expect(said).toContain('31 kept: "service-down-action drop" is not modelled: kept on the box as written');
  });

  it('a ratio changed alone, then the member and its node removed; the inverse re-adds the member with every setting', () => {
    const w = imported(served);
    expect(plan(w, served).steps).toEqual([]);
    w.groups[0]!.members[0]!.weight = 7;
    const p = plan(w, served);
    expect(p.steps.map((s) => s.commands)).toEqual([[`modify ltm pool ${POOL} members modify { /AS3_Tenant/10.2.2.2:400 { ratio 7 } }`]]);
    expect(diffCount(served, p.after)).toBe(1);
    w.groups[0]!.members = [];
    w.servers = w.servers.filter((s) => s.name !== 'AS3_Tenant-10.2.2.2');
    const q = plan(w, served);
    expect(q.steps.map((s) => s.commands)).toEqual([[`modify ltm pool ${POOL} members delete { /AS3_Tenant/10.2.2.2:400 }`], ['delete ltm node /AS3_Tenant/10.2.2.2']]);
    expect(q.after).not.toContain('/AS3_Tenant/10.2.2.2');
    expect(undo(served, q)).toBe(served);
  });
});

/** Lines that differ between two texts of the same length. */
function diffCount(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  expect(y).toHaveLength(x.length);
  return x.filter((l, i) => l !== y[i]).length;
}

describe('driver f5: names relative to /Common, as `tmsh list` prints them there', () => {
  // The listing of a published deployment guide (pool, virtual and monitor as tmsh prints them in /Common).
  const listed = [
    'ltm virtual temenos-servicemanagement-vs {', '    destination 10.1.1.100:443', '    ip-protocol tcp', '    mask 255.255.255.255',
    '    pool temenos-servicemanagement-pool', '    profiles {', '        clientssl {', '            context clientside', '        }',
    '        http { }', '        tcp { }', '    }', '    source 0.0.0.0/0', '    source-address-translation {', '        type automap', '    }',
    '    translate-address enabled', '    translate-port enabled', '}',
    'ltm pool temenos-servicemanagement-pool {', '    load-balancing-mode least-connections-member', '    members {',
    '        app-prod-01.bank.local:443 {', '            address 10.1.2.10', '            session monitor-enabled', '            state up', '        }',
    '        app-prod-02.bank.local:443 {', '            address 10.1.2.11', '            session monitor-enabled', '            state up', '        }',
    '    }', '    monitor https_443', '}', '',
  ].join('\n');
  // tmsh creates the nodes of members added by address; a listing of the nodes shows them.
  const text = listed.replace('ltm pool ', 'ltm node app-prod-01.bank.local {\n    address 10.1.2.10\n}\nltm node app-prod-02.bank.local {\n    address 10.1.2.11\n}\nltm pool ');

  it('imports, plans nothing when unchanged, and changes the box in its own naming', () => {
    const w = imported(text);
    expect(w.services.map((s) => `${s.name} ${s.address}:${s.port} ${s.group}`)).toEqual(['temenos-servicemanagement-vs 10.1.1.100:443 temenos-servicemanagement-pool']);
    expect(plan(w, text).steps).toEqual([]);
    w.servers.push({ name: 'app-prod-03', address: '192.0.2.13', enabled: true });
    const g = w.groups[0]!;
    g.members = g.members.filter((m) => m.server !== 'app-prod-02.bank.local');
    g.members.push({ server: 'app-prod-03', port: 443, weight: 2 });
    const p = plan(w, text);
    expect(p.steps.flatMap((s) => s.commands)).toEqual([
      'create ltm node app-prod-03 address 192.0.2.13',
      'modify ltm pool temenos-servicemanagement-pool members add { app-prod-03:443 { address 192.0.2.13 ratio 2 } }',
      'modify ltm pool temenos-servicemanagement-pool members delete { app-prod-02.bank.local:443 }',
      'delete ltm node app-prod-02.bank.local',
    ]);
    expect(p.after).toContain('        app-prod-03:443 {\n            address 192.0.2.13\n            ratio 2\n        }\n    }\n    monitor https_443\n}');
    expect(undo(text, p)).toBe(text);
  });
});
