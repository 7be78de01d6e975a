// driver f5 removing a whole service and changing a pool's check against the tmsh test box over
// loopback SSH: the published bigip.conf imported, then a service (with its group and servers)
// removed, or a group's check changed. Each: the plan's commands and inverse, the push, the box's
// running config diffed against the one before (only the change), and the inverse sent back in
// a transaction restoring it.
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
import { f5Driver } from '../../../../../main/services/drivers/f5';
import { importF5 } from '../../../../../main/services/drivers/f5/import';
import { planF5 } from '../../../../../main/services/drivers/f5/plan';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startF5Box, type F5Box } from '../../../../helpers/command-boxes/f5-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/f5/corkscrew-devcloud01.conf'), 'utf8');

const boxes: F5Box[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(host: string): Promise<F5Box> {
  const b = await startF5Box({ config: published, host, pageLines: 40 });
  boxes.push(b);
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

type Doc = Record<string, unknown> & { servers: { name: string }[]; groups: (Record<string, unknown> & { name: string })[]; services: { name: string }[]; appliances: Record<string, unknown>[] };

/** The box's running config imported by the CLI, edited by `edit`, and pointed at the box. */
async function site(b: F5Box, edit: (d: Doc) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5c-'));
  const running = join(dir, 'running.conf');
  writeFileSync(running, b.running());
  const file = join(dir, 'site.yaml');
  const r = await runCli(['import', running, '--driver', 'f5', '--out', file, '--appliance', 'bigip1']);
  expect(r.code).toBe(0);
  const doc = parse(readFileSync(file, 'utf8')) as Doc;
  edit(doc);
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(file, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const opts = { ...sshFor(b, 'bigip1').options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-f5c-data-')) };
  const cli = async (...extra: string[]) => (await runCli(['render', file, '--appliance', 'bigip1', '--onto', running, ...extra])).stdout;
  return { cli, link: openAppliance(workspace, workspace.appliances[0]!, file), opts, doc };
}

/** The inverse as a rollback sends it: in one transaction of its own. */
async function sendBack(b: F5Box, commands: string[]): Promise<void> {
  const conn = await connectTo(b);
  const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), ...f5Driver.commands!.patterns! } as ReturnType<typeof cliPatterns>, timeoutMs: 5000 });
  for (const c of ['create cli transaction', ...commands, 'submit cli transaction']) expect((await s.run(c)).error).toBeUndefined();
  s.close();
  conn.close();
}

/** The block of `head` in the published config, through its closing brace. */
const block = (head: string) => { const at = published.indexOf(`${head} {\n`); return published.slice(at, published.indexOf('\n}\n', at) + 3); };
const lines = (text: string) => text.replace(/\n$/, '').split('\n');

const dropApp3 = (withServers: boolean) => (d: Doc) => {
  d.services = d.services.filter((s) => s.name !== 'app3_t8443_vs');
  d.groups = d.groups.filter((g) => g.name !== 'app3_t8443_pool');
  if (withServers) d.servers = d.servers.filter((s) => !s.name.startsWith('app3_'));
};

