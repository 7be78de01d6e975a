// driver adx offline: import -> plan round trip on the published config (no commands, the same
// bytes), and the steps and inverses of each kind of change. Box states beyond the published
// config are made by applying ADX commands to it, as an engineer would have typed them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { importAdx } from '../../../../main/services/drivers/adx/import';
import { applyAdxCommands } from '../../../../main/services/drivers/adx/edit';
import { parseAdx } from '../../../../main/services/drivers/adx/parse';
import { planAdx } from '../../../../main/services/drivers/adx/plan';

const published = readFileSync(resolve(__dirname, '../../../fixtures/import/adx/brocade-vtm-translator.cfg'), 'utf8');
const vip = parseAdx(published).virtuals[0]!.address;
/** The published box once rs2 and rs3 serve vi1's HTTP (rs2 at weight 2). */
const inUse = applyAdxCommands(published, [`server virtual vi1 ${vip}`, 'port http', 'bind http rs2 http rs3 http', 'exit', `server real rs2 ${parseAdx(published).reals[0]!.address}`, 'weight 2 0', 'exit']);

function imported(text: string, include?: string[]): Workspace {
  const r = importAdx(text, 'box.cfg');
  return workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'adx1', host: '192.0.2.250', driver: 'adx', manage: 'sections', ...(include ? { include } : {}) }] });
}
const commands = (w: Workspace, text: string) => planAdx(w, w.appliances[0]!, text).steps.flatMap((s) => s.commands);

