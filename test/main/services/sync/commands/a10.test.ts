// driver a10 end to end: a published ACOS 4.x config (test/fixtures/import/a10) on the A10 test
// box, imported by `lbdesk import --driver a10`, changed in the workspace (a server removed, a
// weight changed), previewed by `render --onto --commands [--inverse]`, pushed, and rolled back
// on a refused command and on a connection cut mid-apply.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { diffLines } from 'diff';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSchema, type Appliance, type Workspace } from '../../../../../shared/model/schema';
import { openAppliance } from '../../../../../main/services/sync/appliance';
import { BoxSession } from '../../../../../main/services/sync/commands';
import { cliPatterns } from '../../../../../main/services/drivers/box-patterns';
import { A10_PROMPT } from '../../../../../main/services/drivers/a10';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startA10Box, type A10Box, type A10BoxOptions } from '../../../../helpers/command-boxes/a10-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/a10/batfish-virtual-server-convert.cfg'), 'utf8');

const boxes: A10Box[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Omit<A10BoxOptions, 'config'>): Promise<A10Box> {
  const b = await startA10Box({ config: published, ...o });
  boxes.push(b);
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

/** The box's running config imported by the CLI, then SERVER3 removed and SERVER1's weight set to 5. */
async function workspaceFor(b: A10Box, dir: string): Promise<{ file: string; running: string; workspace: Workspace; appliance: Appliance; opts: Record<string, unknown> }> {
  const running = join(dir, 'running.cfg');
  writeFileSync(running, b.show());
  const file = join(dir, 'site.yaml');
  const r = await runCli(['import', running, '--driver', 'a10', '--out', file, '--appliance', 'thunder1']);
  expect(r.stderr).toMatch(/lbdesk: wrote .*: 3 servers, 1 groups?, 2 services; appliance thunder1/);
  expect(r.code).toBe(0);
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { servers: { name: string }[]; groups: { members: { server: string; weight: number }[] }[]; appliances: Record<string, unknown>[] };
  doc.servers = doc.servers.filter((s) => s.name !== 'SERVER3');
  doc.groups[0]!.members = doc.groups[0]!.members.filter((m) => m.server !== 'SERVER3').map((m) => (m.server === 'SERVER1' ? { ...m, weight: 5 } : m));
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(file, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const ssh = sshFor(b, 'thunder1');
  return { file, running, workspace, appliance: workspace.appliances[0]!, opts: { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-a10-data-')) } };
}

const SENT = ['slb server SERVER1 10.0.0.1', 'weight 5', 'exit', 'slb service-group SG1 tcp', 'no member SERVER3 80', 'exit', 'no slb server SERVER3'];

describe('driver a10 against the A10 test box', () => {
  it('previews exactly the change and its inverse, pushes it, saves, and the box then differs only by it', async () => {
    const b = await box({ host: '127.0.41.40', userMode: true, pageLines: 12 });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10-'));
    const { file, running, workspace, appliance, opts } = await workspaceFor(b, dir);

    const preview = await runCli(['render', file, '--appliance', 'thunder1', '--onto', running, '--commands']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toBe(`${SENT.join('\n')}\n`);
    const undo = await runCli(['render', file, '--appliance', 'thunder1', '--onto', running, '--commands', '--inverse']);
    expect(undo.stdout).toBe(['slb server SERVER3 10.0.0.3', 'port 80 tcp', 'exit', 'exit', 'slb service-group SG1 tcp', 'member SERVER3 80', 'enable', 'exit', 'exit', 'slb server SERVER1 10.0.0.1', 'no weight', 'exit', ''].join('\n'));

    const link = openAppliance(workspace, appliance, file);
    const typed = b.received.length;
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('3 changes in 7 commands, then saved');
    expect(b.received.slice(typed, typed + 4)).toEqual(['enable', 'terminal length 0', 'show running-config', 'configure terminal']);
    expect(b.received.slice(typed + 4, typed + 4 + SENT.length)).toEqual(SENT);
    expect(b.received.slice(-2)).toEqual(['end', 'write memory']);
    const d = changes(published, b.running());
    expect(d.removed).toEqual(['slb server SERVER3 10.0.0.3', '  port 80 tcp', '!', '  member SERVER3 80', '    enable']);
    expect(d.added).toEqual(['  weight 5']);
    expect(b.running()).not.toMatch(/SERVER3/);
    expect(b.saved()).toBe(b.running());

    const again = await link.push('', opts);
    expect(again.outcome).toBe('unchanged');
    expect((await link.diff(opts)).changed).toBe(false);
  });

  it('a refused command: the inverse of what was sent goes back, nothing saved, the box byte for byte as before', async () => {
    const b = await box({ host: '127.0.41.41', failOn: /^no slb server SERVER3$/ });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10-'));
    const { file, workspace, appliance, opts } = await workspaceFor(b, dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/rejected line 7 \(config\) "no slb server SERVER3": Error: no slb server SERVER3: the box refuses this \(test\); the inverse \(8 commands\) was sent and accepted, nothing saved/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
    expect(b.received).not.toContain('write memory');
  });

  it('a connection cut mid-apply: the inverse goes back over a new session', async () => {
    const b = await box({ host: '127.0.41.42', cutAfter: /^no member SERVER3 80$/ });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10-'));
    const { file, workspace, appliance, opts } = await workspaceFor(b, dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/was cut off at line 5 \(config\) "no member SERVER3 80".*the inverse \(8 commands\) was sent and accepted/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
  });

  it('refuses what ACOS refuses, in its words; pages with --MORE--', async () => {
    const b = await box({ host: '127.0.41.43' });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: A10_PROMPT }, timeoutMs: 5000 });
    expect(s.currentPrompt).toBe('vThunder#');
    await s.run('configure terminal');
    expect((await s.run('no slb server SERVER3')).error).toBe('Error: server SERVER3 is referenced by service-group SG1');
    expect((await s.run('slb server SERVER3 10.0.0.9')).error).toMatch(/^Error: server SERVER3 already exists with IP 10.0.0.3/);
    expect((await s.run('slb srver x 10.0.0.9')).error).toBe('% Invalid input detected at \'^\' marker.');
    const sg = await s.run('slb service-group SG1 tcp');
    expect(sg.prompt).toBe('vThunder(config-slb svc group)#');
    expect((await s.run('member NOSUCH 80')).error).toBe('Error: server NOSUCH does not exist');
    expect((await s.run('member SERVER1 80')).prompt).toBe('vThunder(config-slb svc group-member:80)#');
    await s.run('end');
    const page = await s.run('show running-config');
    expect(page.output).toContain('slb virtual-server VS2 10.0.0.101\n  disable\n');   // paged with --MORE--, read whole
    expect(b.running()).toBe(published);
    s.close();
    conn.close();
  });

  it('import WS --appliance: the box\'s running config pulled over SSH into an existing workspace', async () => {
    const b = await box({ host: '127.0.41.45', userMode: true });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10-'));
    const file = join(dir, 'site.yaml');
    writeFileSync(file, `# the site\nlbdesk: 1\nname: site\nappliances:\n  - name: thunder1\n    host: ${b.host}\n    port: ${b.port}\n    user: admin\n    auth: key\n    keyFile: ${b.keyFile}\n    driver: a10\n`);
    const ssh = sshFor(b, 'thunder1').options;
    const r = await runCli(['import', file, '--appliance', 'thunder1', '--known-hosts', ssh.knownHostsFile!, '--ssh-config', ssh.sshConfigFile!], { env: { LBDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'lbdesk-a10-data-')) } });
    expect(r.stderr).toMatch(/thunder1:running-config:\d+: slb server SERVER1: imported: /);
    expect(r.code).toBe(0);
    const w = workspaceSchema.parse(parse(readFileSync(file, 'utf8')));
    expect(w.servers.map((x) => x.name)).toEqual(['SERVER1', 'SERVER2', 'SERVER3']);
    expect(w.services.map((x) => x.name)).toEqual(['VS1', 'VS2']);
  });
});
