// driver a10 offline: import -> plan round trip on the published configs (no commands, the same
// bytes), ACOS 2.x and 4.x forms, and the steps and inverses of each kind of change.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { importA10 } from '../../../../main/services/drivers/a10/import';
import { applyA10Commands } from '../../../../main/services/drivers/a10/edit';
import { planA10 } from '../../../../main/services/drivers/a10/plan';
import { parseA10 } from '../../../../main/services/drivers/a10/parse';

const fixture = (f: string) => readFileSync(resolve(__dirname, '../../../fixtures/import/a10', f), 'utf8');
const FILES = ['batfish-virtual-server-convert.cfg', 'batfish-virtual-server.cfg', 'batfish-server.cfg', 'batfish-service-group.cfg', 'batfish-service-group-acos2.cfg', 'batfish-health-monitor.cfg', 'batfish-server-v2.cfg'];
const v4 = fixture('batfish-virtual-server-convert.cfg');

function imported(text: string): Workspace {
  const r = importA10(text, 'box.cfg');
  return workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'a10', host: '192.0.2.250', driver: 'a10', manage: 'sections' }] });
}
const plan = (w: Workspace, text: string) => planA10(w, w.appliances[0]!, text);

describe('driver a10: import', () => {
  it('every line of every published config is accounted for: imported, approximated or kept with why', () => {
    for (const f of FILES) {
      const text = fixture(f);
      const r = importA10(text, f);
      const said = new Set(r.items.map((i) => i.line));
      // A statement lbdesk does not model is kept whole: its head's item says its lines too.
      for (const o of parseA10(text).others) for (const l of o.body) said.add(l.n + 1);
      // Lines read into an object (a port, a member, a setting) are said by their object's item.
      const parts = /^\s+(port \d+ (tcp|udp)|member |enable$|disable$|weight |method |lb-method |health-check|no health-check|service-group |retry |up-retry |interval )/;
      text.split('\n').forEach((l, i) => {
        if (/^\s*!/.test(l) || l.trim() === '' || parts.test(l)) return;
        expect(said.has(i + 1), `${f}:${i + 1}: ${l}`).toBe(true);
      });
    }
  });

  it('ACOS 4.x: servers, the shared service group, a service per virtual port; disabled members said', () => {
    const r = importA10(v4, 'v4.cfg');
    expect(r.workspace.servers).toEqual([
      { name: 'SERVER1', address: '10.0.0.1' }, { name: 'SERVER2', address: '10.0.0.2', enabled: false }, { name: 'SERVER3', address: '10.0.0.3' },
    ]);
    expect(r.workspace.groups[0]!.members).toEqual([1, 2, 3].map((n) => ({ server: `SERVER${n}`, port: 80, weight: 100 })));
    expect(r.workspace.services.map((s) => `${s.name} ${s.address}:${s.port} ${s.group}`)).toEqual(['VS1 10.0.0.100:81 SG1', 'VS2 10.0.0.101:81 SG1']);
    expect(r.items.find((i) => i.section === 'slb service-group SG1')!.detail).toMatch(/member SERVER1 80 is disabled on the box/);
  });

  it('ACOS 2.x: `member s:port` with inline flags, and a name with a colon', () => {
    const r = importA10(fixture('batfish-service-group-acos2.cfg'), 'v2.cfg');
    expect(r.workspace.servers.map((s) => s.name)).toEqual(['SERVER-1']);
    expect(r.workspace.groups[0]!.members!.map((m) => m.port)).toEqual([80, 81, 82, 83]);
    expect(r.items.find((i) => i.section === 'slb service-group SG1')!.detail).toMatch(/member SERVER:1:82 priority 1 \(ACOS 2.x form\): not modelled/);
  });

  it('health monitors become the group\'s check and timers (retry approximated)', () => {
    const text = `${fixture('batfish-health-monitor.cfg')}slb server s1 192.0.2.1\n  port 80 tcp\n!\nslb service-group g tcp\n  health-check HM7\n  member s1 80\n!\nslb virtual-server v 192.0.2.100\n  port 80 http\n    service-group g\n!\n`;
    const w = imported(text);
    expect(w.groups[0]!.healthCheck).toMatchObject({ type: 'http', http: { path: '/healthcheck' } });
    const v2 = importA10(`${fixture('batfish-health-monitor.cfg').replace('health monitor HM2\n', 'health monitor HM2 interval 5 retry 3 timeout 5 up-retry 9\n')}slb server s1 192.0.2.1\n!\nslb service-group g tcp\n  health-check HM2\n  member s1 80\n!\n`, 'x');
    expect(v2.workspace.groups[0]).toMatchObject({ healthCheck: { type: 'ping' }, healthTimers: { interval: '5s', timeout: '5s', failAfter: 3, restoreAfter: 9 } });
  });
});

