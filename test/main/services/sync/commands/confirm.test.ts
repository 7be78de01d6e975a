// Commit-confirmed on vendor boxes without a rollback timer of their own (ADX, A10, NetScaler, BIG-IP): push
// --confirm-within applies the commands without saving; confirm saves; at the deadline the
// pushing process sends the precomputed inverse; a box it cannot reach then is said to still
// run the change unsaved. Against the SSH test boxes on loopback.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workspaceSchema } from '../../../../../shared/model/schema';
import { openAppliance, type ApplianceLink } from '../../../../../main/services/sync/appliance';
import { listHistory } from '../../../../../main/services/sync/history';
import { BoxSession, pendingWatches, UNSENT_STATE } from '../../../../../main/services/sync/commands';
import { readPending } from '../../../../../main/services/sync/commands/confirm';
import { cliPatterns } from '../../../../../main/services/drivers/box-patterns';
import { parseAdx } from '../../../../../main/services/drivers/adx/parse';
import { importAdx } from '../../../../../main/services/drivers/adx/import';
import { importF5 } from '../../../../../main/services/drivers/f5/import';
import { importA10 } from '../../../../../main/services/drivers/a10/import';
import { importNs } from '../../../../../main/services/drivers/netscaler/import';
import { runCli } from '../../../../helpers/cli';
import { connectTo, sshFor } from '../../../../helpers/command-boxes/connect';
import { startAdxBox, type AdxBox } from '../../../../helpers/command-boxes/adx-box';
import { startF5Box, type F5Box } from '../../../../helpers/command-boxes/f5-box';
import { startA10Box, type A10Box } from '../../../../helpers/command-boxes/a10-box';
import { startNsBox, type NsBox } from '../../../../helpers/command-boxes/netscaler-box';

const ADX = readFileSync(resolve(__dirname, '../../../../fixtures/import/adx/brocade-vtm-translator.cfg'), 'utf8');
const F5 = readFileSync(resolve(__dirname, '../../../../fixtures/import/f5/corkscrew-devcloud01.conf'), 'utf8');
const A10 = readFileSync(resolve(__dirname, '../../../../fixtures/import/a10/batfish-virtual-server-convert.cfg'), 'utf8');
const NS = readFileSync(resolve(__dirname, '../../../../fixtures/import/netscaler/flipper-ns1-v13.1.conf'), 'utf8');
const adx = parseAdx(ADX);
const addr = (kind: 'reals' | 'virtuals', name: string) => adx[kind].find((o) => o.name === name)!.address;

type Box = AdxBox | F5Box | A10Box | NsBox;
const boxes: Box[] = [];
afterEach(async () => { for (const b of boxes.splice(0)) await b.stop(); });

interface Setup { link: ApplianceLink; file: string; opts: { dataDir: string; knownHostsFile?: string; sshConfigFile?: string } & Record<string, unknown> }

type Imported = ReturnType<typeof importAdx>['workspace'];

function linkFor(doc: Imported, b: Box, name: string, driver: 'adx' | 'f5' | 'a10' | 'netscaler'): Setup {
  const appliances = [{ name, driver, manage: 'sections', host: b.host, port: b.port, user: 'admin', auth: 'key', keyFile: b.keyFile, cli: { timeout: '5s' } }];
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-vcc-'));
  const file = join(dir, 'site.yaml');
  const text = stringify({ ...doc, lbdesk: 1, name: 'site', appliances });
  writeFileSync(file, text);
  const workspace = workspaceSchema.parse({ ...doc, lbdesk: 1, name: 'site', appliances });
  return { link: openAppliance(workspace, workspace.appliances[0]!, file), file, opts: { ...sshFor(b, name).options, dataDir: mkdtempSync(join(tmpdir(), 'lbdesk-vcc-data-')) } };
}

