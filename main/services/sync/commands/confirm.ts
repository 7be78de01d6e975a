// Commit-confirmed on a command-driven vendor box, which has no rollback timer of its own (an ADX,
// A10, NetScaler or BIG-IP keeps running what it was sent and boots from what was saved). So a
// push --confirm-within applies the commands WITHOUT saving, leaves a marker in the data folder
// with the inverse (computed from the running config before the first command), and the lbdesk
// process that pushed (the waiting CLI, or the window's app) sends that inverse at the deadline.
// `confirm` saves instead. Whichever of the two renames the marker first wins: exactly one acts.
// If no lbdesk process is left at the deadline, or the box cannot be reached then, nothing is
// sent: the change stays in the running config, unsaved, and a reload/reboot of the box reverts
// it; `confirm` can still save it (the marker stays). Every report says so in those words.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfirmReport } from '../../../../shared/api/sync';
import type { CommandDriven } from '../../drivers/types';
import { connectSsh, type SshConnection, type SshOptions } from '../../ssh/connect';
import { listHistory, settleConfirm } from '../history';
import { BoxSession } from './box-session';
import { redact } from './redact';
import type { CliTarget } from './target';
import { sha256 } from '../../hash';

export interface BoxPending {
  appliance: string;
  /** `user@host:port` pushed to. */
  target: string;
  deadline: number;
  /** sha256 of the running config the push left (its history entry). */
  hash: string;
  /** Sent at the deadline unless confirmed, in this order. */
  inverse: string[];
  /** Set when the deadline passed and the inverse could not be sent (why). */
  unsent?: string;
}

/** What the box is left with when the inverse cannot be sent: the one wording, wherever shown. */
export const UNSENT_STATE = 'the box still runs the pushed change, NOT saved: its saved config is the one before the push, so a reload or reboot of the box reverts it; `lbdesk confirm` saves it, a push of the previous workspace undoes it';

export type WatchResult = { outcome: 'confirmed' } | { outcome: 'rolled-back'; at: number } | { outcome: 'unsent'; reason: string };

// Keyed by the workspace's appliance name: the same box whichever SSH route reaches it.
const file = (dir: string, appliance: string, where: string) =>
  join(dir, 'vendor-pending', `${sha256(`${appliance}\0${where}`).slice(0, 32)}.json`);

export async function readPending(dir: string, appliance: string, where: string): Promise<BoxPending | undefined> {
  try { return JSON.parse(await readFile(file(dir, appliance, where), 'utf8')) as BoxPending; } catch { return undefined; }
}

export async function writePending(dir: string, where: string, p: BoxPending): Promise<void> {
  const f = file(dir, p.appliance, where);
  await mkdir(join(dir, 'vendor-pending'), { recursive: true, mode: 0o700 });
  await writeFile(`${f}.${process.pid}.tmp`, `${JSON.stringify(p, null, 2)}\n`, { mode: 0o600 });
  await rename(`${f}.${process.pid}.tmp`, f);
}

/** Takes the marker for this process (atomic rename): undefined when someone else took it first. */
async function claim(dir: string, appliance: string, where: string, who: string): Promise<{ pending: BoxPending; drop: () => Promise<void>; putBack: (p: BoxPending) => Promise<void> } | undefined> {
  const f = file(dir, appliance, where);
  const mine = `${f}.${who}.${process.pid}.${Date.now()}`;
  try { await rename(f, mine); } catch { return undefined; }
  const pending = JSON.parse(await readFile(mine, 'utf8')) as BoxPending;
  return {
    pending,
    drop: () => rm(mine, { force: true }),
    putBack: async (p) => { await rm(mine, { force: true }); await writePending(dir, where, p); },
  };
}

async function openCli(cli: CliTarget, driver: CommandDriven, conn: SshConnection, configure: boolean): Promise<BoxSession> {
  const s = await BoxSession.open(conn.client, { patterns: cli.patterns, timeoutMs: cli.settings.timeout, label: conn.label });
  const must = async (c: string) => {
    const r = await s.run(c);
    if (r.error !== undefined) throw new Error(`"${c}" was refused: ${redact(r.error)}`);
  };
  if (driver.enable && />\s*$/.test(s.currentPrompt)) await must(driver.enable);
  for (const c of driver.prologue) if (configure || !/^conf/.test(c)) await must(c);
  return s;
}

