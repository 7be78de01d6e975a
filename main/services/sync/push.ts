// One push, the safe way: lock → inspect → upload to a temp file beside the live one → checksum
// → validate → last-known-good backup → (arm commit-confirmed) → atomic rename → reload →
// verify. Anything that fails before the rename leaves the appliance as it was and reloads
// nothing; a failed reload or verify restores the backup and reloads it.
import type { PushOutcome, PushProgress, PushReport, PushStep, StepStatus } from '../../../shared/api/sync';
import { connectSsh, type SshConnection, type SshOptions } from '../ssh/connect';
import { SshError } from '../ssh/errors';
import { acknowledgeFired, disarmTimer } from './confirm';
import { hasHistoryHash, operatorName, readHistory, recordHistory, settleConfirm } from './history';
import { acquireLock, claimPush, type Lock } from './lock';
import { remotePaths } from './paths';
import { Remote, verifyMethod, type BoxKeeper, type Inspection } from './remote';
import { sha256 } from '../hash';
import { fillFile, tail } from './quote';
import { loadState, saveState, syncDataDir, type RemoteState } from './state';
import type { OntoOutcome, SyncTarget, VerifyTarget } from './target';
import { maskVolatile } from './volatile';

export interface PushOptions extends SshOptions {
  /** Where history and remote state live (default: the user's data folder, or LBDESK_DATA_DIR). */
  dataDir?: string;
  /** Upload and validate only; the live file and the running service are untouched. */
  dryRun?: boolean;
  /** Overwrite a remote file that changed since our last pull or push. */
  force?: boolean;
  /** Commit-confirmed: the appliance restores the backup unless `confirm` arrives in time. */
  confirmWithinMs?: number;
  /** How long the VIP connect check may retry after a reload (default 5 s). */
  verifyTimeoutMs?: number;
  skipVerify?: boolean;
  /** Limit for the validate and reload commands (default 120 s). */
  commandTimeoutMs?: number;
  onProgress?: (e: PushProgress) => void;
  /** Recorded in history: `restore` when a stored version is pushed again. */
  kind?: 'push' | 'restore';
  /** Use this open connection (not closed afterwards). */
  connection?: SshConnection;
  /** Runtime states (a drained member) to put back after the reload: main/services/operate. */
  keep?: ReloadKeeper;
}

/** Called around the reload; `after` returns notes for the report (which members it kept how). */
export interface ReloadKeeper {
  before(remote: Remote): Promise<void>;
  after(remote: Remote): Promise<string[]>;
  /** For the box's own commit-confirmed timer: the same states, set again after its restore's reload. */
  boxTimer?(remote: Remote): Promise<BoxKeeper | undefined>;
  /** What the box's timer was given (named in the push's notes). */
  boxTimerWords?: string;
}

/** A keeper never fails a push that went live: what it could not do is a note. */
async function keepAfter(keep: ReloadKeeper | undefined, remote: Remote): Promise<string[]> {
  if (!keep) return [];
  return keep.after(remote).catch((err: Error) => [`runtime states not re-applied after the reload: ${err.message}`]);
}

function holder(): string {
  return `lbdesk ${operatorName()} pid ${process.pid} since ${new Date().toISOString()}`;
}

const short = (h: string | undefined | null) => (h ? h.slice(0, 12) : 'none');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Hashes the appliance file may legitimately have, given what we last knew. */
function knownHashes(state: RemoteState | undefined, ins: Inspection): (string | null)[] {
  if (!state) return [];
  const out: (string | null)[] = [state.hash];
  if (state.inflight) out.push(state.inflight);
  if (state.pending) out.push(state.pending.hash, state.pending.backupHash);
  // A commit-confirmed timer that fired put its backup back.
  if (ins.fired?.backupHash) out.push(ins.fired.backupHash);
  return out;
}

