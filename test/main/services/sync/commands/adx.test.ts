// driver adx end to end: a real ADX running config (test/fixtures/import/adx) on the ADX test
// box, imported by `lbdesk import --driver adx`, changed in the workspace (a server removed, a
// weight changed), previewed by `render --onto --commands`, pushed, and rolled back on a refused
// command and on a connection cut mid-apply.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { diffLines } from 'diff';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workspaceSchema, type Appliance, type Workspace } from '../../../../../shared/model/schema';
import { openAppliance } from '../../../../../main/services/sync/appliance';
import { withSession } from '../../../../../main/services/sync/session';
import type { SshConnection } from '../../../../../main/services/ssh/connect';
import { parseAdx } from '../../../../../main/services/drivers/adx/parse';
import { importAdx } from '../../../../../main/services/drivers/adx/import';
import { BoxSession } from '../../../../../main/services/sync/commands';
import { cliPatterns } from '../../../../../main/services/drivers/box-patterns';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startAdxBox, type AdxBox, type AdxBoxOptions } from '../../../../helpers/command-boxes/adx-box';

const FIXTURE = resolve(__dirname, '../../../../fixtures/import/adx/brocade-vtm-translator.cfg');
const published = readFileSync(FIXTURE, 'utf8');
const cfg = parseAdx(published);
const addr = (kind: 'reals' | 'virtuals', name: string) => cfg[kind].find((o) => o.name === name)!.address;

const boxes: AdxBox[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Omit<AdxBoxOptions, 'config'> & { config?: string }): Promise<AdxBox> {
  const b = await startAdxBox({ config: o.config ?? published, ...o });
  boxes.push(b);
  return b;
}

/** What the site's engineer typed on the box before lbdesk came: rs2 and rs3 serve vi1's HTTP, rs2 at weight 2. */
async function siteInUse(b: AdxBox): Promise<string> {
  const conn = await connectTo(b);
  const s = await BoxSession.open(conn.client, { patterns: cliPatterns(undefined), timeoutMs: 5000 });
  for (const c of ['enable', 'configure terminal', `server virtual vi1 ${addr('virtuals', 'vi1')}`, 'port http', 'bind http rs2 http rs3 http', 'exit',
    `server real rs2 ${addr('reals', 'rs2')}`, 'weight 2 0', 'end', 'write memory']) {
    expect((await s.run(c)).error, c).toBeUndefined();
  }
  s.close();
  conn.close();
  return b.running();
}

/** The lines a line diff removes and adds, in order. */
function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

