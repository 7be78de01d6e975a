// driver netscaler offline: the published ns.conf accounted for line by line, import -> plan
// round trip (no commands, the same bytes), and the steps and inverses of each kind of change.
// Box states beyond the published config are made by applying NetScaler commands to it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { importNs } from '../../../../main/services/drivers/netscaler/import';
import { applyNsCommands } from '../../../../main/services/drivers/netscaler/edit';
import { planNs } from '../../../../main/services/drivers/netscaler/plan';
import { getDriver } from '../../../../main/services/drivers';

const fixture = (name: string) => readFileSync(resolve(__dirname, '../../../fixtures/import/netscaler', name), 'utf8');
const published = fixture('flipper-ns1-v13.1.conf');
const starlord = fixture('flipper-starlord.conf');

function imported(text: string, include?: string[]): Workspace {
  const r = importNs(text, 'ns.conf');
  return workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'ns1', host: '192.0.2.250', driver: 'netscaler', manage: 'sections', ...(include ? { include } : {}) }] });
}
const plan = (w: Workspace, text: string) => planNs(w, w.appliances[0]!, text);
const undo = (text: string, steps: { inverse: string[] }[]) => applyNsCommands(text, [...steps].reverse().flatMap((s) => s.inverse));

describe('import --driver netscaler', () => {
  it('accounts for every line of the published ns.conf: imported, approximated or kept with why', () => {
    const r = importNs(published, 'ns.conf');
    const said = new Set(r.items.map((i) => i.line));
    published.split('\n').forEach((l, i) => {
      if (l.trim() === '' || l.startsWith('#')) return;
      expect(said.has(i + 1), `line ${i + 1}: ${l}`).toBe(true);
    });
    expect(r.workspace.servers).toEqual([{ name: '1.2.3.4', address: '1.2.3.4' }, { name: '1.2.3.5', address: '1.2.3.5' }]);
    expect(r.workspace.groups).toEqual([{ name: 'app1_http_sg', members: [{ server: '1.2.3.5', port: 80, weight: 1 }, { server: '1.2.3.4', port: 80, weight: 1 }], healthCheck: { type: 'http', http: { path: '/index.html' } } }]);
    expect(r.workspace.services).toEqual([{ name: 'https_offload_vs', address: '192.168.86.142', port: 443, protocol: 'tcp', group: 'app1_http_sg', algorithm: 'least-connections' }]);
    expect(r.items.find((i) => i.line === 43)).toMatchObject({ outcome: 'kept', section: 'set ns rpcNode' });
    expect(r.items.find((i) => i.line === 24)?.detail).toBe('member 1.2.3.5 port 80, weight 1 (the box\'s default)');
  });

  it('reads quoted names, -state DISABLED, disable server lines, -weight and a second add of one name', () => {
    const text = [
      'add server "web 1" 192.0.2.11', 'add server web2 192.0.2.12 -state DISABLED', 'add server web3 192.0.2.13', 'add server web3 192.0.2.14',
      'add serviceGroup sg1 HTTP -maxClient 0', 'add lb vserver v1 HTTP 192.0.2.100 80 -lbMethod ROUNDROBIN -persistenceType SOURCEIP',
      'bind lb vserver v1 sg1', 'bind serviceGroup sg1 "web 1" 80 -weight 3', 'bind serviceGroup sg1 web2 80', 'bind serviceGroup sg1 web3 8080',
      'bind serviceGroup sg1 -monitorName mon1', 'disable server web3', 'add lb monitor mon1 TCP -interval 2 MIN -resptimeout 500 MSEC -retries 4 -downTime 20', '',
    ].join('\n');
    const r = importNs(text, 'ns.conf');
    expect(r.workspace.servers).toEqual([{ name: 'web-1', address: '192.0.2.11' }, { name: 'web2', address: '192.0.2.12', enabled: false }, { name: 'web3', address: '192.0.2.13', enabled: false }]);
    expect(r.workspace.groups[0]).toMatchObject({ members: [{ server: 'web-1', port: 80, weight: 3 }, { server: 'web2', port: 80, weight: 1 }, { server: 'web3', port: 8080, weight: 1 }], healthCheck: { type: 'tcp' }, healthTimers: { interval: '120000ms', timeout: '500ms', failAfter: 4, retryInterval: '20000ms' } });
    expect(r.workspace.services[0]).toMatchObject({ algorithm: 'round-robin', persistence: { type: 'client-ip' } });
    expect(r.items.find((i) => i.line === 4)?.detail).toMatch(/^added again/);
    expect(r.items.find((i) => i.line === 10)).toMatchObject({ outcome: 'imported', detail: 'member web3 port 8080, weight 1 (the box\'s default)' });
    const off = importNs(text.replace('bind serviceGroup sg1 web2 80', 'bind serviceGroup sg1 web2 80 -state DISABLED'), 'ns.conf');
    expect(off.items.find((i) => i.line === 9)).toMatchObject({ outcome: 'approximated', detail: expect.stringMatching(/disabled on the box \(-state DISABLED\).*its options -state stay on the box/) });
    const w = imported(text);
    expect(plan(w, text)).toMatchObject({ steps: [], warnings: [] });
    w.groups[0]!.healthTimers!.failAfter = 2;
    // An owned monitor changes in place, only the option that differs; the inverse puts it back as written.
    const p = plan(w, text);
    expect(p.warnings).toEqual([]);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([[['set lb monitor mon1 TCP -retries 2'], ['set lb monitor mon1 TCP -retries 4']]]);
    expect(p.after).toContain('add lb monitor mon1 TCP -interval 2 MIN -resptimeout 500 MSEC -retries 2 -downTime 20\n');
    expect(applyNsCommands(p.after, p.steps[0]!.inverse)).toBe(text);
  });
});