/** The candidate of a sections push: the live file with lbdesk's sections rendered onto it. */
export async function ontoLive(target: SyncTarget, remote: Remote, dir: string, baseHash: string | undefined, force: boolean): Promise<OntoOutcome> {
  const live = await remote.readLive();
  let base: Buffer | undefined;
  if (baseHash && (await hasHistoryHash(dir, target.appliance, baseHash))) {
    base = await readHistory(dir, target.appliance, baseHash).then((h) => h.data, () => undefined);
  }
  return target.onto!(live, base, force);
}

export async function pushConfig(target: SyncTarget, text: string | Buffer, opts: PushOptions = {}): Promise<PushReport> {
  const started = Date.now();
  let data = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  let hash = sha256(data);
  const paths = remotePaths(target.configPath);
  const dir = syncDataDir(opts.dataDir);
  const steps: PushProgress[] = [];
  const notes: string[] = [];
  let label = target.endpoint.host;
  let previousHash: string | undefined;
  let historyId: string | undefined;

  const emit = (step: PushStep, status: StepStatus, message?: string) => {
    const e: PushProgress = { appliance: target.appliance, step, status, at: Date.now(), ...(message ? { message } : {}) };
    steps.push(e);
    opts.onProgress?.(e);
  };
  const report = (outcome: PushOutcome, reason: string, extra: Partial<PushReport> = {}): PushReport => ({
    appliance: target.appliance, target: label, configPath: target.configPath, outcome, reason, hash,
    ...(previousHash ? { previousHash } : {}), notes, steps, durationMs: Date.now() - started,
    ...(historyId ? { historyId } : {}), ...extra,
  });

  let conn: SshConnection | undefined;
  let lock: Lock | undefined;
  let remote: Remote | undefined;
  let temp: string | undefined;
  let armed = false;
  let live = false;
  /** The rename was sent: once the connection is lost, the appliance may have done it or not. */
  let renaming = false;
  let state: RemoteState | undefined;
  let ins: Inspection | undefined;
  let step: PushStep = 'connect';
  let unclaim: (() => void) | undefined;

  const begin = (s: PushStep, message?: string) => { step = s; emit(s, 'start', message); };
  const refuse = async (reason: string, extra: Partial<PushReport> = {}): Promise<PushReport> => {
    emit(step, 'fail', reason);
    if (remote && temp) await remote.remove(temp);
    if (remote && armed) await disarmTimer(remote).catch(() => undefined);
    return report('refused', reason, extra);
  };
  const saveRemote = (patch: Partial<RemoteState>) =>
    saveState(dir, { appliance: target.appliance, target: label, configPath: target.configPath, hash: ins?.hash ?? null, ...state, ...patch, updatedAt: Date.now() });

  try {
    begin('connect');
    const ep = target.endpoint;
    try {
      unclaim = claimPush(`${ep.user ? `${ep.user}@` : ''}${ep.host}${ep.port ? `:${ep.port}` : ''}:${paths.live}`);
    } catch (err) {
      return await refuse((err as Error).message);
    }
    conn = opts.connection ?? await connectSsh(target.endpoint, opts);
    label = conn.label;
    emit('connect', 'ok', label);
    remote = Remote.for(conn, target, opts);

    begin('lock');
    try {
      lock = await acquireLock(conn, paths, holder(), remote.inspectScript(), remote.sudo);
    } catch (err) {
      return await refuse((err as Error).message);
    }
    emit('lock', 'ok');

    begin('inspect');
    ins = remote.parseInspection(lock.output);
    previousHash = ins.hash;
    state = await loadState(dir, label, target.configPath);
    if (ins.swept) notes.push(`removed ${ins.swept} stale temp file(s) of an interrupted push`);
    const caps = await remote.capabilities();
    if (!caps.tools.flock) notes.push('the appliance has no flock: the push lock is a lock directory, which a crashed push can leave behind (the refusal names it)');
    if (ins.fired?.running) return await refuse('a commit-confirmed timer is restoring the previous config right now; try again in a moment');
    if (ins.fired) {
      const when = ins.fired.at ? new Date(ins.fired.at * 1000).toISOString() : 'an unknown time';
      const kept = ins.fired.keep === undefined ? '' : ins.fired.keep === 0 ? '; the kept runtime states were set again after it' : `; setting the kept runtime states again FAILED (exit ${ins.fired.keep}): see lbdesk state`;
      notes.push(`the commit-confirmed push ${short(ins.fired.hash)} was not confirmed: the appliance restored the previous config at ${when} (reload exit ${ins.fired.rc ?? '?'})${kept}`);
      await settleConfirm(dir, target.appliance, ins.fired.hash, 'rolled-back', ins.fired.at ? ins.fired.at * 1000 : undefined).catch(() => undefined);
    }
    if (ins.pending) {
      const until = new Date(ins.pending.deadline * 1000).toISOString();
      // The pending push goes with the refusal, so the window can show its countdown and Confirm.
      const waiting = { pending: { deadline: ins.pending.deadline * 1000, hash: ins.pending.hash } };
      return await refuse(ins.pending.alive
        ? `a commit-confirmed push (${short(ins.pending.hash)}) is pending until ${until}: run lbdesk confirm, or wait for the appliance to roll it back`
        : `a commit-confirmed marker exists but its timer is gone (appliance restarted?): run lbdesk confirm to keep the current config`, waiting);
    }
    const known = knownHashes(state, ins);
    const current = ins.hash ?? null;
    if (target.onto) {
      // manage: sections: what lbdesk does not own may change on the appliance; edits to what it
      // owns are conflicts the render finds (against the last version lbdesk saw).
      const merged = await ontoLive(target, remote, dir, state?.hash ?? undefined, opts.force === true);
      notes.push(...merged.conflicts.map((c) => `conflict: ${c}`));
      if ('refused' in merged) return await refuse(merged.refused);
      data = merged.data;
      hash = sha256(data);
    } else if (state && !known.includes(current) && !opts.force) {
      return await refuse(`${target.configPath} changed on the appliance since the last pull or push (sha256 ${short(current)}, expected ${short(state.hash)}): review with lbdesk diff or pull, or push with --force`);
    }
    if (state?.inflight && state.inflight === current && state.hash !== current) {
      notes.push('the previous push was interrupted after the new file went live; it may not have been reloaded');
    }
    let unchanged = current === hash;
    let remoteData: Buffer | undefined;
    if (!unchanged && ins.exists && (target.volatile?.length || !(await hasHistoryHash(dir, target.appliance, current!)))) {
      remoteData = await remote.readLive();
      if (remoteData && target.volatile?.length) unchanged = maskVolatile(remoteData.toString('utf8'), target.volatile) === maskVolatile(data.toString('utf8'), target.volatile);
    }
    if (unchanged) {
      emit('inspect', 'ok', 'the appliance already has this config');
      if (!opts.dryRun) {
        if (ins.fired) await acknowledgeFired(remote);
        await saveRemote({ hash: current, inflight: undefined, pending: undefined });
      }
      return report('unchanged', 'the appliance already runs this config; nothing was changed');
    }
    if (remoteData && sha256(remoteData) === current && !opts.dryRun && !(await hasHistoryHash(dir, target.appliance, current!))) {
      await recordHistory(dir, { appliance: target.appliance, kind: 'before-push', data: remoteData, target: label, configPath: target.configPath });
    }
    emit('inspect', 'ok', ins.exists ? `remote sha256 ${short(current)}` : `${target.configPath} does not exist yet`);

    begin('upload');
    temp = paths.temp('new');
    notes.push(...await remote.upload(temp, data));
    emit('upload', 'ok', `${data.length} bytes to ${temp}`);

    // Checksum, validate, back up and arm run as one exec on the appliance; progress is
    // reported per step from its answer.
    let pending: PushReport['pending'];
    const seconds = opts.confirmWithinMs && !opts.dryRun ? Math.max(1, Math.ceil(opts.confirmWithinMs / 1000)) : 0;
    const deadline = Date.now() + seconds * 1000;
    const validate = target.validateCommand ? fillFile(target.validateCommand, temp) : undefined;
    begin('checksum');
    if (seconds) armed = true; // from here on a failure must disarm, whatever the script got to
    // The box's timer may restore and reload while nobody is connected: it sets the kept states again itself.
    const boxKeep = seconds && opts.keep?.boxTimer ? await opts.keep.boxTimer(remote).catch((err: Error) => {
      notes.push(`if the timer restores the previous config, the kept runtime states are not set again: ${err.message}`);
      return undefined;
    }) : undefined;
    const prep = await remote.prepare({
      temp, hash, validate, dry: opts.dryRun === true, expectLive: ins.hash, timeoutMs: opts.commandTimeoutMs ?? 120_000,
      ...(seconds ? { arm: { seconds, deadline, reloadCommand: target.reloadCommand, ...(boxKeep ? { keep: boxKeep } : {}) } } : {}),
    });
    if (prep.otherPending) armed = false; // not ours: never disarm it
    if (prep.failed === 'checksum') return await refuse(prep.reason);
    emit('checksum', 'ok', `sha256 ${short(hash)}`);
    if (validate) {
      begin('validate', validate);
      if (prep.failed === 'validate') return await refuse(prep.reason);
      emit('validate', 'ok');
    } else {
      emit('validate', 'skip', 'no validate command');
    }

    if (opts.dryRun) {
      await remote.remove(temp);
      temp = undefined;
      return report('would-apply', `dry run: the new config uploaded and ${validate ? 'validated' : 'checked'} on the appliance; nothing applied`);
    }

    begin('backup');
    if (prep.failed === 'backup') return await refuse(prep.reason);
    emit('backup', 'ok', prep.backupHash ? `last-known-good ${paths.backup}` : 'no previous file to keep');
    if (seconds) {
      begin('arm-confirm', `${seconds}s`);
      if (prep.failed) return await refuse(prep.reason);
      pending = { deadline, hash };
      if (!caps.tools.setsid) notes.push('the appliance has no setsid: the confirm timer runs in the login session\'s process group (it ignores the hangup, but a logind that kills the session takes it along)');
      emit('arm-confirm', 'ok', `timer pid ${prep.pid} restores the previous config at ${new Date(deadline).toISOString()} unless confirmed${boxKeep && opts.keep?.boxTimerWords ? `, then sets ${opts.keep.boxTimerWords} again` : ''}`);
    }
    if (prep.failed) return await refuse(prep.reason); // never rename after any failed step
    const b = { backupHash: prep.backupHash };

    begin('rename');
    await saveRemote({ hash: current, inflight: hash });
    renaming = true;
    const how = await remote.rename(temp, paths.live);
    temp = undefined;
    live = true;
    emit('rename', 'ok', how);

    const rollback = async (why: string): Promise<PushReport> => {
      emit(step, 'fail', why);
      begin('restore');
      if (armed) await disarmTimer(remote!).catch(() => undefined);
      armed = false;
      const r = await remote!.restore();
      let outcome: PushOutcome = 'rolled-back';
      let reason = `${why}; the previous config was restored and reloaded`;
      if (!r.ok) {
        outcome = 'failed';
        reason = `${why}; restoring the previous config FAILED (${r.reason}): the new config is still in place`;
      } else {
        const again = await remote!.command(target.reloadCommand, opts.commandTimeoutMs ?? 120_000);
        if (again.code !== 0) {
          outcome = 'failed';
          reason = `${why}; the previous config was restored but its reload failed too (exit ${again.code ?? again.signal}): ${tail(`${again.stderr}\n${again.stdout}`)}`;
        } else {
          notes.push(...await keepAfter(opts.keep, remote!));
        }
      }
      emit('restore', outcome === 'rolled-back' ? 'ok' : 'fail', reason);
      // What is on disk now: the restored previous file, unless the restore itself failed.
      await saveRemote({ hash: r.ok ? current : hash, inflight: undefined, pending: undefined });
      const h = await recordHistory(dir, { appliance: target.appliance, kind: opts.kind ?? 'push', data, target: label, configPath: target.configPath, outcome, workspace: target.workspace });
      historyId = h.id;
      return report(outcome, reason);
    };

    begin('reload', target.reloadCommand);
    await opts.keep?.before(remote).catch(() => undefined);
    const rl = await remote.command(target.reloadCommand, opts.commandTimeoutMs ?? 120_000);
    if (rl.code !== 0) return await rollback(`reload failed (exit ${rl.code ?? rl.signal}): ${tail(`${rl.stderr}\n${rl.stdout}`) || 'no output'}`);
    emit('reload', 'ok');
    notes.push(...await keepAfter(opts.keep, remote));

    const vips = opts.skipVerify ? [] : verifyList(target, data);
    if (vips.length === 0) {
      emit('verify', 'skip', opts.skipVerify ? 'verification turned off' : 'no TCP service to connect to');
    } else {
      begin('verify', vips.map((v) => `${v.address}:${v.port}`).join(', '));
      const until = Date.now() + (opts.verifyTimeoutMs ?? 5000);
      const waiting = new Set(vips.map((v) => `${v.address}\t${v.port}`));
      const method = verifyMethod(caps);
      let cannot = method === 'none';
      while (waiting.size && !cannot) {
        for (const key of [...waiting]) {
          const [address, port] = key.split('\t') as [string, string];
          const rc = await remote.probe(address, Number(port), method);
          if (rc === 0) waiting.delete(key);
          if (rc === 2) cannot = true;
        }
        if (!waiting.size || cannot || Date.now() > until) break;
        await sleep(200);
      }
      if (cannot) {
        const why = caps.nc === 'plain' ? 'no bash, and its nc cannot test a connection (no -z, no -e) without timeout' : 'no bash and no nc on the appliance';
        emit('verify', 'skip', why);
        notes.push(`VIP connect check skipped: ${why}`);
      } else if (waiting.size) {
        const list = [...waiting].map((k) => k.replace('\t', ':')).join(', ');
        return await rollback(`verify failed: nothing accepts connections on ${list} from the appliance after the reload`);
      } else {
        emit('verify', 'ok');
      }
    }

    begin('record');
    await saveRemote({ hash, inflight: undefined, pending: pending ? { hash, backupHash: b.backupHash ?? null, deadline: pending.deadline } : undefined });
    if (ins.fired) await acknowledgeFired(remote);
    const h = await recordHistory(dir, { appliance: target.appliance, kind: opts.kind ?? 'push', data, target: label, configPath: target.configPath, outcome: 'applied', workspace: target.workspace, ...(pending ? { confirm: 'pending' as const } : {}) });
    historyId = h.id;
    emit('record', 'ok', h.id);
    const confirmNote = pending ? `; confirm before ${new Date(pending.deadline).toISOString()} or the appliance restores the previous config` : '';
    return report('applied', `applied and reloaded${vips.length && !opts.skipVerify ? ', VIPs answer' : ''}${confirmNote}`, pending ? { pending } : {});
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const lost = err instanceof SshError && err.kind === 'closed';
    const heal = armed ? '; the appliance restores the previous config by itself unless confirmed' : '';
    if (!live && renaming && lost) {
      emit(step, 'fail', msg);
      return report('failed', `connection lost while the new config was being put in place (${msg}); it may be live but not reloaded: run diff to see${heal}`);
    }
    if (!live) {
      emit(step, 'fail', msg);
      if (remote && conn && !conn.isClosed) {
        if (temp) await remote.remove(temp);
        if (armed) await disarmTimer(remote).catch(() => undefined);
      }
      return report('refused', msg);
    }
    emit(step, 'fail', msg);
    return report('failed', `${lost ? 'connection lost' : 'error'} after the new config went live (${msg}); it may not be reloaded${heal}`);
  } finally {
    await lock?.release().catch(() => undefined);
    if (conn && !opts.connection) conn.close();
    unclaim?.();
  }
}

/** The VIPs to verify, and for a kept-sections file every address it listens on, each once. */
function verifyList(target: SyncTarget, data: Buffer): VerifyTarget[] {
  const all = new Map<string, VerifyTarget>();
  for (const v of [...(target.verify ?? []), ...(target.verifyFile?.(data) ?? [])]) all.set(`${v.address}\t${v.port}`, v);
  return [...all.values()];
}