describe('driver adx: plan', () => {
  it('the imported workspace plans no command and renders the running config byte for byte', () => {
    for (const text of [published, inUse, inUse.replace(/\n/g, '\r\n')]) {
      const w = imported(text);
      const p = planAdx(w, w.appliances[0]!, text);
      expect(p.errors).toEqual([]);
      expect(p.steps).toEqual([]);
      expect(p.after).toBe(text);
    }
  });

  it('a new server: created with its port and check, then bound; undone by unbinding, then removing it', () => {
    const w = imported(inUse);
    w.servers.push({ name: 'web3', address: '192.0.2.13', enabled: true });
    w.groups.find((g) => g.name === 'vi1-http')!.members.push({ server: 'web3', port: 80, weight: 100 });
    const p = planAdx(w, w.appliances[0]!, inUse);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['server real web3 192.0.2.13', 'port http', 'port http keepalive', 'exit'],
      [`server virtual vi1 ${vip}`, 'bind http web3 http', 'exit'],
    ]);
    expect(p.steps.map((s) => s.inverse)).toEqual([['no server real web3'], [`server virtual vi1 ${vip}`, 'no bind http web3 http', 'exit']]);
    expect(p.after).toContain('server real web3 192.0.2.13\n port http\n port http keepalive\n!\nserver virtual vi1');
    expect(p.after).toContain(' bind http rs2 http rs3 http web3 http\n');
    // What the inverse gives back is the box as it was.
    expect(applyAdxCommands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse))).toBe(inUse);
  });

  it('a quoted name is kept as the box spells it', () => {
    const text = applyAdxCommands(inUse, ['server real "web one" 192.0.2.5', 'port http', 'exit', `server virtual vi1 ${vip}`, 'bind http "web one" http', 'exit']);
    expect(text).toContain('server real "web one" 192.0.2.5\n');
    const w = imported(text);
    expect(w.servers.map((s) => s.name)).toContain('web-one');
    expect(commands(w, text)).toEqual([]);
    const g = w.groups.find((x) => x.name === 'vi1-http')!;
    g.members = g.members.filter((m) => m.server !== 'web-one');
    expect(commands(w, text)).toEqual([`server virtual vi1 ${vip}`, 'no bind http "web one" http', 'exit', 'no server real "web one"']);
  });

  it('a real server still bound to a port lbdesk does not own is unbound from the owned one only, never removed', () => {
    const text = applyAdxCommands(inUse, [`server virtual vi1 ${vip}`, 'bind ssl rs2 ssl', 'exit']);
    const w = imported(text, ['vi1-http']);
    const g = w.groups.find((x) => x.name === 'vi1-http')!;
    g.members = g.members.filter((m) => m.server !== 'rs2');
    expect(commands(w, text)).toEqual([`server virtual vi1 ${vip}`, 'no bind http rs2 http', 'exit']);
  });

  it('an algorithm change sets the predictor and puts the old one back; one with no ADX predictor is refused', () => {
    const w = imported(inUse);
    w.services.find((s) => s.name === 'vi1-http')!.algorithm = 'round-robin';
    const p = planAdx(w, w.appliances[0]!, inUse);
    expect(p.errors.map((e) => e.message)).toEqual([expect.stringMatching(/virtual server vi1 is balanced one way for all its ports/)]);
    w.services.find((s) => s.name === 'vi1-ssl')!.algorithm = 'round-robin';
    const q = planAdx(w, w.appliances[0]!, inUse);
    expect(q.errors).toEqual([]);
    expect(q.steps.map((s) => [s.commands, s.inverse])).toEqual([[
      [`server virtual vi1 ${vip}`, 'predictor round-robin', 'exit'],
      [`server virtual vi1 ${vip}`, 'no predictor round-robin', 'exit'],
    ]]);
    w.services.forEach((s) => { s.algorithm = 'source-hash'; });
    expect(planAdx(w, w.appliances[0]!, inUse).errors[0]?.message).toMatch(/algorithm source-hash has no ADX predictor/);
  });

  it('a check path: set on each member port keeping the box\'s method, and put back by the inverse', () => {
    const w = imported(inUse);
    w.groups.find((g) => g.name === 'vi1-http')!.healthCheck.http = { path: '/health' };
    const p = planAdx(w, w.appliances[0]!, inUse);
    expect(p.steps.map((s) => [s.commands.slice(1), s.inverse.slice(1)])).toEqual([
      [['port http url "HEAD /health"', 'exit'], ['port http url "HEAD /"', 'exit']],
      [['port http url "HEAD /health"', 'exit'], ['port http url "HEAD /"', 'exit']],
    ]);
    expect(applyAdxCommands(p.after, p.steps.flatMap((s) => s.inverse))).toBe(inUse);
  });

  it('a disabled server is disabled on the box, and enabled again by the inverse', () => {
    const w = imported(inUse);
    w.servers.find((s) => s.name === 'rs2')!.enabled = false;
    const p = planAdx(w, w.appliances[0]!, inUse);
    expect(p.steps.map((s) => [s.commands.slice(1), s.inverse.slice(1)])).toEqual([[['disable', 'exit'], ['enable', 'exit']]]);
    expect(applyAdxCommands(p.after, p.steps[0]!.inverse)).toBe(inUse);
  });
});

describe('driver adx: render without the box', () => {
  it('lists the owned objects as a new box would: one virtual server per address, its ports and binds', () => {
    const w = imported(inUse);
    const p = planAdx(w, w.appliances[0]!, '');
    expect(p.errors).toEqual([]);
    const virtuals = p.after.split('\n').filter((l) => l.startsWith('server virtual '));
    expect(virtuals).toEqual([`server virtual vi1-ssl ${vip}`]);
    expect(p.after).toContain(`server virtual vi1-ssl ${vip}\n port ssl\n port http\n bind http rs2 http rs3 http\n!\n`);
  });
});