/** `confirm`: the pushed change is saved on the box (write memory …) and the marker goes. */
export async function confirmCommands(cli: CliTarget, driver: CommandDriven, where: string, opts: SshOptions & { dataDir: string; connection?: SshConnection }): Promise<ConfirmReport> {
  const conn = opts.connection ?? await connectSsh(cli.endpoint, opts);
  try {
    const c = await claim(opts.dataDir, cli.appliance, where, 'confirm');
    if (!c) return { appliance: cli.appliance, outcome: 'none', reason: 'nothing is pending on this appliance (a push not confirmed in time has been undone by its inverse)' };
    const save = driver.save.filter((x) => !driver.leave.includes(x));
    const s = await openCli(cli, driver, conn, false);
    try {
      for (const x of save) {
        const r = await s.run(x);
        if (r.error !== undefined) throw new Error(`"${x}" was refused: ${redact(r.error)}; still pending`);
      }
    } catch (err) {
      await c.putBack(c.pending).catch(() => undefined);
      throw err;
    } finally {
      s.close();
    }
    await c.drop();
    await settleConfirm(opts.dataDir, cli.appliance, c.pending.hash, 'confirmed').catch(() => undefined);
    const late = c.pending.unsent ? ` (after its deadline: the inverse had not been sent, ${c.pending.unsent})` : '';
    return { appliance: cli.appliance, outcome: 'confirmed', reason: `the pushed change is saved (${save.join(', ')})${late}` };
  } finally {
    if (!opts.connection) conn.close();
  }
}

/** At the deadline, unless confirmed first: the inverse sent over a new login, nothing saved. */
export async function expire(cli: CliTarget, driver: CommandDriven, where: string, opts: SshOptions & { dataDir: string }): Promise<WatchResult> {
  const c = await claim(opts.dataDir, cli.appliance, where, 'expire');
  if (!c) return { outcome: 'confirmed' };
  let conn: SshConnection | undefined;
  let s: BoxSession | undefined;
  try {
    conn = await connectSsh(cli.endpoint, opts);
    s = await openCli(cli, driver, conn, true);
    const tx = driver.transaction;
    for (const x of [...(tx ? [tx.begin] : []), ...c.pending.inverse, ...(tx ? [tx.submit] : [])]) {
      const r = await s.run(x);
      if (r.error !== undefined) throw new Error(`the box refused "${redact(x)}": ${redact(r.error)}`);
    }
    for (const x of driver.leave) await s.run(x).catch(() => undefined);
    await c.drop();
    const at = Date.now();
    await settleConfirm(opts.dataDir, cli.appliance, c.pending.hash, 'rolled-back', at).catch(() => undefined);
    return { outcome: 'rolled-back', at };
  } catch (err) {
    const reason = `not confirmed in time, and the inverse could not be sent (${redact((err as Error).message)}): ${UNSENT_STATE}`;
    await c.putBack({ ...c.pending, unsent: reason });
    return { outcome: 'unsent', reason };
  } finally {
    s?.close();
    conn?.close();
  }
}

const watching = new Map<Promise<WatchResult>, string>();

/** Waits in this process for the deadline, then expires the push unless confirmed meanwhile. */
export function watchPending(cli: CliTarget, driver: CommandDriven, where: string, deadline: number, hash: string, opts: SshOptions & { dataDir: string }, onDone?: (r: WatchResult) => void): Promise<WatchResult> {
  const p = new Promise<WatchResult>((done) => {
    // A confirm from another process ends the wait early: its history entry says confirmed.
    const tick = setInterval(() => {
      void listHistory(opts.dataDir, cli.appliance).then((h) => {
        if (h.some((e) => e.hash === hash && e.confirm === 'confirmed')) { clearInterval(tick); clearTimeout(at); done({ outcome: 'confirmed' }); }
      }, () => undefined);
    }, 500);
    const at = setTimeout(() => { clearInterval(tick); void expire(cli, driver, where, opts).then(done); }, Math.max(0, deadline - Date.now()));
  }).then((r) => { onDone?.(r); return r; });
  watching.set(p, cli.appliance);
  void p.finally(() => watching.delete(p));
  return p;
}

/** The watchers this process holds (the CLI waits for them before it exits). */
export function pendingWatches(): { appliance: string; done: Promise<WatchResult> }[] {
  return [...watching].map(([done, appliance]) => ({ appliance, done }));
}
