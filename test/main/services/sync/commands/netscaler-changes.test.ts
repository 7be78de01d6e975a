// driver netscaler lb monitors against the NetScaler test box over loopback SSH: a published
// ns.conf imported, its group's monitor changed in place (set lb monitor), replaced by one of
// another type (add, bind, unbind, rm), and taken away. Each: the plan's commands and inverse,
// the push, the running config diffed against the one before (only the change), and a rollback.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { diffLines } from 'diff';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSchema } from '../../../../../shared/model/schema';
import { openAppliance } from '../../../../../main/services/sync/appliance';
import { BoxSession } from '../../../../../main/services/sync/commands';
import { cliPatterns } from '../../../../../main/services/drivers/box-patterns';
import { NS_PROMPT } from '../../../../../main/services/drivers/netscaler';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startNsBox, type NsBox, type NsBoxOptions } from '../../../../helpers/command-boxes/netscaler-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/netscaler/flipper-ns1-v13.1.conf'), 'utf8');
const MON = 'add lb monitor app1_http_mon HTTP -respCode 200 -httpRequest "GET /index.html" -LRTM DISABLED';
const BIND = 'bind serviceGroup app1_http_sg -monitorName app1_http_mon';

const boxes: NsBox[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Omit<NsBoxOptions, 'config'>): Promise<NsBox> {
  const b = await startNsBox({ config: published, ...o });
  boxes.push(b);
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

/** The box's config imported, its group's check replaced by `check` (YAML lines under the group). */
async function site(b: NsBox, check: string) {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-nsm-'));
  const running = join(dir, 'ns.conf');
  writeFileSync(running, b.running());
  const file = join(dir, 'site.yaml');
  expect((await runCli(['import', running, '--driver', 'netscaler', '--out', file, '--appliance', 'ns1'])).code).toBe(0);
  const imported = readFileSync(file, 'utf8');
  expect(imported).toContain('    healthCheck:\n      type: http\n      http:\n        path: /index.html\n');
  const text = imported.replace('    healthCheck:\n      type: http\n      http:\n        path: /index.html\n', check)
    .replace(/host: ns1/, `host: ${b.host}\n    port: ${b.port}\n    user: nsroot\n    auth: key\n    keyFile: ${b.keyFile}\n    cli:\n      timeout: 5s`);
  writeFileSync(file, text);
  const workspace = workspaceSchema.parse(parse(text));
  const ssh = sshFor(b, 'ns1');
  const opts = { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-nsm-data-')) };
  const cli = async (...extra: string[]) => (await runCli(['render', file, '--appliance', 'ns1', '--onto', running, ...extra])).stdout;
  return { cli, link: openAppliance(workspace, workspace.appliances[0]!, file), opts };
}

const HTTP_HEALTH = '    healthCheck:\n      type: http\n      http:\n        path: /health\n    healthTimers:\n      interval: 10s\n      failAfter: 4\n';
const TCP = '    healthCheck:\n      type: tcp\n    healthTimers:\n      interval: 10s\n';
const AUTO = '    healthCheck:\n      type: auto\n';

describe('driver netscaler lb monitors against the NetScaler test box', () => {
  it('an owned monitor: set lb monitor with only the options that differ; the add line then reads so; cut mid-apply, the inverse sets and unsets them back', async () => {
    const b = await box({ host: '127.0.19.60' });
    const { cli, link, opts } = await site(b, HTTP_HEALTH);
    expect(await cli('--commands')).toBe('set lb monitor app1_http_mon HTTP -httpRequest "GET /health" -interval 10 -retries 4\n');
    expect(await cli('--commands', '--inverse')).toBe('set lb monitor app1_http_mon HTTP -httpRequest "GET /index.html"\nunset lb monitor app1_http_mon HTTP -interval -retries\n');
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toMatch(/^1 change in 1 commands?, then saved$/);
    expect(changes(published, b.running())).toEqual({ removed: [MON], added: ['add lb monitor app1_http_mon HTTP -respCode 200 -httpRequest "GET /health" -LRTM DISABLED -interval 10 -retries 4'] });
    expect(b.running()).toBe(await cli());
    expect((await link.push('', opts)).outcome).toBe('unchanged');

    const cut = await box({ host: '127.0.19.61', cutAfter: /^set lb monitor / });
    const c = await site(cut, HTTP_HEALTH);
    expect((await c.link.push('', c.opts)).outcome).toBe('rolled-back');
    expect(cut.running()).toBe(published);
  });

  it('another type: a new monitor is added and bound, the old one unbound and removed; a refused rm rolls back to the very bytes', async () => {
    const b = await box({ host: '127.0.19.62' });
    const { cli, link, opts } = await site(b, TCP);
    const SENT = ['add lb monitor app1_http_sg-mon TCP -interval 10', 'bind serviceGroup app1_http_sg -monitorName app1_http_sg-mon', 'unbind serviceGroup app1_http_sg -monitorName app1_http_mon', 'rm lb monitor app1_http_mon HTTP'];
    expect(await cli('--commands')).toBe(`${SENT.join('\n')}\n`);
    expect(await cli('--commands', '--inverse')).toBe(`${MON}\n${BIND}\nunbind serviceGroup app1_http_sg -monitorName app1_http_sg-mon\nrm lb monitor app1_http_sg-mon TCP\n`);
    await link.push('', opts);
    expect(b.received.slice(-5)).toEqual([...SENT, 'save ns config']);
    expect(changes(published, b.running())).toEqual({ removed: [MON, BIND], added: [SENT[0], SENT[1]] });

    const refused = await box({ host: '127.0.19.63', failOn: /^rm lb monitor app1_http_mon HTTP$/ });
    const r = await site(refused, TCP);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    expect(refused.running()).toBe(published);
  });

  it('a check back to auto: unbound and removed; a rollback re-adds it above the service groups (where the box lists a first monitor)', async () => {
    const b = await box({ host: '127.0.19.64' });
    const { cli, link, opts } = await site(b, AUTO);
    expect(await cli('--commands')).toBe('unbind serviceGroup app1_http_sg -monitorName app1_http_mon\nrm lb monitor app1_http_mon HTTP\n');
    await link.push('', opts);
    expect(changes(published, b.running())).toEqual({ removed: [MON, BIND], added: [] });

    const refused = await box({ host: '127.0.19.65', failOn: /^rm lb monitor / });
    const r = await site(refused, AUTO);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    // Only the unbind was taken: its inverse binds the monitor again, on the line it had.
    expect(refused.running()).toBe(published);
  });

  it('refuses what a NetScaler refuses: removing a bound monitor, binding an unknown one, adding one that exists', async () => {
    const b = await box({ host: '127.0.19.66' });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: NS_PROMPT }, timeoutMs: 5000 });
    expect((await s.run('rm lb monitor app1_http_mon HTTP')).error).toBe('ERROR: Monitor is bound');
    expect((await s.run('bind serviceGroup app1_http_sg -monitorName nosuch')).error).toBe('ERROR: No such resource [monitorName, nosuch]');
    expect((await s.run('add lb monitor app1_http_mon TCP')).error).toBe('ERROR: Resource already exists');
    expect((await s.run('unbind serviceGroup app1_http_sg -monitorName app1_http_mon')).error).toBeUndefined();
    expect((await s.run('rm lb monitor app1_http_mon HTTP')).error).toBeUndefined();
    expect(b.running()).not.toContain('app1_http_mon');
    // Re-added as the only monitor: the box lists it above the service groups.
    expect((await s.run(MON)).error).toBeUndefined();
    expect((await s.run(BIND)).error).toBeUndefined();
    expect(b.running()).toBe(published.replace(`${MON}\n`, '').replace('add ssl certKey app1_local -cert foo.crt -key foo.key\n', `add ssl certKey app1_local -cert foo.crt -key foo.key\n${MON}\n`));
    s.close();
    conn.close();
  });
});