describe('driver f5 removing a whole service against the tmsh test box', () => {
  it('delete ltm virtual, then its pool, then its nodes; the box lacks exactly those; the inverse puts them back (the virtual without its last-modified-time)', async () => {
    const b = await box('127.0.42.10');
    const { cli, link, opts } = await site(b, dropApp3(true));
    const COMMANDS = ['delete ltm virtual /Common/app3_t8443_vs', 'delete ltm pool /Common/app3_t8443_pool', 'delete ltm node /Common/app3_Node1', 'delete ltm node /Common/app3_Node2'];
    expect(await cli('--commands')).toBe(`${COMMANDS.join('\n')}\n`);
    const inverse = lines(await cli('--commands', '--inverse'));
    expect(inverse.slice(0, 3)).toEqual([
      'create ltm node /Common/app3_Node2 address 192.168.1.53',
      'create ltm node /Common/app3_Node1 address 192.168.1.52',
      'create ltm pool /Common/app3_t8443_pool load-balancing-mode least-connections-member members { /Common/app3_Node1:8443 { address 192.168.1.52 } /Common/app3_Node2:8443 { address 192.168.1.53 } } monitor /Common/app1_tcp_half_open_quick_monitor and /Common/http_head_f5 and /Common/http2_head_f5 and /Common/http and /Common/tcp_half_open',
    ]);
    expect(inverse[3]).toMatch(/^create ltm virtual \/Common\/app3_t8443_vs destination \/Common\/192\.168\.1\.51:8443 fallback-persistence \/Common\/app3_srcAddr_persist ip-protocol tcp mask 255\.255\.255\.255 persist \{ \/Common\/app3_cookie \{ default yes \} \} policies \{ \/Common\/app3_ltm_policy \{ \} \} pool \/Common\/app3_t8443_pool profiles \{ /);
    expect(inverse[3]).not.toContain('last-modified-time');
    expect(inverse).toHaveLength(4);

    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('4 changes in 4 commands, then saved');
    expect(b.received.slice(b.received.indexOf('create cli transaction'))).toEqual(['create cli transaction', ...COMMANDS, 'submit cli transaction', 'save sys config']);
    const virtual = block('ltm virtual /Common/app3_t8443_vs');
    const pool = block('ltm pool /Common/app3_t8443_pool');
    const nodes = block('ltm node /Common/app3_Node1') + block('ltm node /Common/app3_Node2');
    expect(changes(published, b.running())).toEqual({ removed: [...lines(nodes), ...lines(pool), ...lines(virtual)], added: [] });
    expect(b.running()).toBe(published.replace(virtual, '').replace(pool, '').replace(nodes, ''));
    expect((await link.push('', opts)).outcome).toBe('unchanged');

    await sendBack(b, inverse);
    // Each object back where it was; the box stamps a re-created virtual itself (volatile, ignored by diff).
    expect(b.running()).toBe(published.replace('    last-modified-time 2020-09-17:12:45:40\n', ''));
  });

  it('the service removed but its servers kept: the virtual and pool go, the nodes stay (in no pool)', async () => {
    const b = await box('127.0.42.11');
    const { cli } = await site(b, dropApp3(false));
    expect(await cli('--commands')).toBe('delete ltm virtual /Common/app3_t8443_vs\ndelete ltm pool /Common/app3_t8443_pool\n');
  });

  it('a service removed while the workspace keeps its group: only the virtual goes; with an include list nothing is removed', async () => {
    const b = await box('127.0.42.12');
    const { cli } = await site(b, (d) => { d.services = d.services.filter((s) => s.name !== 'app3_t8443_vs'); });
    expect(await cli('--commands')).toBe('delete ltm virtual /Common/app3_t8443_vs\n');
    const listed = await site(b, (d) => { d.services = d.services.filter((s) => s.name !== 'app3_t8443_vs'); d.appliances[0]!.include = ['app1_t443_vs', 'app2_t443_vs']; });
    expect(await listed.cli('--commands')).toBe('');
  });
});

describe('driver f5 changing a pool\'s check against the tmsh test box', () => {
  it('another check: modify ltm pool P monitor with the built-in; only that line differs; the inverse puts the old monitors back byte for byte', async () => {
    const b = await box('127.0.42.13');
    const { cli, link, opts } = await site(b, (d) => {
      Object.assign(d.groups.find((g) => g.name === 'app2_t80_pool')!, { healthCheck: { type: 'tcp' } });
      Object.assign(d.groups.find((g) => g.name === 'app1_t80_pool')!, { healthCheck: { type: 'none' } });
    });
    expect(await cli('--commands')).toBe('modify ltm pool /Common/app1_t80_pool monitor none\nmodify ltm pool /Common/app2_t80_pool monitor /Common/tcp\n');
    const inverse = lines(await cli('--commands', '--inverse'));
    expect(inverse).toEqual([
      'modify ltm pool /Common/app2_t80_pool monitor /Common/global_http_monitor and /Common/global_https_monitor',
      'modify ltm pool /Common/app1_t80_pool monitor /Common/http and /Common/tcp',
    ]);
    await link.push('', opts);
    expect(changes(published, b.running())).toEqual({
      removed: ['    monitor /Common/http and /Common/tcp', '    monitor /Common/global_http_monitor and /Common/global_https_monitor'],
      added: ['    monitor /Common/tcp'],
    });
    expect((await link.push('', opts)).outcome).toBe('unchanged');
    await sendBack(b, inverse);
    expect(b.running()).toBe(published);
  });

  it('the same check as the box\'s monitors read (a custom http monitor, http and tcp): nothing sent', async () => {
    const b = await box('127.0.42.14');
    const { cli } = await site(b, () => undefined);
    expect(await cli('--commands')).toBe('');
  });
});

describe('driver f5 removal offline: what another object names is kept', () => {
  const plan = (text: string, edit: (d: Doc) => void) => {
    const doc = structuredClone(importF5(text, 'bigip.conf').workspace) as unknown as Doc;
    edit(doc);
    const w = workspaceSchema.parse({ ...doc, appliances: [{ name: 'bigip1', host: '192.0.2.250', driver: 'f5', manage: 'sections' }] });
    return planF5(w, w.appliances[0]!, text);
  };

  it('a pool an iRule names stays (with a warning naming the line), and so do its nodes; the virtual goes', () => {
    const text = published.replace('when HTTP_REQUEST {\n', 'when HTTP_REQUEST {\n    pool /Common/app3_t8443_pool\n');
    const p = plan(text, dropApp3(true));
    expect(p.steps.flatMap((s) => s.commands)).toEqual(['delete ltm virtual /Common/app3_t8443_vs']);
    expect(p.warnings.map((x) => `${x.subject}: ${x.message}`)).toContainEqual(expect.stringMatching(/^ltm pool \/Common\/app3_t8443_pool: its virtual server is deleted, but it is kept: line \d+ names it \("pool \/Common\/app3_t8443_pool"\)$/));
  });

  it('a virtual an iRule names stays, with a warning; with manage: file nothing is removed', () => {
    const text = published.replace('when HTTP_REQUEST {\n', 'when HTTP_REQUEST {\n    virtual app3_t8443_vs\n');
    const p = plan(text, dropApp3(true));
    expect(p.steps).toEqual([]);
    expect(p.warnings.map((x) => x.subject)).toContain('ltm virtual /Common/app3_t8443_vs');
    const doc = structuredClone(importF5(published, 'bigip.conf').workspace) as unknown as Doc;
    dropApp3(false)(doc);
    const w = workspaceSchema.parse({ ...doc, appliances: [{ name: 'bigip1', host: '192.0.2.250', driver: 'f5' }] });
    expect(planF5(w, w.appliances[0]!, published).steps).toEqual([]);
  });
});