describe('migration: an imported ADX site renders for HAProxy', () => {
  it('the ports bound on a virtual server entered again (with or without its address) are the backend\'s servers', async () => {
    const { getDriver } = await import('../../../../main/services/drivers');
    const [rs2, rs3] = parseAdx(published).reals.map((r) => r.address);
    // The published config, with a virtual server as an engineer types it: entered, then entered again by name to bind.
    const text = `${published}server virtual vi2 192.0.2.80\n port http\n!\nserver virtual-name-or-ip vi2\n bind http rs2 http\n bind http rs3 http rs2 http\n!\n`;
    const r = importAdx(text, 'adx.cfg');
    expect(r.workspace.groups?.find((g) => g.name === 'vi2')?.members).toEqual([{ server: 'rs2', port: 80, weight: 100 }, { server: 'rs3', port: 80, weight: 100 }]);
    expect(r.items.find((i) => i.line === published.split('\n').length + 3)).toMatchObject({ outcome: 'imported', detail: expect.stringMatching(/entered again/) });
    const w = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab1', host: '192.0.2.10', driver: 'haproxy' }] });
    const out = getDriver('haproxy').render(w, w.appliances[0]!, { workspacePath: '/tmp/site.yaml' });
    expect(out.errors).toEqual([]);
    expect(out.text).toContain('frontend vi2\n    bind 192.0.2.80:80\n');
    const backend = out.text.slice(out.text.indexOf('backend vi2\n'));
    expect(backend).toMatch(new RegExp(`\\n    server rs2 ${rs2}:80 weight 1 check`));
    expect(backend).toMatch(new RegExp(`\\n    server rs3 ${rs3}:80 `));
  });
  it('a remote real server (`server remote-name`) bound on a virtual server is a member, and is changed and removed as one', async () => {
    const { getDriver } = await import('../../../../main/services/drivers');
    const rs2 = parseAdx(published).reals[0]!;
    // As the box prints it: the remote server after the local ones, bound with them.
    const text = `${published.replace('server virtual vi1', 'server remote-name far1 203.0.113.21\n port http\n port http keepalive\n!\nserver virtual vi1')}server virtual vi3 192.0.2.81\n port http\n bind http rs2 http far1 http\n!\n`;
    const r = importAdx(text, 'adx.cfg');
    expect(r.workspace.servers).toContainEqual({ name: 'far1', address: '203.0.113.21' });
    expect(r.workspace.groups?.find((g) => g.name === 'vi3')?.members).toEqual([{ server: 'rs2', port: 80, weight: 100 }, { server: 'far1', port: 80, weight: 100 }]);
    expect(r.items.find((i) => i.section === 'server remote-name far1')).toMatchObject({ outcome: 'imported' });
    const lab = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab1', host: '192.0.2.10', driver: 'haproxy' }] });
    const out = getDriver('haproxy').render(lab, lab.appliances[0]!, { workspacePath: '/tmp/site.yaml' }).text;
    const backend = out.slice(out.indexOf('\nbackend vi3\n'));
    expect(backend).toMatch(new RegExp(`\\n    server rs2 ${rs2.address}:80 `));
    expect(backend).toMatch(/\n {4}server far1 203\.0\.113\.21:80 /);
    // On the ADX itself: nothing to send as imported; a weight is set with its own command word,
    // and the server removed is unbound, then removed as a remote server; the inverse gives the box back.
    const w = imported(text);
    expect(commands(w, text)).toEqual([]);
    w.groups.find((g) => g.name === 'vi3')!.members.find((m) => m.server === 'far1')!.weight = 3;
    expect(commands(w, text)).toEqual(['server remote-name far1 203.0.113.21', 'weight 3', 'exit']);
    const g = w.groups.find((x) => x.name === 'vi3')!;
    g.members = g.members.filter((m) => m.server !== 'far1');
    w.servers = w.servers.filter((s) => s.name !== 'far1');
    const p = planAdx(w, w.appliances[0]!, text);
    expect(p.steps.flatMap((s) => s.commands)).toEqual(['server virtual vi3 192.0.2.81', 'no bind http far1 http', 'exit', 'no server remote-name far1']);
    expect(p.after).not.toContain('far1');
    expect(applyAdxCommands(p.after, [...p.steps].reverse().flatMap((s) => s.inverse))).toBe(text);
  });
});
