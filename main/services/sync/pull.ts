// Pull and diff: read the live config from the appliance.
import { createTwoFilesPatch } from 'diff';
import { redactPatch } from './commands/redact';
import { isUtf8 } from 'node:buffer';
import type { DiffReport, HistoryEntry } from '../../../shared/api/sync';
import { connectSsh, type SshConnection, type SshOptions } from '../ssh/connect';
import { hasHistoryHash, listHistory, recordHistory, settleConfirm } from './history';
import { Remote } from './remote';
import { sha256 } from '../hash';
import { loadState, saveState, syncDataDir } from './state';
import type { SyncTarget } from './target';
import { maskVolatile } from './volatile';
import { ontoLive } from './push';

export interface ReadOptions extends SshOptions {
  dataDir?: string;
  /** manage: sections: render over owned sections edited on the appliance (the diff still lists them). */
  force?: boolean;
  connection?: SshConnection;
  /** Unchanged lines around each change in a diff (default 4); the UI asks for the whole file to fold it by section. */
  context?: number;
}

async function withRemote<T>(target: SyncTarget, opts: ReadOptions, fn: (remote: Remote, conn: SshConnection) => Promise<T>): Promise<T> {
  const conn = opts.connection ?? await connectSsh(target.endpoint, opts);
  try {
    return await fn(Remote.for(conn, target, opts), conn);
  } finally {
    if (!opts.connection) conn.close();
  }
}

export interface PullResult { data: Buffer; hash: string; target: string; entry: HistoryEntry }

/**
 * The appliance's live config, byte for byte. Kept in history and remembered as the version
 * we last saw, so a later push does not call it "changed on the appliance".
 */
export async function pullConfig(target: SyncTarget, opts: ReadOptions = {}): Promise<PullResult> {
  const dir = syncDataDir(opts.dataDir);
  return withRemote(target, opts, async (remote, conn) => {
    const data = await remote.readLive();
    if (!data) throw new Error(`${target.configPath} does not exist on ${conn.label}`);
    const hash = sha256(data);
    let entry: HistoryEntry;
    if (await hasHistoryHash(dir, target.appliance, hash)) {
      entry = (await listHistory(dir, target.appliance)).filter((e) => e.hash === hash).pop()!;
    } else {
      entry = await recordHistory(dir, { appliance: target.appliance, kind: 'pull', data, target: conn.label, configPath: target.configPath });
    }
    const state = await loadState(dir, conn.label, target.configPath);
    await saveState(dir, { appliance: target.appliance, target: conn.label, configPath: target.configPath, ...state, hash, inflight: undefined, updatedAt: Date.now() });
    return { data, hash, target: conn.label, entry };
  });
}

/** What a sections push would make of the live file now (conflicts listed; `refused` when it cannot). */
async function mergedNow(target: SyncTarget, remote: Remote, label: string, opts: ReadOptions) {
  const dir = syncDataDir(opts.dataDir);
  const state = await loadState(dir, label, target.configPath).catch(() => undefined);
  return ontoLive(target, remote, dir, state?.hash ?? undefined, opts.force === true);
}

export interface OntoNow { text: string; target: string; refused?: string; conflicts: string[] }

/** manage: sections: the file a push would leave, rendered onto the one the appliance holds now (`render --onto`). */
export async function renderOntoLive(target: SyncTarget, opts: ReadOptions = {}): Promise<OntoNow> {
  return withRemote(target, opts, async (remote, conn) => {
    const merged = await mergedNow(target, remote, conn.label, opts);
    const { conflicts } = merged;
    if ('refused' in merged) return { text: (await remote.readLive())?.toString('utf8') ?? '', target: conn.label, refused: merged.refused, conflicts };
    return { text: merged.data.toString('utf8'), target: conn.label, conflicts };
  });
}

/** Unified diff of the appliance's live config (a/) against what would be pushed (b/). */
export async function diffConfig(target: SyncTarget, rendered: string | Buffer, opts: ReadOptions = {}): Promise<DiffReport> {
  const next = Buffer.isBuffer(rendered) ? rendered : Buffer.from(rendered, 'utf8');
  return withRemote(target, opts, async (remote, conn) => {
    const current = await remote.readLive();
    let d: DiffReport;
    if (target.onto) {
      // manage: sections: the diff of the file a push would make from the live one.
      const merged = await mergedNow(target, remote, conn.label, opts);
      d = 'refused' in merged
        ? { ...diffTexts(target, current, current ?? Buffer.alloc(0), opts.context), refused: merged.refused }
        : diffTexts(target, current, merged.data, opts.context);
      if (merged.conflicts.length) d.conflicts = merged.conflicts;
    } else d = diffTexts(target, current, next, opts.context);
    // What commit-confirmed left on the appliance: a push still waiting, or one taken back (the
    // history learns it here too, not only at the next push).
    const state = await remote.confirmState().catch(() => undefined);
    if (state?.pending?.alive) d.pending = { deadline: state.pending.deadline * 1000, hash: state.pending.hash };
    if (state?.fired && !state.fired.running) {
      const at = state.fired.at ? state.fired.at * 1000 : undefined;
      d.rolledBack = { ...(at ? { at } : {}), ...(state.fired.hash ? { hash: state.fired.hash } : {}) };
      await settleConfirm(syncDataDir(opts.dataDir), target.appliance, state.fired.hash, 'rolled-back', at).catch(() => undefined);
    }
    return d;
  });
}

export function diffTexts(target: SyncTarget, current: Buffer | undefined, next: Buffer, context?: number): DiffReport {
  const masks = target.volatile ?? [];
  // A file that is not UTF-8 is diffed byte for byte (latin1 maps each byte to one character);
  // decoded as UTF-8 its bytes would become U+FFFD and the patch would not apply.
  const bytes = !isUtf8(next) || (current !== undefined && !isUtf8(current));
  const encoding = bytes ? 'latin1' : 'utf8';
  const a = maskVolatile(current?.toString(encoding) ?? '', masks);
  const b = maskVolatile(next.toString(encoding), masks);
  const changed = current === undefined || a !== b;
  // What the user sees never shows a password (stats auth, auth_pass, …): the patch is made from
  // the real text, then redacted, so a changed password still shows as a changed line.
  const patch = changed
    ? redactPatch(createTwoFilesPatch(current === undefined ? '/dev/null' : `a${target.configPath}`, `b${target.configPath}`, a, b, current === undefined ? undefined : 'appliance', 'rendered', context === undefined ? undefined : { context }))
    : '';
  return {
    appliance: target.appliance, configPath: target.configPath, changed, patch, hash: sha256(next),
    ...(current ? { remoteHash: sha256(current) } : {}),
    ...(bytes ? { encoding: 'latin1' as const } : {}),
  };
}
