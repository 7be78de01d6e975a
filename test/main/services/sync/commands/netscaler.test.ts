// driver netscaler end to end: a published ns.conf (test/fixtures/import/netscaler) on the
// NetScaler test box, imported by `lbdesk import --driver netscaler`, changed in the workspace
// (a server removed, a weight changed), previewed by `render --onto --commands [--inverse]`,
// pushed, and rolled back on a refused command and on a connection cut mid-apply.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { diffLines } from 'diff';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSchema, type Appliance, type Workspace } from '../../../../../shared/model/schema';
import { openAppliance } from '../../../../../main/services/sync/appliance';
import { BoxSession } from '../../../../../main/services/sync/commands';
import { cliPatterns } from '../../../../../main/services/drivers/box-patterns';
import { NS_PROMPT } from '../../../../../main/services/drivers/netscaler';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startNsBox, type NsBox, type NsBoxOptions } from '../../../../helpers/command-boxes/netscaler-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/netscaler/flipper-ns1-v13.1.conf'), 'utf8');

const boxes: NsBox[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Omit<NsBoxOptions, 'config'>): Promise<NsBox> {
  const b = await startNsBox({ config: published, ...o });
  boxes.push(b);
  return b;
}

/** The lines a line diff removes and adds, in order. */
function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