async function workspaceFor(b: AdxBox, running: string, dir: string): Promise<{ file: string; workspace: Workspace; appliance: Appliance; opts: Record<string, unknown> }> {
  const file = join(dir, 'running.cfg');
  writeFileSync(file, running);
  const out = join(dir, 'site.yaml');
  const r = await runCli(['import', file, '--driver', 'adx', '--out', out, '--appliance', 'adx1']);
  expect(r.stderr).toMatch(/lbdesk: wrote .*: 2 servers, 2 groups, 2 services; appliance adx1/);
  expect(r.code).toBe(0);
  // The change: rs3 leaves the workspace, rs2's weight goes from 2 to 5.
  const text = readFileSync(out, 'utf8')
    .replace(`  - name: rs3\n    address: ${addr('reals', 'rs3')}\n    enabled: false\n`, '')
    .replace('        weight: 2\n      - server: rs3\n        port: 80\n        weight: 100\n', '        weight: 5\n')
    .replace(/host: adx1/, `host: ${b.host}\n    port: ${b.port}\n    user: admin\n    auth: key\n    keyFile: ${b.keyFile}\n    cli:\n      timeout: 5s`);
  writeFileSync(out, text);
  const workspace = workspaceSchema.parse(parse(text));
  const ssh = sshFor(b, 'adx1');
  return { file: out, workspace, appliance: workspace.appliances[0]!, opts: { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-adx-data-')) } };
}

describe('import --driver adx', () => {
  it('accounts for every line of the published config: imported, approximated or kept with why', () => {
    const r = importAdx(published, 'brocade.cfg');
    const said = new Set(r.items.map((i) => i.line));
    const modelled = new Set([4, 5, 11, 13, 14, 22, 26]);   // keepalive, url, disable, no sticky, bind: read into the objects
    published.split('\n').forEach((l, i) => {
      if (l === '!' || l === '') return;
      expect(said.has(i + 1) || modelled.has(i + 1), `line ${i + 1}: ${l}`).toBe(true);
    });
    expect(r.items.find((i) => i.section === 'server real rs3' && i.outcome === 'imported')?.detail).toMatch(/disabled/);
    expect(r.items.find((i) => i.line === 20)?.detail).toMatch(/^service vi1 .*bind ssl rs1 ssl: no such real server; left on the box/);
    expect(r.workspace.servers.map((s) => s.name)).toEqual(['rs2', 'rs3']);
  });
});

describe('driver adx against the ADX test box', () => {
  it('previews exactly the change, pushes it, saves, and the box then differs only by it', async () => {
    const b = await box({ host: '127.0.19.40', userMode: true, pageLines: 12 });
    const original = await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const { file, workspace, appliance, opts } = await workspaceFor(b, b.show(), dir);

    const preview = await runCli(['render', file, '--appliance', 'adx1', '--onto', join(dir, 'running.cfg'), '--commands']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toBe([
      `server real rs2 ${addr('reals', 'rs2')}`, 'weight 5 0', 'exit',
      `server virtual vi1 ${addr('virtuals', 'vi1')}`, 'no bind http rs3 http', 'exit',
      'no server real rs3', '',
    ].join('\n'));

    const undo = await runCli(['render', file, '--appliance', 'adx1', '--onto', join(dir, 'running.cfg'), '--commands', '--inverse']);
    expect(undo.stdout.split('\n').slice(0, 4)).toEqual([`server real rs3 ${addr('reals', 'rs3')}`, 'port default disable', 'disable', 'port http disable']);
    expect(undo.stdout.split('\n').slice(-7)).toEqual([`server virtual vi1 ${addr('virtuals', 'vi1')}`, 'bind http rs3 http', 'exit', `server real rs2 ${addr('reals', 'rs2')}`, 'weight 2 0', 'exit', '']);

    const link = openAppliance(workspace, appliance, file);
    const typed = b.received.length;
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('3 changes in 7 commands, then saved');
    expect(report.plan.map((s) => s.inverse)).toEqual([
      [`server real rs2 ${addr('reals', 'rs2')}`, 'weight 2 0', 'exit'],
      [`server virtual vi1 ${addr('virtuals', 'vi1')}`, 'bind http rs3 http', 'exit'],
      [`server real rs3 ${addr('reals', 'rs3')}`, 'port default disable', 'disable', 'port http disable', 'port http keepalive', 'port http url "HEAD /"', 'port http server-id 1103', 'port http group-id  1 1', 'exit'],
    ]);
    expect(b.received.slice(typed, typed + 4)).toEqual(['enable', 'skip-page-display', 'show running-config', 'configure terminal']);
    expect(b.received.slice(-2)).toEqual(['end', 'write memory']);
    const d = changes(original, b.running());
    const rs3 = published.split('\n').slice(8, 17);     // the published rs3 block and its "!"
    expect(rs3[0]).toMatch(/^server real rs3 /);
    expect(d.removed).toEqual([' weight 2 0', ...rs3, ' bind http rs2 http rs3 http']);
    expect(d.added).toEqual([' weight 5 0', ' bind http rs2 http']);
    expect(b.saved()).toBe(b.running());

    // Pushed again: the box already is what the workspace says.
    const again = await link.push('', opts);
    expect(again.outcome).toBe('unchanged');
    expect((await link.diff(opts)).changed).toBe(false);
  });

  it('a refused command: the inverse of what was sent goes back, nothing saved, the box byte for byte as before', async () => {
    const b = await box({ host: '127.0.19.41', failOn: /^no server real rs3$/ });
    const original = await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const { workspace, appliance, file, opts } = await workspaceFor(b, b.show(), dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/rejected line 7 \(config\) "no server real rs3": Error: no server real rs3: the box refuses this \(test\); the inverse \(6 commands\) was sent and accepted, nothing saved/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(original);
    expect(b.saved()).toBe(original);
    expect(b.received.filter((c) => c === 'write memory')).toHaveLength(1);   // the engineer's, not lbdesk's
  });

  it('a connection cut mid-apply: the inverse goes back over a new session', async () => {
    const b = await box({ host: '127.0.19.42', cutAfter: /^no bind http rs3 http$/ });
    const original = await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const { workspace, appliance, file, opts } = await workspaceFor(b, b.show(), dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/was cut off at line 5 \(config\) "no bind http rs3 http".*the inverse \(6 commands\) was sent and accepted/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(original);
    expect(b.saved()).toBe(original);
  });

  it('the lbdesk command: push prints what it did, diff then finds nothing to change', async () => {
    const b = await box({ host: '127.0.19.44' });
    await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const { file, opts } = await workspaceFor(b, b.show(), dir);
    const ssh = ['--known-hosts', opts.knownHostsFile as string, '--ssh-config', opts.sshConfigFile as string];
    const env = { LBDESK_DATA_DIR: opts.dataDir as string };
    const before = await runCli(['diff', file, '--appliance', 'adx1', ...ssh], { env });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('- weight 2 0');
    const push = await runCli(['push', file, '--appliance', 'adx1', ...ssh], { env });
    expect(push.stdout).toBe('adx1: applied: 3 changes in 7 commands, then saved\n');
    expect(push.code).toBe(0);
    const after = await runCli(['diff', file, '--appliance', 'adx1', ...ssh], { env });
    expect(after.code).toBe(0);
  });

  it('a window Push over one login: the diff, the push and the diff after it share one connection', async () => {
    const b = await box({ host: '127.0.19.47' });
    await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const { workspace, appliance, file, opts } = await workspaceFor(b, b.show(), dir);
    const link = openAppliance(workspace, appliance, file);
    let used: SshConnection | undefined;
    const logins = b.logins();
    const [before, report, after] = await withSession(link.target.endpoint, opts, async (session) => {
      used = session.connection;
      return [await link.diff(session), await link.push('', session), await link.diff(session)] as const;
    });
    expect(before.changed).toBe(true);
    expect(report.outcome).toBe('applied');
    expect(after.changed).toBe(false);
    expect(b.logins() - logins).toBe(1);
    // Each step opened its own CLI session on the one connection; the action closed it at the end.
    await vi.waitFor(() => expect(used!.isClosed).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('import WS --appliance: the box\'s running config pulled over SSH and added to an existing workspace', async () => {
    const b = await box({ host: '127.0.19.45', userMode: true });
    await siteInUse(b);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const file = join(dir, 'site.yaml');
    writeFileSync(file, `# the site\nlbdesk: 1\nname: site\nappliances:\n  - name: adx1\n    host: ${b.host}\n    port: ${b.port}\n    user: admin\n    auth: key\n    keyFile: ${b.keyFile}\n    driver: adx\n`);
    const ssh = sshFor(b, 'adx1').options;
    const r = await runCli(['import', file, '--appliance', 'adx1', '--known-hosts', ssh.knownHostsFile!, '--ssh-config', ssh.sshConfigFile!], { env: { LBDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'lbdesk-adx-data-')) } });
    expect(r.stderr).toMatch(/adx1:running-config:\d+: server real rs2: imported: /);
    expect(r.code).toBe(0);
    const w = workspaceSchema.parse(parse(readFileSync(file, 'utf8')));
    expect(readFileSync(file, 'utf8')).toMatch(/^# the site\n/);
    expect(w.servers.map((x) => x.name)).toEqual(['rs2', 'rs3']);
    expect(w.services.map((x) => x.name)).toEqual(['vi1-ssl', 'vi1-http']);
    expect(w.appliances[0]!.manage).toBe('sections');
  });

  it('a remote real server (server remote-name): its weight changed and the server removed on the box, by its own command word', async () => {
    const text = `${published.replace('server virtual vi1', 'server remote-name far1 203.0.113.21\n port http\n port http keepalive\n!\nserver virtual vi1')}server virtual vi3 192.0.2.81\n port http\n bind http rs2 http far1 http\n!\n`;
    const b = await box({ host: '127.0.19.48', config: text });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-'));
    const file = join(dir, 'site.yaml');
    const r = importAdx(b.running(), 'running.cfg');
    const workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'adx1', host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, driver: 'adx', manage: 'sections', cli: { timeout: '5s' } }] });
    workspace.groups.find((g) => g.name === 'vi3')!.members.find((m) => m.server === 'far1')!.weight = 3;
    writeFileSync(file, JSON.stringify(workspace));
    const opts = { ...sshFor(b, 'adx1').options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-adx-data-')) };
    const link = openAppliance(workspace, workspace.appliances[0]!, file);
    const weighted = await link.push('', opts) as CommandPushReport;
    expect(weighted.outcome, weighted.reason).toBe('applied');
    expect(changes(text, b.running())).toEqual({ removed: [], added: [' weight 3'] });
    const g = workspace.groups.find((x) => x.name === 'vi3')!;
    g.members = g.members.filter((m) => m.server !== 'far1');
    workspace.servers = workspace.servers.filter((s) => s.name !== 'far1');
    const removed = await link.push('', opts) as CommandPushReport;
    expect(removed.outcome, removed.reason).toBe('applied');
    expect(b.running()).not.toContain('far1');
    expect(b.running()).toContain('server virtual vi3 192.0.2.81\n port http\n bind http rs2 http\n');
  });

  it('refuses what the ADX refuses: a real server still bound is not removed', async () => {
    const b = await box({ host: '127.0.19.43' });
    await siteInUse(b);
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: cliPatterns(undefined), timeoutMs: 5000 });
    await s.run('configure terminal');
    expect((await s.run('no server real rs3')).error).toMatch(/^Error - real server rs3 is bound to virtual server vi1/);
    expect((await s.run('bind http nosuch http')).error).toMatch(/^Invalid input -> bind http nosuch http/);
    const page = await s.run('show running-config');
    expect(page.output.split('\n').length).toBeGreaterThan(20);      // paged with --More--, read whole
    s.close();
    conn.close();
  });
});
