// driver a10 health monitors and virtual-server removal against the A10 test box over loopback
// SSH: a published ACOS config imported, the group's check created as a monitor, changed, taken
// away; a whole service removed. Each: the plan's commands and inverse, the push, the box's
// running config diffed against the one before (only the change), and a rollback restoring it.
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
import { A10_PROMPT } from '../../../../../main/services/drivers/a10';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startA10Box, type A10Box, type A10BoxOptions } from '../../../../helpers/command-boxes/a10-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/a10/batfish-virtual-server-convert.cfg'), 'utf8');

const boxes: A10Box[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

async function box(o: Partial<A10BoxOptions> & { host: string }): Promise<A10Box> {
  const b = await startA10Box({ config: published, ...o });
  boxes.push(b);
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

type Doc = Record<string, unknown> & { servers: { name: string }[]; groups: Record<string, unknown>[]; services: { name: string }[]; appliances: Record<string, unknown>[] };

/** The box's running config imported by the CLI, edited by `edit`, and pointed at the box. */
async function site(b: A10Box, edit: (d: Doc) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10m-'));
  const running = join(dir, 'running.cfg');
  writeFileSync(running, b.show());
  const file = join(dir, 'site.yaml');
  const r = await runCli(['import', running, '--driver', 'a10', '--out', file, '--appliance', 'thunder1']);
  expect(r.code).toBe(0);
  const doc = parse(readFileSync(file, 'utf8')) as Doc;
  edit(doc);
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(file, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const ssh = sshFor(b, 'thunder1');
  const opts = { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-a10m-data-')) };
  const cli = async (...extra: string[]) => (await runCli(['render', file, '--appliance', 'thunder1', '--onto', running, ...extra])).stdout;
  return { cli, link: openAppliance(workspace, workspace.appliances[0]!, file), opts };
}

const httpCheck = (interval: string) => (d: Doc) => {
  Object.assign(d.groups[0]!, { healthCheck: { type: 'http', http: { path: '/health' } }, healthTimers: { interval, failAfter: 2 } });
};
const CREATE = ['health monitor SG1-hm', 'method http port 80 url GET /health', 'interval 10', 'retry 2', 'exit', 'slb service-group SG1 tcp', 'health-check SG1-hm', 'exit'];
const MONITOR = ['health monitor SG1-hm', '  retry 2', '  interval 10', '  method http port 80 url GET /health', '!'];

describe('driver a10 health monitors against the A10 test box', () => {
  it('creates and binds a monitor for a check the box lacks; the box differs only by it; a refused bind rolls it all back', async () => {
    const b = await box({ host: '127.0.41.60' });
    const { cli, link, opts } = await site(b, httpCheck('10s'));
    expect(await cli('--commands')).toBe(`${CREATE.join('\n')}\n`);
    expect(await cli('--commands', '--inverse')).toBe('slb service-group SG1 tcp\nno health-check SG1-hm\nexit\nno health monitor SG1-hm\n');
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('2 changes in 8 commands, then saved');
    expect(changes(published, b.running())).toEqual({ removed: [], added: [...MONITOR, '  health-check SG1-hm'] });
    // render --onto printed what the box now lists (its byte-count header line aside)
    expect(b.running()).toBe((await cli()).split('\n').slice(5).join('\n'));
    expect((await link.push('', opts)).outcome).toBe('unchanged');

    const refused = await box({ host: '127.0.41.61', failOn: /^health-check SG1-hm$/ });
    const r = await site(refused, httpCheck('10s'));
    const back = await r.link.push('', r.opts) as CommandPushReport;
    expect(back.outcome).toBe('rolled-back');
    expect(refused.received.slice(-3)).toEqual(['exit', 'no health monitor SG1-hm', 'end']);
    expect(refused.running()).toBe(published);
  });

  it('changes only the line of an owned monitor that differs; a cut mid-apply puts it back', async () => {
    const created = published.replace('!\n!\n! Enabled here', `!\n!\n${MONITOR.join('\n')}\n! Enabled here`).replace('slb service-group SG1 tcp\n', 'slb service-group SG1 tcp\n  health-check SG1-hm\n');
    const b = await box({ host: '127.0.41.62', config: created });
    const { cli, link, opts } = await site(b, httpCheck('5s'));
    expect(await cli('--commands')).toBe('health monitor SG1-hm\ninterval 5\nexit\n');
    expect(await cli('--commands', '--inverse')).toBe('health monitor SG1-hm\ninterval 10\nexit\n');
    await link.push('', opts);
    expect(changes(created, b.running())).toEqual({ removed: ['  interval 10'], added: ['  interval 5'] });

    const cut = await box({ host: '127.0.41.63', config: created, cutAfter: /^interval 5$/ });
    const c = await site(cut, httpCheck('5s'));
    const report = await c.link.push('', c.opts) as CommandPushReport;
    expect(report.outcome).toBe('rolled-back');
    expect(cut.running()).toBe(created);
  });

  it('a check back to auto: unbinds and removes the owned monitor, byte for byte the box before it; rolled back, it is re-created where ACOS lists it', async () => {
    const created = published.replace('!\n!\n! Enabled here', `!\n!\n${MONITOR.join('\n')}\n! Enabled here`).replace('slb service-group SG1 tcp\n', 'slb service-group SG1 tcp\n  health-check SG1-hm\n');
    const b = await box({ host: '127.0.41.64', config: created });
    const auto = (d: Doc) => { Object.assign(d.groups[0]!, { healthCheck: { type: 'auto' } }); delete d.groups[0]!.healthTimers; };
    const { cli, link, opts } = await site(b, auto);
    expect(await cli('--commands')).toBe('slb service-group SG1 tcp\nno health-check SG1-hm\nexit\nno health monitor SG1-hm\n');
    expect(await cli('--commands', '--inverse')).toBe(`${MONITOR.slice(0, 4).map((l) => l.trim()).join('\n')}\nexit\nslb service-group SG1 tcp\nhealth-check SG1-hm\nexit\n`);
    await link.push('', opts);
    expect(b.running()).toBe(published);

    const refused = await box({ host: '127.0.41.65', config: created, failOn: /^no health monitor SG1-hm$/ });
    const r = await site(refused, auto);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    expect(refused.running()).toBe(created);
  });

  it('refuses what ACOS refuses: removing a monitor a group still names, binding one that does not exist', async () => {
    const created = published.replace('!\n!\n! Enabled here', `!\n!\n${MONITOR.join('\n')}\n! Enabled here`).replace('slb service-group SG1 tcp\n', 'slb service-group SG1 tcp\n  health-check SG1-hm\n');
    const b = await box({ host: '127.0.41.66', config: created });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: A10_PROMPT }, timeoutMs: 5000 });
    await s.run('configure terminal');
    expect((await s.run('no health monitor SG1-hm')).error).toBe('Error: monitor SG1-hm is referenced by service-group or server SG1');
    expect((await s.run('slb service-group SG1 tcp')).prompt).toBe('vThunder(config-slb svc group)#');
    expect((await s.run('health-check NOSUCH')).error).toBe('Error: health monitor NOSUCH does not exist');
    expect((await s.run('health monitor HM2')).prompt).toBe('vThunder(config-health:monitor)#');
    expect((await s.run('method icmp')).error).toBeUndefined();
    await s.run('end');
    expect(b.running()).toContain('health monitor SG1-hm\n  retry 2\n  interval 10\n  method http port 80 url GET /health\n!\nhealth monitor HM2\n  method icmp\n!\n');
    s.close();
    conn.close();
  });
});

const block = (text: string, head: string) => { const i = text.indexOf(head); return text.slice(i, text.indexOf('!\n', i) + 2); };
const VS1 = block(published, 'slb virtual-server VS1 ');
const VS2 = block(published, 'slb virtual-server VS2 ');
const SG1 = block(published, 'slb service-group SG1 ');

describe('driver a10 removing whole services against the A10 test box', () => {
  it('a removed service: no slb virtual-server; a rollback re-creates it where ACOS puts a new one (after the last virtual server)', async () => {
    const b = await box({ host: '127.0.41.70' });
    const dropVs1 = (d: Doc) => { d.services = d.services.filter((x) => x.name !== 'VS1'); };
    const { cli, link, opts } = await site(b, dropVs1);
    expect(await cli('--commands')).toBe('no slb virtual-server VS1\n');
    expect(await cli('--commands', '--inverse')).toBe('slb virtual-server VS1 10.0.0.100\nport 81 tcp\nservice-group SG1\nsource-nat pool POOL1\nexit\nexit\n');
    await link.push('', opts);
    expect(changes(published, b.running())).toEqual({ removed: VS1.replace(/\n$/, '').split('\n'), added: [] });
    // Rolled back (the inverse sent by hand as a rollback sends it): the block comes back whole, listed after VS2.
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: A10_PROMPT }, timeoutMs: 5000 });
    await s.run('configure terminal');
    for (const c of (await cli('--commands', '--inverse')).trim().split('\n')) expect((await s.run(c)).error).toBeUndefined();
    s.close();
    conn.close();
    expect(b.running()).toBe(published.replace(VS1, '').replace(VS2, `${VS2}${VS1}`));
  });

  it('all services and their group removed: virtual servers, then the service group (servers the workspace keeps stay); a refused command rolls back in ACOS order', async () => {
    const dropAll = (d: Doc) => { d.services = []; d.groups = []; };
    const b = await box({ host: '127.0.41.71' });
    const { cli, link, opts } = await site(b, dropAll);
    expect(await cli('--commands')).toBe('no slb virtual-server VS1\nno slb virtual-server VS2\nno slb service-group SG1\n');
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('3 changes in 3 commands, then saved');
    expect(b.running()).toBe(published.replace(SG1, '').replace(VS1, '').replace(VS2, ''));
    expect(b.running()).toContain('slb server SERVER3 10.0.0.3\n');

    const refused = await box({ host: '127.0.41.72', failOn: /^no slb service-group SG1$/ });
    const r = await site(refused, dropAll);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    // VS2's inverse goes first (newest first), so the box lists VS2 above VS1 afterwards.
    expect(refused.running()).toBe(published.replace(VS1, '').replace(VS2, `${VS2}${VS1}`));
  });

  it('refuses removing a service group a virtual server still uses', async () => {
    const b = await box({ host: '127.0.41.73' });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: { ...cliPatterns(undefined), prompt: A10_PROMPT }, timeoutMs: 5000 });
    await s.run('configure terminal');
    expect((await s.run('no slb service-group SG1')).error).toBe('Error: service-group SG1 is referenced by virtual-server VS1, VS2');
    s.close();
    conn.close();
  });
});