/** The box's config imported into a workspace, then: server 1.2.3.4 removed, 1.2.3.5's weight 1 -> 5. */
async function workspaceFor(b: NsBox, dir: string): Promise<{ file: string; workspace: Workspace; appliance: Appliance; opts: Record<string, unknown> }> {
  const running = join(dir, 'ns.conf');
  writeFileSync(running, b.running());
  const out = join(dir, 'site.yaml');
  const r = await runCli(['import', running, '--driver', 'netscaler', '--out', out, '--appliance', 'ns1']);
  expect(r.stderr).toMatch(/lbdesk: wrote .*: 2 servers, 1 groups, 1 services; appliance ns1/);
  expect(r.code).toBe(0);
  const text = readFileSync(out, 'utf8')
    .replace('  - name: 1.2.3.4\n    address: 1.2.3.4\n', '')
    .replace('        weight: 1\n      - server: 1.2.3.4\n        port: 80\n        weight: 1\n', '        weight: 5\n')
    .replace(/host: ns1/, `host: ${b.host}\n    port: ${b.port}\n    user: nsroot\n    auth: key\n    keyFile: ${b.keyFile}\n    cli:\n      timeout: 5s`);
  writeFileSync(out, text);
  const workspace = workspaceSchema.parse(parse(text));
  const ssh = sshFor(b, 'ns1');
  return { file: out, workspace, appliance: workspace.appliances[0]!, opts: { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-ns-data-')) } };
}

describe('driver netscaler against the NetScaler test box', () => {
  it('previews exactly the change and its inverse, pushes it, saves, and the box then differs only by it', async () => {
    const b = await box({ host: '127.0.19.50', pageLines: 20 });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-ns-'));
    const { file, workspace, appliance, opts } = await workspaceFor(b, dir);

    const onto = join(dir, 'ns.conf');
    const preview = await runCli(['render', file, '--appliance', 'ns1', '--onto', onto, '--commands']);
    expect(preview.stdout).toBe(['set serviceGroup app1_http_sg 1.2.3.5 80 -weight 5', 'unbind serviceGroup app1_http_sg 1.2.3.4 80', 'rm server 1.2.3.4', ''].join('\n'));
    expect(preview.code).toBe(0);
    const undo = await runCli(['render', file, '--appliance', 'ns1', '--onto', onto, '--commands', '--inverse']);
    expect(undo.stdout).toBe(['add server 1.2.3.4 1.2.3.4', 'bind serviceGroup app1_http_sg 1.2.3.4 80', 'set serviceGroup app1_http_sg 1.2.3.5 80 -weight 1', ''].join('\n'));
    const rendered = await runCli(['render', file, '--appliance', 'ns1', '--onto', onto]);
    expect(changes(published, rendered.stdout)).toEqual({
      removed: ['add server 1.2.3.4 1.2.3.4', 'bind serviceGroup app1_http_sg 1.2.3.5 80', 'bind serviceGroup app1_http_sg 1.2.3.4 80'],
      added: ['bind serviceGroup app1_http_sg 1.2.3.5 80 -weight 5'],
    });

    const link = openAppliance(workspace, appliance, file);
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('3 changes in 3 commands, then saved');
    expect(b.received.slice(0, 2)).toEqual(['set cli mode -page OFF', 'show ns runningConfig']);
    expect(b.received.slice(-4)).toEqual(['set serviceGroup app1_http_sg 1.2.3.5 80 -weight 5', 'unbind serviceGroup app1_http_sg 1.2.3.4 80', 'rm server 1.2.3.4', 'save ns config']);
    expect(changes(published, b.running())).toEqual(changes(published, rendered.stdout));
    expect(b.running()).toBe(rendered.stdout);
    expect(b.saved()).toBe(b.running());

    const again = await link.push('', opts);
    expect(again.outcome).toBe('unchanged');
    expect((await link.diff(opts)).changed).toBe(false);
  });

  it('a refused command: the inverse of what was sent goes back, nothing saved, the box byte for byte as before', async () => {
    const b = await box({ host: '127.0.19.51', failOn: /^rm server 1\.2\.3\.4$/ });
    const { workspace, appliance, file, opts } = await workspaceFor(b, mkdtempSync(join(tmpdir(), 'lbdesk-ns-')));
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/rejected line 3 \(config\) "rm server 1\.2\.3\.4": ERROR: rm server 1\.2\.3\.4: the box refuses this \(test\); the inverse \(2 commands\) was sent and accepted, nothing saved/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.received.slice(-2)).toEqual(['bind serviceGroup app1_http_sg 1.2.3.4 80', 'set serviceGroup app1_http_sg 1.2.3.5 80 -weight 1']);
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
    expect(b.received).not.toContain('save ns config');
  });

  it('a connection cut mid-apply: the inverse goes back over a new session', async () => {
    const b = await box({ host: '127.0.19.52', cutAfter: /^unbind serviceGroup / });
    const { workspace, appliance, file, opts } = await workspaceFor(b, mkdtempSync(join(tmpdir(), 'lbdesk-ns-')));
    const report = await openAppliance(workspace, appliance, file).push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/was cut off at line 2 \(config\) "unbind serviceGroup app1_http_sg 1\.2\.3\.4 80".*the inverse \(2 commands\) was sent and accepted/);
    expect(report.outcome).toBe('rolled-back');
    expect(b.running()).toBe(published);
    expect(b.saved()).toBe(published);
  });

  it('the lbdesk command: render --onto of the unchanged import prints the file\'s bytes and no commands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-ns-'));
    const conf = join(dir, 'ns.conf');
    writeFileSync(conf, published);
    const plain = join(dir, 'plain.yaml');
    expect((await runCli(['import', conf, '--driver', 'netscaler', '--out', plain, '--appliance', 'ns1'])).code).toBe(0);
    expect((await runCli(['render', plain, '--appliance', 'ns1', '--onto', conf])).stdout).toBe(published);
    expect((await runCli(['render', plain, '--appliance', 'ns1', '--onto', conf, '--commands'])).stdout).toBe('');
  });

  it('the lbdesk command: push prints what it did, diff then finds nothing to change', async () => {
    const b = await box({ host: '127.0.19.56' });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-ns-'));
    const { file, opts } = await workspaceFor(b, dir);
    const ssh = ['--known-hosts', opts.knownHostsFile as string, '--ssh-config', opts.sshConfigFile as string];
    const env = { LBDESK_DATA_DIR: opts.dataDir as string };
    const push = await runCli(['push', file, '--appliance', 'ns1', ...ssh], { env });
    expect(push.stdout).toBe('ns1: applied: 3 changes in 3 commands, then saved\n');
    expect(push.code).toBe(0);
    expect((await runCli(['diff', file, '--appliance', 'ns1', ...ssh], { env })).code).toBe(0);
  });

  it('import WS --appliance: the box\'s running config pulled over SSH (show ns runningConfig) into an existing workspace', async () => {
    const b = await box({ host: '127.0.19.54' });
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-ns-'));
    const file = join(dir, 'site.yaml');
    writeFileSync(file, `# the site\nlbdesk: 1\nname: site\nappliances:\n  - name: ns1\n    host: ${b.host}\n    port: ${b.port}\n    user: nsroot\n    auth: key\n    keyFile: ${b.keyFile}\n    driver: netscaler\n`);
    const ssh = sshFor(b, 'ns1').options;
    const r = await runCli(['import', file, '--appliance', 'ns1', '--known-hosts', ssh.knownHostsFile!, '--ssh-config', ssh.sshConfigFile!], { env: { LBDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'lbdesk-ns-data-')) } });
    expect(r.stderr).toMatch(/ns1:running-config:\d+: server 1\.2\.3\.4: imported: /);
    expect(r.code).toBe(0);
    expect(b.received).toContain('show ns runningConfig');
    const w = workspaceSchema.parse(parse(readFileSync(file, 'utf8')));
    expect(w.servers.map((x) => x.name)).toEqual(['1.2.3.4', '1.2.3.5']);
    expect(w.services.map((x) => x.name)).toEqual(['https_offload_vs']);
    expect(w.appliances[0]!.manage).toBe('sections');
  });

  it('refuses what a NetScaler refuses, and pages the running config until paging is off', async () => {
    const b = await box({ host: '127.0.19.53' });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: NS_PROMPT }, timeoutMs: 5000 });
    expect((await s.run('rm server 1.2.3.4')).error).toMatch(/^ERROR: Cannot remove server 1\.2\.3\.4: it is bound to service group app1_http_sg/);
    expect((await s.run('bind serviceGroup app1_http_sg nosuch 80')).error).toMatch(/^ERROR: No such resource \[serverName, nosuch\]/);
    expect((await s.run('bind serviceGroup app1_http_sg 1.2.3.4 80')).error).toMatch(/^ERROR: Resource already exists/);
    expect((await s.run('add server 1.2.3.5 1.2.3.5')).error).toMatch(/^ERROR: Resource already exists/);
    expect((await s.run('bind serviceGroup app1_http_sg 192.0.2.77 8080')).error).toBeUndefined();
    expect(b.running()).toContain('add server 1.2.3.5 1.2.3.5\nadd server 192.0.2.77 192.0.2.77\n');
    expect((await s.run('unbind serviceGroup app1_http_sg 192.0.2.77 8080')).error).toBeUndefined();
    expect((await s.run('rm server 192.0.2.77')).error).toBeUndefined();
    const paged = await s.run('show ns runningConfig');
    expect(paged.error).toBeUndefined();
    expect(paged.output).toContain('add appfw gRpcWebJSONContentType "^application/grpc-web+json$" -isRegex REGEX');
    expect(b.running()).toBe(published);
    s.close();
    conn.close();
  });
});