describe('driver a10: plan', () => {
  it('the imported workspace plans no command and renders the running config byte for byte', () => {
    for (const text of [...FILES.map(fixture), v4.replace(/\n/g, '\r\n')]) {
      const w = imported(text);
      const p = plan(w, text);
      expect(p.errors).toEqual([]);
      expect(p.steps).toEqual([]);
      expect(p.after).toBe(text);
    }
  });

  it('a server removed and a weight changed: unbound, removed, reweighted; the inverse restores the bytes', () => {
    const w = imported(v4);
    w.servers = w.servers.filter((s) => s.name !== 'SERVER3');
    const g = w.groups[0]!;
    g.members = g.members.filter((m) => m.server !== 'SERVER3').map((m) => (m.server === 'SERVER1' ? { ...m, weight: 5 } : m));
    const p = plan(w, v4);
    expect(p.errors).toEqual([]);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['slb server SERVER1 10.0.0.1', 'weight 5', 'exit'],
      ['slb service-group SG1 tcp', 'no member SERVER3 80', 'exit'],
      ['no slb server SERVER3'],
    ]);
    expect(p.steps.map((s) => s.inverse)).toEqual([
      ['slb server SERVER1 10.0.0.1', 'no weight', 'exit'],
      ['slb service-group SG1 tcp', 'member SERVER3 80', 'enable', 'exit', 'exit'],
      ['slb server SERVER3 10.0.0.3', 'port 80 tcp', 'exit', 'exit'],
    ]);
    expect(p.after).toContain('slb server SERVER1 10.0.0.1\n  enable\n  weight 5\n  port 80 tcp\n');
    expect(p.after).not.toContain('SERVER3');
    // The inverse of the first two steps gives back the published bytes (the removal is re-created after SERVER2).
    const two = applyA10Commands(v4, p.steps.slice(0, 2).flatMap((s) => s.commands));
    expect(applyA10Commands(two, p.steps.slice(0, 2).reverse().flatMap((s) => s.inverse))).toBe(v4);
  });

  it('a new server and a new service: created with its port, a service group, a virtual server; undone by removing only those', () => {
    const w = imported(v4);
    w.servers.push({ name: 'web 4', address: '192.0.2.14', enabled: true });
    w.groups.push({ ...w.groups[0]!, name: 'web', members: [{ server: 'web 4', port: 8080, weight: 3 }] });
    w.services.push({ ...w.services[0]!, name: 'www', address: '192.0.2.80', port: 80, group: 'web', algorithm: 'least-connections' });
    const p = plan(w, v4);
    expect(p.errors).toEqual([]);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['slb server "web 4" 192.0.2.14', 'weight 3', 'port 8080 tcp', 'exit', 'exit'],
      ['slb service-group web tcp', 'method least-connection', 'member "web 4" 8080', 'exit', 'exit'],
      ['slb virtual-server www 192.0.2.80', 'port 80 tcp', 'service-group web', 'exit', 'exit'],
    ]);
    expect(p.steps.map((s) => s.inverse)).toEqual([['no slb server "web 4"'], ['no slb service-group web'], ['no slb virtual-server www']]);
    expect(p.after).toContain('slb server "web 4" 192.0.2.14\n  weight 3\n  port 8080 tcp\n!\n');
    expect(p.after).toContain('slb virtual-server www 192.0.2.80\n  port 80 tcp\n    service-group web\n!\n');
    expect(applyA10Commands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse))).toBe(v4);
    // The plan of the box afterwards is empty: what was sent is what the workspace says.
    expect(plan(w, p.after).steps).toEqual([]);
  });

  it('a check the box lacks: a health monitor is created (before the servers, in ACOS order) and bound; the inverse unbinds and removes it', () => {
    const w = imported(v4);
    w.groups[0]!.healthCheck = { type: 'tcp', layer: 4 };
    w.groups[0]!.healthTimers = { interval: 3000, failAfter: 4, restoreAfter: 2 };
    const p = plan(w, v4);
    expect(p.warnings).toEqual([]);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['health monitor SG1-hm', 'method tcp port 80', 'interval 3', 'retry 4', 'up-retry 2', 'exit'],
      ['slb service-group SG1 tcp', 'health-check SG1-hm', 'exit'],
    ]);
    expect(p.steps.map((s) => s.inverse)).toEqual([['no health monitor SG1-hm'], ['slb service-group SG1 tcp', 'no health-check SG1-hm', 'exit']]);
    expect(p.after).toContain('ip nat pool POOL1 10.10.10.10 10.10.10.10 netmask /32\n!\n!\nhealth monitor SG1-hm\n  retry 4\n  up-retry 2\n  interval 3\n  method tcp port 80\n!\n! Enabled here');
    expect(p.after).toContain('slb service-group SG1 tcp\n  health-check SG1-hm\n  member SERVER1 80\n');
    expect(applyA10Commands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse))).toBe(v4);
    expect(plan(w, p.after).steps).toEqual([]);
  });

  it('an owned monitor changes in place, only the lines that differ; a check back to auto unbinds and removes it', () => {
    const w = imported(v4);
    w.groups[0]!.healthCheck = { type: 'http', http: { path: '/health' } };
    w.groups[0]!.healthTimers = { interval: 10_000, failAfter: 2 };
    const box = plan(w, v4).after;
    w.groups[0]!.healthTimers = { interval: 5000, failAfter: 2 };
    const p = plan(w, box);
    expect(p.steps.map((s) => s.commands)).toEqual([['health monitor SG1-hm', 'interval 5', 'exit']]);
    expect(p.steps[0]!.inverse).toEqual(['health monitor SG1-hm', 'interval 10', 'exit']);
    w.groups[0]!.healthCheck = { type: 'http', http: { path: '/ready', expect: 'up and ok' } };
    expect(plan(w, box).steps.map((s) => s.commands)).toEqual([['health monitor SG1-hm', 'method http port 80 expect "up and ok" url GET /ready', 'interval 5', 'exit']]);
    w.groups[0]!.healthCheck = { type: 'auto' };
    const gone = plan(w, box);
    expect(gone.steps.map((s) => s.commands)).toEqual([['slb service-group SG1 tcp', 'no health-check SG1-hm', 'exit'], ['no health monitor SG1-hm']]);
    expect(gone.steps.map((s) => s.inverse)).toEqual([
      ['slb service-group SG1 tcp', 'health-check SG1-hm', 'exit'],
      ['health monitor SG1-hm', 'retry 2', 'interval 10', 'method http port 80 url GET /health', 'exit'],
    ]);
    expect(gone.after).toBe(v4);
    expect(applyA10Commands(gone.after, [...gone.steps].reverse().flatMap((s) => s.inverse))).toBe(box);
  });

  it('an expect with a double quote (ACOS words have no escapes) is not sent, and the plan says why', () => {
    const w = imported(v4);
    w.groups[0]!.healthCheck = { type: 'http', http: { path: '/', expect: 'say "ok"' } };
    const p = plan(w, v4);
    expect(p.steps).toEqual([]);
    expect(p.warnings).toEqual([{ subject: 'group SG1', message: "check http: its path has a blank or a quote, or its expect a quote, which an ACOS method line cannot hold; service-group SG1's stays as it is" }]);
  });

  it('a monitor another (not owned) group also uses is never changed or removed: a new one is bound instead', () => {
    const text = `health monitor HM\n  method tcp port 80\n!\n${v4}slb service-group OTHER tcp\n  health-check HM\n!\n`.replace('slb service-group SG1 tcp\n', 'slb service-group SG1 tcp\n  health-check HM\n');
    const w = imported(text);
    w.groups[0]!.healthCheck = { type: 'http' };
    const p = plan(w, text);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['health monitor SG1-hm', 'method http port 80 url GET /', 'exit'],
      ['slb service-group SG1 tcp', 'health-check SG1-hm', 'exit'],
    ]);
    expect(p.steps[1]!.inverse).toEqual(['slb service-group SG1 tcp', 'health-check HM', 'exit']);
    expect(p.after).toMatch(/^health monitor HM\n {2}method tcp port 80\n!\nhealth monitor SG1-hm\n/);
    expect(applyA10Commands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse))).toBe(text);
  });

  it('ACOS 2.x members are added and removed in the 2.x form', () => {
    const text = `${fixture('batfish-service-group-acos2.cfg')}slb virtual-server v 192.0.2.100\n  port 80 tcp\n    service-group SG1\n!\n`;
    const w = imported(text);
    w.groups[0]!.members = w.groups[0]!.members.filter((m) => m.port !== 81);
    const p = plan(w, text);
    expect(p.steps.map((s) => s.commands)).toEqual([['slb service-group SG1 tcp', 'no member SERVER:1:81', 'exit']]);
    expect(p.steps[0]!.inverse).toEqual(['slb service-group SG1 tcp', 'member SERVER:1:81 disable', 'exit']);
    expect(p.after).not.toContain('SERVER:1:81');
  });

  it('a server entered again on another address is changed and re-created at the address it has now', () => {
    const text = `${fixture('batfish-server.cfg')}slb service-group g tcp\n  member SERVER2 80\n  member SERVER1 80\n!\nslb virtual-server v 192.0.2.100\n  port 80 tcp\n    service-group g\n!\n`;
    const w = imported(text);
    expect(plan(w, text).steps).toEqual([]);
    w.groups[0]!.members = w.groups[0]!.members.filter((m) => m.server !== 'SERVER2').map((m) => ({ ...m, weight: 7 }));
    w.servers = w.servers.filter((s) => s.name !== 'SERVER2');
    const p = plan(w, text);
    expect(p.steps[0]!.commands).toEqual(['slb server SERVER1 10.0.0.1', 'weight 7', 'exit']);
    expect(p.steps[2]!.commands).toEqual(['no slb server SERVER2']);
    expect(p.steps[2]!.inverse[0]).toBe('slb server SERVER2 10.0.0.2');
  });

  it('without the box: the owned objects as a new box would list them', () => {
    const w = imported(v4);
    const text = planA10(w, w.appliances[0]!, '').after;
    expect(text).toBe([
      'slb server SERVER1 10.0.0.1', '  port 80 tcp', '!', 'slb server SERVER2 10.0.0.2', '  disable', '  port 80 tcp', '!', 'slb server SERVER3 10.0.0.3', '  port 80 tcp', '!',
      'slb service-group SG1 tcp', '  member SERVER1 80', '  member SERVER2 80', '  member SERVER3 80', '!',
      'slb virtual-server VS1 10.0.0.100', '  port 81 tcp', '    service-group SG1', '!', 'slb virtual-server VS2 10.0.0.101', '  port 81 tcp', '    service-group SG1', '!', '',
    ].join('\n'));
    expect(plan(w, text).steps).toEqual([]);
  });

  it('a server in a service group the workspace does not own is never removed', () => {
    const text = `${v4}slb service-group OTHER tcp\n  member SERVER3 80\n!\n`;
    const w = imported(text);
    w.groups = w.groups.filter((g) => g.name !== 'OTHER');
    w.servers = w.servers.filter((s) => s.name !== 'SERVER3');
    w.groups[0]!.members = w.groups[0]!.members.filter((m) => m.server !== 'SERVER3');
    const p = plan(w, text);
    expect(p.steps.flatMap((s) => s.commands)).toEqual(['slb service-group SG1 tcp', 'no member SERVER3 80', 'exit']);
  });
});