/** What the site's engineer typed before lbdesk came: a second service on a group of its own, checked by a monitor of its own. */
const TYPED = ['add server web9 192.0.2.9', 'add lb monitor web_mon TCP -interval 10', 'add serviceGroup web_sg TCP', 'bind serviceGroup web_sg web9 8080 -weight 3', 'bind serviceGroup web_sg 1.2.3.5 8080',
  'bind serviceGroup web_sg -monitorName web_mon', 'add lb vserver web_vs TCP 192.0.2.80 8080', 'bind lb vserver web_vs web_sg'];

async function typedBox(o: Omit<NsBoxOptions, 'config'>): Promise<NsBox> {
  const b = await box(o);
  const conn = await connectTo(b);
  const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: NS_PROMPT }, timeoutMs: 5000 });
  for (const c of [...TYPED, 'save ns config']) expect((await s.run(c)).error, c).toBeUndefined();
  s.close();
  conn.close();
  return b;
}

/** The typed box imported, web_vs's service, its group and web9 removed from the workspace. */
async function dropped(b: NsBox) {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-nsv-'));
  const running = join(dir, 'ns.conf');
  writeFileSync(running, b.running());
  const file = join(dir, 'site.yaml');
  expect((await runCli(['import', running, '--driver', 'netscaler', '--out', file, '--appliance', 'ns1'])).code).toBe(0);
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { servers: { name: string }[]; services: { name: string }[]; groups: { name: string }[]; appliances: Record<string, unknown>[] };
  expect(doc.services.map((x) => x.name)).toEqual(['https_offload_vs', 'web_vs']);
  doc.services = doc.services.filter((x) => x.name !== 'web_vs');
  doc.groups = doc.groups.filter((x) => x.name !== 'web_sg');
  doc.servers = doc.servers.filter((x) => x.name !== 'web9');
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'nsroot', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(file, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const ssh = sshFor(b, 'ns1');
  const opts = { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-nsv-data-')) };
  const raw = (...extra: string[]) => runCli(['render', file, '--appliance', 'ns1', '--onto', running, ...extra]);
  return { raw, link: openAppliance(workspace, workspace.appliances[0]!, file), opts };
}

describe('driver netscaler removing a whole service against the NetScaler test box', () => {
  it('rm lb vserver, rm serviceGroup, rm server; the box then is the published config (plus the typed monitor, which stays); a refused rm server rolls back to the bytes before', async () => {
    const b = await typedBox({ host: '127.0.19.70' });
    const before = b.running();
    const { raw, link, opts } = await dropped(b);
    const SENT = ['rm lb vserver web_vs', 'rm serviceGroup web_sg', 'rm server web9'];
    const plan = await raw('--commands');
    expect(plan.stdout).toBe(`${SENT.join('\n')}\n`);
    // The published https_offload_vs is not touched: the workspace still has its service.
    expect(plan.stderr).not.toContain('https_offload_vs');
    expect((await raw('--commands', '--inverse')).stdout).toBe(['add server web9 192.0.2.9', 'add serviceGroup web_sg TCP', 'bind serviceGroup web_sg web9 8080 -weight 3',
      'bind serviceGroup web_sg 1.2.3.5 8080', 'bind serviceGroup web_sg -monitorName web_mon', 'add lb vserver web_vs TCP 192.0.2.80 8080', 'bind lb vserver web_vs web_sg', ''].join('\n'));
    await link.push('', opts);
    expect(b.received.slice(-4)).toEqual([...SENT, 'save ns config']);
    const d = changes(before, b.running());
    expect(d.added).toEqual([]);
    expect(d.removed.sort()).toEqual(TYPED.filter((l) => !l.startsWith('add lb monitor')).sort());
    // Only the typed monitor stays: a monitor of its own, which the push did not name.
    expect(b.running()).toBe(published.replace(`${MON}\n`, `${MON}\nadd lb monitor web_mon TCP -interval 10\n`));

    const refused = await typedBox({ host: '127.0.19.71', failOn: /^rm server web9$/ });
    const r = await dropped(refused);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    expect(refused.running()).toBe(before);
  });

  it('an lb vserver another line names (its ssl settings) is kept, with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-nsv-'));
    const conf = join(dir, 'ns.conf');
    writeFileSync(conf, published);
    const file = join(dir, 'site.yaml');
    expect((await runCli(['import', conf, '--driver', 'netscaler', '--out', file, '--appliance', 'ns1'])).code).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\nservices:\n[\s\S]*?\nappliances:/, '\nservices: []\nappliances:'));
    const r = await runCli(['render', file, '--appliance', 'ns1', '--onto', conf, '--commands']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('lb vserver https_offload_vs: no service of the workspace stands for it, but it is kept: line 12 names it ("set ssl vserver https_offload_vs -tls1 DISABLED -tls11 DISABLED -dtls1 DISABLED")');
  });
});
