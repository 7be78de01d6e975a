// driver adx removing a whole virtual server against the ADX test box over loopback SSH: on the
// published config, a virtual server the site's engineer typed (vi2: HTTP on rs2 and rs3); it is
// imported, its service and group removed from the workspace; the plan's commands and inverse,
// the push, the running config diffed against the one before, and a rollback (refused command,
// cut session) restoring it. The published vi1 binds rs1, which the config does not define:
// removing its service keeps it (a rollback could not bind rs1 again), said by a warning.
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
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startAdxBox, type AdxBox, type AdxBoxOptions } from '../../../../helpers/command-boxes/adx-box';

const published = readFileSync(resolve(__dirname, '../../../../fixtures/import/adx/brocade-vtm-translator.cfg'), 'utf8');
const TYPED = ['server virtual vi2 192.0.2.80', 'port http', 'bind http rs2 http rs3 http', 'exit'];

const boxes: AdxBox[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

/** The published config with vi2 typed on it by the site's engineer (saved). */
async function box(o: Omit<AdxBoxOptions, 'config'>): Promise<AdxBox> {
  const b = await startAdxBox({ config: published, ...o });
  boxes.push(b);
  const conn = await connectTo(b);
  const s = await BoxSession.open(conn.client, { patterns: cliPatterns(undefined), timeoutMs: 5000 });
  for (const c of ['enable', 'configure terminal', ...TYPED, 'end', 'write memory']) expect((await s.run(c)).error, c).toBeUndefined();
  s.close();
  conn.close();
  return b;
}

function changes(a: string, b: string): { removed: string[]; added: string[] } {
  const parts = diffLines(a, b);
  const lines = (p: { value: string }) => p.value.replace(/\n$/, '').split('\n');
  return { removed: parts.filter((p) => p.removed).flatMap(lines), added: parts.filter((p) => p.added).flatMap(lines) };
}

/** The box imported, then vi2's service and group removed from the workspace (the servers stay). */
async function site(b: AdxBox, drop = ['vi2']) {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adxv-'));
  const running = join(dir, 'running.cfg');
  writeFileSync(running, b.show());
  const file = join(dir, 'site.yaml');
  expect((await runCli(['import', running, '--driver', 'adx', '--out', file, '--appliance', 'adx1'])).code).toBe(0);
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { services: { name: string }[]; groups: { name: string }[]; appliances: Record<string, unknown>[] };
  expect(doc.services.map((x) => x.name)).toEqual(['vi1', 'vi2']);
  doc.services = doc.services.filter((x) => !drop.includes(x.name));
  doc.groups = doc.groups.filter((x) => !drop.includes(x.name));
  Object.assign(doc.appliances[0]!, { host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } });
  writeFileSync(file, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const ssh = sshFor(b, 'adx1');
  const opts = { ...ssh.options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-adxv-data-')) };
  const raw = (...extra: string[]) => runCli(['render', file, '--appliance', 'adx1', '--onto', running, ...extra]);
  const cli = async (...extra: string[]) => (await raw(...extra)).stdout;
  return { cli, raw, link: openAppliance(workspace, workspace.appliances[0]!, file), opts };
}

const SENT = ['server virtual vi2 192.0.2.80', 'no bind http rs2 http', 'no bind http rs3 http', 'exit', 'no server virtual vi2'];

describe('driver adx removing a virtual server against the ADX test box', () => {
  it('unbinds, then no server virtual; the box differs only by the block; the real servers the workspace keeps stay', async () => {
    const b = await box({ host: '127.0.42.60' });
    const before = b.running();
    const { cli, link, opts } = await site(b);
    expect(await cli('--commands')).toBe(`${SENT.join('\n')}\n`);
    expect(await cli('--commands', '--inverse')).toBe('server virtual vi2 192.0.2.80\nport http\nexit\nserver virtual vi2 192.0.2.80\nbind http rs2 http rs3 http\nexit\n');
    const report = await link.push('', opts) as CommandPushReport;
    expect(report.reason).toBe('2 changes in 5 commands, then saved');
    expect(b.received.slice(-7)).toEqual([...SENT, 'end', 'write memory']);
    expect(changes(before, b.running())).toEqual({ removed: ['server virtual vi2 192.0.2.80', ' port http', ' bind http rs2 http rs3 http', '!'], added: [] });
    expect(b.running()).toBe(published);
    expect(b.running()).toContain('server real rs3 ');
  });

  it('refused or cut: the inverse re-creates the block with every line, byte for byte (it was the last virtual server, where the box puts a new one)', async () => {
    const refused = await box({ host: '127.0.42.61', failOn: /^no server virtual vi2$/ });
    const before = refused.running();
    const r = await site(refused);
    expect((await r.link.push('', r.opts)).outcome).toBe('rolled-back');
    expect(refused.running()).toBe(before);

    const cut = await box({ host: '127.0.42.62', cutAfter: /^no server virtual vi2$/ });
    const c = await site(cut);
    expect((await c.link.push('', c.opts)).outcome).toBe('rolled-back');
    expect(cut.running()).toBe(before);
  });

  it('a virtual server binding a real server the config does not define is kept, with a warning', async () => {
    const b = await box({ host: '127.0.42.64' });
    const { raw } = await site(b, ['vi1']);
    const r = await raw('--commands');
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('virtual server vi1: no service of the workspace is on it, but it is kept: it binds rs1 ssl, which lbdesk did not import (a rollback could not bind it again)');
  });

  it('refuses removing a virtual server that still has binds', async () => {
    const b = await box({ host: '127.0.42.63' });
    const conn = await connectTo(b);
    const s = await BoxSession.open(conn.client, { patterns: cliPatterns(undefined), timeoutMs: 5000 });
    await s.run('enable');
    await s.run('configure terminal');
    const before = b.running();
    expect((await s.run('no server virtual vi2')).error).toBe('Error - virtual server vi2 has real servers bound; unbind them first');
    expect(b.running()).toBe(before);
    s.close();
    conn.close();
  });
});