describe('the starlord config: one service group behind two lb vservers, members bound by address', () => {
  it('imports both vservers over the one group, the members\' servers from their addresses, and plans nothing for it', () => {
    const r = importNs(starlord, 'ns.conf');
    expect(r.workspace.servers).toEqual([{ name: '1.2.3.5', address: '1.2.3.5' }, { name: '1.2.3.4', address: '1.2.3.4' }]);
    expect(r.items.find((i) => i.section === 'server 1.2.3.5')).toMatchObject({ line: 36, outcome: 'approximated', detail: expect.stringMatching(/no "add server" line/) });
    expect(r.workspace.services.map((s) => [s.name, s.group, s.port])).toEqual([['starlord_offload_lb_vs', 'starlord_http_sg', 443], ['starlord_http_lb_vs', 'starlord_http_sg', 80]]);
    const said = new Set(r.items.map((i) => i.line));
    starlord.split('\n').forEach((l, i) => { if (l.trim() && !l.startsWith('#')) expect(said.has(i + 1), `line ${i + 1}: ${l}`).toBe(true); });
    const w = imported(starlord);
    expect(plan(w, starlord)).toMatchObject({ steps: [], errors: [], after: starlord });
  });

  it('the second vserver\'s algorithm and a removed member: set -lbMethod on that vserver, unbind, rm server put back with add server', () => {
    const w = imported(starlord);
    w.services[1]!.algorithm = 'round-robin';
    w.groups[0]!.members = w.groups[0]!.members.filter((m) => m.server !== '1.2.3.4');
    w.servers = w.servers.filter((s) => s.name !== '1.2.3.4');
    const p = plan(w, starlord);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([
      [['unbind serviceGroup starlord_http_sg 1.2.3.4 80'], ['bind serviceGroup starlord_http_sg 1.2.3.4 80']],
      [['set lb vserver starlord_http_lb_vs -lbMethod ROUNDROBIN'], ['unset lb vserver starlord_http_lb_vs -lbMethod']],
      [['rm server 1.2.3.4'], ['add server 1.2.3.4 1.2.3.4']],
    ]);
  });
});