describe('migration: an imported A10 site renders for HAProxy', () => {
  it('Batfish\'s virtual server with a port entered again (range dropped on re-entry) is a service with its group\'s members', async () => {
    const { getDriver } = await import('../../../../main/services/drivers');
    const r = importA10(fixture('batfish-virtual-server.cfg'), 'vs.cfg');
    expect(r.workspace.services).toEqual([{ name: 'VS2', address: '10.0.0.102', port: 80, protocol: 'tcp', group: 'SG1', algorithm: 'round-robin' }]);
    expect(r.items.find((i) => i.line === 48)).toMatchObject({ outcome: 'imported', detail: expect.stringMatching(/port 80 tcp entered again.*range is gone/) });
    // VS3's `port 81 udp range 11` stays a range: kept, said.
    expect(r.items.find((i) => i.line === 57)).toMatchObject({ outcome: 'kept', detail: expect.stringMatching(/range 11: a range of virtual ports is not modelled/) });
    const w = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab1', host: '192.0.2.10', driver: 'haproxy' }] });
    const out = getDriver('haproxy').render(w, w.appliances[0]!, { workspacePath: '/tmp/site.yaml' });
    expect(out.errors).toEqual([]);
    expect(out.text).toContain('frontend VS2\n    bind 10.0.0.102:80\n');
    for (const [s, a] of [['SERVER1', '10.0.0.1'], ['SERVER2', '10.0.0.2'], ['SERVER3', '10.0.0.3']]) expect(out.text).toMatch(new RegExp(`server ${s} ${a}:80 weight 1 check`));
  });
});