/** The ADX site as in adx.test.ts (rs2 and rs3 bound on vi1, rs2 at weight 2), imported; then rs3 removed and rs2's weight 2 -> 5. */
async function adxSite(host: string): Promise<{ b: AdxBox; original: string } & Setup> {
  const b = await startAdxBox({ host, config: ADX });
  boxes.push(b);
  const conn = await connectTo(b);
  const s = await BoxSession.open(conn.client, { patterns: cliPatterns(undefined), timeoutMs: 5000 });
  for (const c of ['enable', 'configure terminal', `server virtual vi1 ${addr('virtuals', 'vi1')}`, 'port http', 'bind http rs2 http rs3 http', 'exit',
    `server real rs2 ${addr('reals', 'rs2')}`, 'weight 2 0', 'end', 'write memory']) expect((await s.run(c)).error, c).toBeUndefined();
  s.close();
  conn.close();
  const doc = importAdx(b.show(), 'running.cfg').workspace;
  doc.servers = doc.servers.filter((x) => x.name !== 'rs3');
  for (const g of doc.groups) {
    g.members = (g.members ?? []).filter((m) => m.server !== 'rs3');
    for (const m of g.members) if (m.server === 'rs2' && m.weight === 2) m.weight = 5;
  }
  return { b, original: b.running(), ...linkFor(doc, b, 'adx1', 'adx') };
}

/** As in a10.test.ts: the published ACOS config imported, then SERVER3 removed and SERVER1's weight set to 5. */
async function a10Site(host: string): Promise<{ b: A10Box; original: string } & Setup> {
  const b = await startA10Box({ host, config: A10 });
  boxes.push(b);
  const doc = importA10(b.show(), 'running.cfg').workspace;
  dropAndWeigh(doc, 'SERVER3', 'SERVER1');
  return { b, original: b.running(), ...linkFor(doc, b, 'thunder1', 'a10') };
}

/** As in netscaler.test.ts: the published ns.conf imported, then server 1.2.3.4 removed and 1.2.3.5's weight 1 -> 5. */
async function nsSite(host: string): Promise<{ b: NsBox; original: string } & Setup> {
  const b = await startNsBox({ host, config: NS });
  boxes.push(b);
  const doc = importNs(b.running(), 'ns.conf').workspace;
  dropAndWeigh(doc, '1.2.3.4', '1.2.3.5');
  return { b, original: b.running(), ...linkFor(doc, b, 'ns1', 'netscaler') };
}

/** `gone` removed with its members; `heavier`'s members at weight 5. */
function dropAndWeigh(doc: Imported, gone: string, heavier: string): void {
  doc.servers = doc.servers.filter((x) => x.name !== gone);
  for (const g of doc.groups) {
    g.members = (g.members ?? []).filter((m) => m.server !== gone);
    for (const m of g.members) if (m.server === heavier) m.weight = 5;
  }
}

const watchOf = (appliance: string) => {
  const w = pendingWatches().find((x) => x.appliance === appliance);
  expect(w, `a watcher for ${appliance}`).toBeDefined();
  return w!.done;
};

