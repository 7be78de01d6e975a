// driver f5 end to end: a published bigip.conf (test/fixtures/import/f5) on the tmsh test box,
// imported by `lbdesk import --driver f5`, changed in the workspace (a server removed, a weight
// changed), previewed by `render --onto --commands [--inverse]`, pushed in one tmsh transaction
// and saved; a refused command and a cut connection leave the box as it was.
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
import { f5Driver } from '../../../../../main/services/drivers/f5';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startF5Box, type F5Box, type F5BoxOptions } from '../../../../helpers/command-boxes/f5-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/f5/corkscrew-devcloud01.conf'), 'utf8');
const POOL = '/Common/app2_t80_pool';
const COMMANDS = [
  `modify ltm pool ${POOL} members modify { /Common/app2_Node1:80 { ratio 5 } }`,
  `modify ltm pool ${POOL} members delete { /Common/app2_Node2:80 }`,
  'delete ltm node /Common/app2_Node2',
];

const boxes: F5Box[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Omit<F5BoxOptions, 'config'>): Promise<F5Box> {
  const b = await startF5Box({ config: published, ...o });
  boxes.push(b);
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

/** The published config imported by the CLI, then app2_Node2 removed and app2_Node1's weight 1 -> 5. */
async function workspaceFor(b: F5Box, dir: string): Promise<{ file: string; workspace: Workspace; appliance: Appliance; opts: Record<string, unknown> }> {
  const running = join(dir, 'running.conf');
  writeFileSync(running, b.running());
  const out = join(dir, 'site.yaml');
  const r = await runCli(['import', running, '--driver', 'f5', '--out', out, '--appliance', 'bigip1']);
  expect(r.stderr).toMatch(/lbdesk: wrote .*: 6 servers, 3 groups, 3 services; appliance bigip1/);
  expect(r.code).toBe(0);
  const doc = parse(readFileSync(out, 'utf8')) as Workspace;
  doc.servers = doc.servers.filter((s) => s.name !== 'app2_Node2');
  const g = doc.groups.find((x) => x.name === 'app2_t80_pool')!;
  g.members = g.members.filter((m) => m.server !== 'app2_Node2');
  g.members[0]!.weight = 5;
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(out, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const ssh = sshFor(b, 'bigip1');
  return { file: out, workspace, appliance: workspace.appliances[0]!, opts: { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-f5-data-')) } };
}

describe('driver f5 against the tmsh test box', () => {
  it('previews exactly the change and its inverse, pushes it in one transaction, saves, and the box then differs only by it', async () => {
    const b = await box({ host: '127.0.21.50', pageLines: 40 });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-'));
    const { file, workspace, appliance, opts } = await workspaceFor(b, dir);

    const preview = await runCli(['render', file, '--appliance', 'bigip1', '--onto', join(dir, 'running.conf'), '--commands']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toBe(`${COMMANDS.join('\n')}\n`);
    const undo = await runCli(['render', file, '--appliance', 'bigip1', '--onto', join(dir, 'running.conf'), '--commands', '--inverse']);
    expect(undo.stdout).toBe([
      'create ltm node /Common/app2_Node2 address 192.168.2.23 description app2_Node2',
      `modify ltm pool ${POOL} members modify { /Common/app2_Node1:80 { ratio 1 } }`,
      `modify ltm pool ${POOL} members add { /Common/app2_Node2:80 { address 192.168.2.23 } }`, '',
    ].join('\n'));

    const link = openAppliance(workspace, appliance, file);
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('2 changes in 3 commands, then saved');
    expect(report.outcome).toBe('applied');
    expect(b.received).toEqual([
      'modify cli preference pager disabled display-threshold 0', 'show running-config',
      'create cli transaction', ...COMMANDS, 'submit cli transaction', 'save sys config',
    ]);
    const d = changes(published, b.running());
    expect(d.removed).toEqual([
      'ltm node /Common/app2_Node2 {', '    address 192.168.2.23', '    description app2_Node2', '}',
      '        /Common/app2_Node2:80 {', '            address 192.168.2.23', '        }',
    ]);
    expect(d.added).toEqual(['            ratio 5']);
    expect(b.saved()).toBe(b.running());

    const again = await link.push('', opts);
    expect(again.outcome).toBe('unchanged');
    expect((await link.diff(opts)).changed).toBe(false);
  });

  it('a command refused at submit: nothing applied, nothing saved, the box byte for byte as before', async () => {
    const b = await box({ host: '127.0.21.51', failOn: /^delete ltm node \/Common\/app2_Node2$/ });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-'));
    const { workspace, appliance, file, opts } = await workspaceFor(b, dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/^the appliance rejected line 4 \(config\) "submit cli transaction": 01070734:3: Configuration error: delete ltm node \/Common\/app2_Node2: the box refuses this \(test\); nothing was applied \(the commands were one transaction/);
    expect(report.outcome).toBe('rolled-back');
    expect(report.plan.map((s) => s.inverse)).toHaveLength(2);      // computed, and not needed
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
    expect(b.received).not.toContain('save sys config');
  });

  it('a connection cut mid-transaction: the transaction dies with the session, checked over a new one', async () => {
    const b = await box({ host: '127.0.21.52', cutAfter: /members delete/ });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-'));
    const { workspace, appliance, file, opts } = await workspaceFor(b, dir);
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/was cut off at line 2 \(config\) "modify ltm pool \/Common\/app2_t80_pool members delete \{ \/Common\/app2_Node2:80 \}".*the running config read again is the one before the push: the transaction was not applied, nothing saved$/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
  });

  it('the lbdesk command: push prints what it did, diff then finds nothing to change', async () => {
    const b = await box({ host: '127.0.21.53' });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-'));
    const { file, opts } = await workspaceFor(b, dir);
    const ssh = ['--known-hosts', opts.knownHostsFile as string, '--ssh-config', opts.sshConfigFile as string];
    const env = { LBDESK_DATA_DIR: opts.dataDir as string };
    const before = await runCli(['diff', file, '--appliance', 'bigip1', ...ssh], { env });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('-    description app2_Node2');
    const push = await runCli(['push', file, '--appliance', 'bigip1', ...ssh], { env });
    expect(push.stdout).toBe('bigip1: applied: 2 changes in 3 commands, then saved\n');
    expect(push.code).toBe(0);
    expect((await runCli(['diff', file, '--appliance', 'bigip1', ...ssh], { env })).code).toBe(0);
  });

  it('import WS --appliance: the running config pulled over SSH into an existing workspace', async () => {
    const b = await box({ host: '127.0.21.54' });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-'));
    const file = join(dir, 'site.yaml');
    writeFileSync(file, `# the site\nlbdesk: 1\nname: site\nappliances:\n  - name: bigip1\n    host: ${b.host}\n    port: ${b.port}\n    user: admin\n    auth: key\n    keyFile: ${b.keyFile}\n    driver: f5\n`);
    const ssh = sshFor(b, 'bigip1').options;
    const r = await runCli(['import', file, '--appliance', 'bigip1', '--known-hosts', ssh.knownHostsFile!, '--ssh-config', ssh.sshConfigFile!], { env: { LBDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'lbdesk-f5-data-')) } });
    expect(r.stderr).toMatch(/bigip1:running-config:\d+: ltm node \/Common\/app1_Node1: imported: /);
    expect(r.code).toBe(0);
    const w = workspaceSchema.parse(parse(readFileSync(file, 'utf8')));
    expect(w.services.map((x) => x.name)).toEqual(['app1_t443_vs', 'app2_t443_vs', 'app3_t8443_vs']);
    expect(w.appliances[0]!.manage).toBe('sections');
  });

  it('refuses what tmsh refuses, pages until the pager is off, and applies nothing of a failed transaction', async () => {
    const b = await box({ host: '127.0.21.55', pageLines: 30 });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), ...f5Driver.commands!.patterns! } as ReturnType<typeof cliPatterns>, timeoutMs: 5000 });
    const page = await s.run('show running-config');
    expect(page.output.split('\n').length).toBeGreaterThan(300);    // paged by ---(less NN%)---, read whole
    expect((await s.run('delete ltm node /Common/app1_Node1')).error).toBe("01070110:3: Node address '/Common/app1_Node1' is referenced by a member of pool '/Common/app1_t80_pool'.");
    expect((await s.run('delete ltm pool /Common/app1_t80_pool')).error).toMatch(/^01070265:3: The Pool \(\/Common\/app1_t80_pool\) cannot be deleted because it is in use by a Virtual Server/);
    expect((await s.run('create cli transaction')).error).toBeUndefined();
    expect((await s.run(`modify ltm pool ${POOL} members modify { /Common/app2_Node1:80 { ratio 5 } }`)).error).toBeUndefined();
    expect((await s.run('modify ltm node /Common/nosuch session user-disabled')).error).toBeUndefined();   // queued
    expect((await s.run('submit cli transaction')).error).toBe('01020036:3: The requested node (/Common/nosuch) was not found.');
    expect(b.running()).toBe(published);
    s.close();
    conn.close();
  });
});