describe('migration', () => {
  it('an imported NetScaler site renders for HAProxy: each lb vserver a frontend, its group a backend with the monitor\'s check', () => {
    const r = importNs(starlord, 'ns.conf');
    const w = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab1', host: '192.0.2.10', driver: 'haproxy' }] });
    const out = getDriver('haproxy').render(w, w.appliances[0]!, { workspacePath: '/tmp/site.yaml' });
    expect(out.errors).toEqual([]);
    expect(out.text).toContain('frontend starlord_http_lb_vs\n    bind 192.168.86.144:80\n');
    expect(out.text).toContain('option httpchk GET /index.html');
    expect(out.text).toMatch(/server 1\.2\.3\.4 1\.2\.3\.4:80 weight 1 check/);
  });
});

describe('driver netscaler: plan', () => {
  it('the imported workspace plans no command and renders the running config byte for byte', () => {
    for (const text of [published, published.replace(/\n/g, '\r\n')]) {
      const w = imported(text);
      const p = plan(w, text);
      expect(p.errors).toEqual([]);
      expect(p.steps).toEqual([]);
      expect(p.after).toBe(text);
    }
  });

  it('a server removed and a weight changed: set -weight, unbind, rm server, each with its inverse', () => {
    const w = imported(published);
    w.servers = w.servers.filter((s) => s.name !== '1.2.3.4');
    const g = w.groups[0]!;
    g.members = g.members.filter((m) => m.server !== '1.2.3.4');
    g.members[0]!.weight = 5;
    const p = plan(w, published);
    expect(p.errors).toEqual([]);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([
      [['set serviceGroup app1_http_sg 1.2.3.5 80 -weight 5'], ['set serviceGroup app1_http_sg 1.2.3.5 80 -weight 1']],
      [['unbind serviceGroup app1_http_sg 1.2.3.4 80'], ['bind serviceGroup app1_http_sg 1.2.3.4 80']],
      [['rm server 1.2.3.4'], ['add server 1.2.3.4 1.2.3.4']],
    ]);
    expect(p.after).toContain('add server 1.2.3.5 1.2.3.5\n\nadd lb vserver');
    expect(p.after).toContain('bind serviceGroup app1_http_sg 1.2.3.5 80 -weight 5\nbind serviceGroup app1_http_sg -monitorName app1_http_mon\n');
    // Undone in full: the same lines, but a re-added server is listed after the others (ns.conf
    // lists each kind in the order the objects were added), so that one line moves.
    expect(undo(p.after, p.steps)).toBe(published.replace('add server 1.2.3.4 1.2.3.4\nadd server 1.2.3.5 1.2.3.5\n', 'add server 1.2.3.5 1.2.3.5\nadd server 1.2.3.4 1.2.3.4\n'));
    // Undone up to the removal (the box refused `rm server`): byte for byte.
    expect(undo(applyNsCommands(published, p.steps.slice(0, 2).flatMap((s) => s.commands)), p.steps.slice(0, 2))).toBe(published);
  });

  it('a new server: added, then bound with its weight; undone by unbinding, then removing it', () => {
    const w = imported(published);
    w.servers.push({ name: 'web3', address: '192.0.2.13', enabled: false });
    w.groups[0]!.members.push({ server: 'web3', port: 8080, weight: 2 });
    const p = plan(w, published);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([
      [['add server web3 192.0.2.13', 'disable server web3'], ['rm server web3']],
      [['bind serviceGroup app1_http_sg web3 8080 -weight 2'], ['unbind serviceGroup app1_http_sg web3 8080']],
    ]);
    expect(p.after).toContain('add server 1.2.3.5 1.2.3.5\nadd server web3 192.0.2.13 -state DISABLED\n');
    expect(p.after).toContain('bind serviceGroup app1_http_sg 1.2.3.4 80\nbind serviceGroup app1_http_sg web3 8080 -weight 2\n');
    expect(undo(p.after, p.steps)).toBe(published);
  });

  it('an algorithm change sets -lbMethod and the inverse unsets it; one with no lbMethod is refused', () => {
    const w = imported(published);
    w.services[0]!.algorithm = 'round-robin';
    const p = plan(w, published);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([[['set lb vserver https_offload_vs -lbMethod ROUNDROBIN'], ['unset lb vserver https_offload_vs -lbMethod']]]);
    expect(p.after.split('\n')[10]).toBe('add lb vserver https_offload_vs SSL 192.168.86.142 443 -persistenceType NONE -cltTimeout 180 -redirectFromPort 80 -httpsRedirectUrl "https://192.168.86.142" -lbMethod ROUNDROBIN');
    expect(undo(p.after, p.steps)).toBe(published);
    w.services[0]!.algorithm = 'health-weighted';
    expect(plan(w, published).errors[0]?.message).toMatch(/has no NetScaler lbMethod/);
  });

  it('client-address persistence sets -persistenceType SOURCEIP where NONE was written, and puts NONE back; a weight over 100 is refused', () => {
    const w = imported(published);
    w.services[0]!.persistence = { type: 'client-ip', timeout: 300_000 };
    const p = plan(w, published);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([[['set lb vserver https_offload_vs -persistenceType SOURCEIP'], ['set lb vserver https_offload_vs -persistenceType NONE']]]);
    expect(p.after).toContain('add lb vserver https_offload_vs SSL 192.168.86.142 443 -persistenceType SOURCEIP -cltTimeout 180');
    expect(undo(p.after, p.steps)).toBe(published);
    w.groups[0]!.members[0]!.weight = 150;
    expect(plan(w, published).errors.map((e) => e.message)).toEqual(['member 1.2.3.5 has weight 150: a NetScaler service group member\'s weight is 1 to 100']);
  });

  it('a disabled server is disabled on the box and enabled by the inverse; a quoted name stays quoted', () => {
    const text = applyNsCommands(published, ['add server "web one" 192.0.2.5', 'bind serviceGroup app1_http_sg "web one" 80']);
    expect(text).toContain('add server "web one" 192.0.2.5\n');
    const w = imported(text);
    expect(plan(w, text).steps).toEqual([]);
    w.servers.find((s) => s.name === 'web-one')!.enabled = false;
    const p = plan(w, text);
    expect(p.steps.map((s) => [s.commands, s.inverse])).toEqual([[['disable server "web one"'], ['enable server "web one"']]]);
    expect(p.after).toContain('add server "web one" 192.0.2.5 -state DISABLED\n');
    expect(undo(p.after, p.steps)).toBe(text);
  });

  it('a server that is also a member of a group lbdesk does not own is unbound from the owned group only, never removed', () => {
    const text = applyNsCommands(published, ['add serviceGroup other HTTP', 'bind serviceGroup other 1.2.3.4 80']);
    const w = imported(text);
    const g = w.groups.find((x) => x.name === 'app1_http_sg')!;
    g.members = g.members.filter((m) => m.server !== '1.2.3.4');
    expect(plan(w, text).steps.flatMap((s) => s.commands)).toEqual(['unbind serviceGroup app1_http_sg 1.2.3.4 80']);
  });

  it('without the box: the owned objects as a new box would list them', () => {
    const w = imported(published);
    const p = plan(w, '');
    expect(p.errors).toEqual([]);
    expect(p.after.split('\n').filter(Boolean)).toEqual([
      'add server 1.2.3.5 1.2.3.5', 'add server 1.2.3.4 1.2.3.4',
      // The group's check, as a monitor of its own (above the service groups), bound to it last.
      'add lb monitor app1_http_sg-mon HTTP -respCode 200 -httpRequest "GET /index.html"',
      'add serviceGroup app1_http_sg TCP',
      'add lb vserver https_offload_vs TCP 192.168.86.142 443', 'bind lb vserver https_offload_vs app1_http_sg',
      'bind serviceGroup app1_http_sg 1.2.3.5 80', 'bind serviceGroup app1_http_sg 1.2.3.4 80',
      'bind serviceGroup app1_http_sg -monitorName app1_http_sg-mon',
    ]);
  });
});