describe('commit-confirmed on a command-driven vendor box', () => {
  it('confirmed in time: applied unsaved, then confirm saves it and the watcher stands down', async () => {
    const { b, original, link, opts } = await adxSite('127.0.19.60');
    expect(link.noConfirm).toBeUndefined();
    const report = await link.push('', { ...opts, confirmWithinMs: 20_000 });
    expect(report.outcome).toBe('applied');
    expect(report.reason).toMatch(/^3 changes in 7 commands, NOT saved: confirm before .* \(lbdesk confirm\).*if lbdesk is closed before then, or the box cannot be reached then, nothing is sent and the change stays running unsaved \(a reload or reboot of the box reverts it\)$/);
    expect(report.pending?.deadline).toBeGreaterThan(Date.now());
    const watch = watchOf('adx1');
    expect(b.running()).not.toBe(original);
    expect(b.saved()).toBe(original);
    expect(b.received.filter((c) => c === 'write memory')).toHaveLength(1);   // the engineer's

    // Another push is refused while this one waits.
    await expect(link.push('', opts)).rejects.toThrow(/a commit-confirmed push is pending until .*: run lbdesk confirm/);

    const started = Date.now();
    const c = await link.confirm(opts);
    expect(c.outcome).toBe('confirmed');
    expect(c.reason).toBe('the pushed change is saved (write memory)');
    expect(b.saved()).toBe(b.running());
    expect(b.received.filter((x) => x === 'write memory')).toHaveLength(2);
    expect(await watch).toEqual({ outcome: 'confirmed' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const h = (await listHistory(opts.dataDir, 'adx1')).filter((e) => e.kind === 'push');
    expect(h.at(-1)?.confirm).toBe('confirmed');
    expect((await link.confirm(opts)).outcome).toBe('none');
  });

  it('not confirmed: at the deadline the inverse goes back, the running config is the one before, nothing saved', async () => {
    const { b, original, link, opts } = await adxSite('127.0.19.61');
    const report = await link.push('', { ...opts, confirmWithinMs: 1500 });
    expect(report.outcome).toBe('applied');
    const changed = b.running();
    expect(changed).not.toBe(original);
    const r = await watchOf('adx1');
    expect(r.outcome).toBe('rolled-back');
    expect(b.running()).toBe(original);
    expect(b.saved()).toBe(original);
    expect(b.received.filter((c) => c === 'write memory')).toHaveLength(1);
    const h = (await listHistory(opts.dataDir, 'adx1')).filter((e) => e.kind === 'push');
    expect(h.at(-1)).toMatchObject({ confirm: 'rolled-back', outcome: 'rolled-back' });
    expect(await readPending(opts.dataDir, 'adx1', link.where)).toBeUndefined();
    // Too late for confirm: nothing is pending, nothing saved.
    expect((await link.confirm(opts)).outcome).toBe('none');
    expect(b.saved()).toBe(original);
  });

  it('the box unreachable at the deadline: nothing sent, and the report says the box runs the change unsaved', async () => {
    const { b, original, link, opts } = await adxSite('127.0.19.62');
    await link.push('', { ...opts, confirmWithinMs: 1500 });
    const changed = b.running();
    const watch = watchOf('adx1');
    await b.stop();
    const r = await watch;
    expect(r.outcome).toBe('unsent');
    if (r.outcome !== 'unsent') return;
    expect(r.reason).toMatch(/^not confirmed in time, and the inverse could not be sent \(.*\): the box still runs the pushed change, NOT saved: its saved config is the one before the push, so a reload or reboot of the box reverts it/);
    expect(r.reason.endsWith(UNSENT_STATE)).toBe(true);
    expect(b.running()).toBe(changed);
    expect(b.saved()).toBe(original);
    // The marker stays, so a later push is refused with what the box holds, and confirm can still save.
    expect((await readPending(opts.dataDir, 'adx1', link.where))?.unsent).toBe(r.reason);
    await expect(link.push('', opts)).rejects.toThrow(/was not confirmed and its inverse was not sent/);
  });

  it('F5: the inverse goes back in one tmsh transaction; tmsh save sys config is never sent', async () => {
    const b = await startF5Box({ host: '127.0.21.60', config: F5 });
    boxes.push(b);
    const original = b.running();
    const doc = importF5(original, 'running.conf').workspace;
    doc.servers = doc.servers.filter((s) => s.name !== 'app2_Node2');
    const g = doc.groups.find((x) => x.name === 'app2_t80_pool')!;
    g.members = (g.members ?? []).filter((m) => m.server !== 'app2_Node2');
    g.members[0]!.weight = 5;
    const { link, opts } = linkFor(doc, b, 'bigip1', 'f5');
    const report = await link.push('', { ...opts, confirmWithinMs: 1500 });
    expect(report.outcome).toBe('applied');
    expect(b.running()).not.toBe(original);
    const r = await watchOf('bigip1');
    expect(r.outcome).toBe('rolled-back');
    expect(b.running()).toBe(original);
    expect(b.saved()).toBe(original);
    expect(b.received.filter((c) => c === 'create cli transaction')).toHaveLength(2);
    expect(b.received).not.toContain('save sys config');
  });

  // The NetScaler box lists a re-added server after the others (docs/vendor-cli.md): the published
  // ns.conf adds 1.2.3.4 before 1.2.3.5, so its rollback differs from the original by that order only.
  const nsBack = (o: string) => {
    const [a, b] = ['add server 1.2.3.4 1.2.3.4\n', 'add server 1.2.3.5 1.2.3.5\n'];
    expect(o).toContain(a + b);
    return o.replace(a + b, b + a);
  };
  for (const [dialect, site, name, save, changes, back] of [
    ['A10', a10Site, 'thunder1', 'write memory', '3 changes in 7 commands', (o: string) => o],
    ['NetScaler', nsSite, 'ns1', 'save ns config', '3 changes in 3 commands', nsBack],
  ] as const) {
    it(`${dialect}: confirmed in time: applied unsaved, then confirm saves it (${save} only then)`, async () => {
      const { b, original, link, opts } = await site(dialect === 'A10' ? '127.0.41.80' : '127.0.41.82');
      expect(link.noConfirm).toBeUndefined();
      const report = await link.push('', { ...opts, confirmWithinMs: 20_000 });
      expect(report.outcome).toBe('applied');
      expect(report.reason).toMatch(new RegExp(`^${changes}, NOT saved: confirm before .* \\(lbdesk confirm\\)`));
      const watch = watchOf(name);
      expect(b.running()).not.toBe(original);
      expect(b.saved()).toBe(original);
      expect(b.received).not.toContain(save);
      await expect(link.push('', opts)).rejects.toThrow(/a commit-confirmed push is pending until .*: run lbdesk confirm/);

      const c = await link.confirm(opts);
      expect(c.outcome).toBe('confirmed');
      expect(c.reason).toBe(`the pushed change is saved (${save})`);
      expect(b.saved()).toBe(b.running());
      expect(b.received.filter((x) => x === save)).toHaveLength(1);
      expect(await watch).toEqual({ outcome: 'confirmed' });
      expect((await listHistory(opts.dataDir, name)).filter((e) => e.kind === 'push').at(-1)?.confirm).toBe('confirmed');
      expect((await link.confirm(opts)).outcome).toBe('none');
    });

    it(`${dialect}: not confirmed: at the deadline the inverse goes back, the running config is the one before${dialect === 'NetScaler' ? ' but for where the box lists a re-added server' : ''}, nothing saved`, async () => {
      const { b, original, link, opts } = await site(dialect === 'A10' ? '127.0.41.81' : '127.0.41.83');
      const report = await link.push('', { ...opts, confirmWithinMs: 1500 });
      expect(report.outcome).toBe('applied');
      expect(b.running()).not.toBe(original);
      const r = await watchOf(name);
      expect(r.outcome).toBe('rolled-back');
      expect(b.running()).toBe(back(original));
      expect(b.saved()).toBe(original);
      expect(b.received).not.toContain(save);
      expect((await listHistory(opts.dataDir, name)).filter((e) => e.kind === 'push').at(-1)).toMatchObject({ confirm: 'rolled-back', outcome: 'rolled-back' });
      expect(await readPending(opts.dataDir, name, link.where)).toBeUndefined();
      expect((await link.confirm(opts)).outcome).toBe('none');
      expect(b.saved()).toBe(original);
    });
  }

  it('the lbdesk commands: push --confirm-within waits; lbdesk confirm from another process saves, and the push then exits 0', async () => {
    const { b, original, file, opts } = await adxSite('127.0.19.63');
    const ssh = ['--known-hosts', opts.knownHostsFile!, '--ssh-config', opts.sshConfigFile!];
    const env = { LBDESK_DATA_DIR: opts.dataDir };
    const push = runCli(['push', file, '--appliance', 'adx1', '--confirm-within', '3m', ...ssh], { env, timeoutMs: 200_000 });
    let ended: Awaited<typeof push> | undefined;
    void push.then((r) => { ended = r; });
    await vi.waitFor(() => expect(ended !== undefined || b.running() !== original).toBe(true), { timeout: 150_000, interval: 100 });
    expect(ended, 'the push waits for the confirm').toBeUndefined();
    // Applied: wait for the marker, then confirm from a second process.
    await vi.waitFor(async () => expect(await readPending(opts.dataDir, 'adx1', 'running-config')).toBeDefined(), { timeout: 30_000, interval: 100 });
    expect(b.saved()).toBe(original);
    const c = await runCli(['confirm', file, '--appliance', 'adx1', ...ssh], { env });
    expect(c.stdout).toBe('adx1: confirmed: the pushed change is saved (write memory)\n');
    expect(c.code).toBe(0);
    const p = await push;
    expect(p.stdout).toMatch(/^adx1: applied: 3 changes in 7 commands, NOT saved: confirm before .*\nadx1: confirm with: lbdesk confirm .* --appliance adx1\nadx1: confirmed: saved on the box\n$/);
    expect(p.stderr).toContain('lbdesk: waiting for lbdesk confirm');
    expect(p.code).toBe(0);
    expect(b.saved()).toBe(b.running());
  }, 240_000);
});
