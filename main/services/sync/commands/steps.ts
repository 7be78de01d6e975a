// Push to a command-driven vendor box (driver adx…): read its running config in the CLI, let the
// driver compute the steps (each with its inverse, from this before-state), send them one by
// one checking each for an error line, and save only after every step was accepted. On an
// error, or a connection cut mid-apply, the inverse of what was sent goes back (over a new
// session when the old one is gone) and nothing is saved: the saved config stays the old one.
import type { PushOutcome, PushProgress, PushStep, StepStatus } from '../../../../shared/api/sync';
import type { CommandDriven, CommandPlan, CommandStep } from '../../drivers/types';
import type { CliLine } from '../../drivers/template/sections';
import { connectSsh, type SshConnection } from '../../ssh/connect';
import { recordHistory } from '../history';
import { syncDataDir } from '../state';
import { describe, failureOf, type CliApplyDetail, type CliFailure, type CliPushOptions, type CliPushReport } from './apply';
import { BoxSession, BoxCliError } from './box-session';
import { redact } from './redact';
import { cliWhere, type CliTarget } from './target';
import { watchPending, writePending } from './confirm';
import { sha256 } from '../../hash';
import { gatePlan } from './gate';

/** What a vendor box without a timer of its own is left with when nobody sends the inverse. */
export const UNWATCHED = 'the box has no rollback timer of its own: if lbdesk is closed before then, or the box cannot be reached then, nothing is sent and the change stays running unsaved (a reload or reboot of the box reverts it)';

export interface CommandPushReport extends CliPushReport {
  /** The steps as planned from the running config read at push time, each with its inverse. */
  plan: CommandStep[];
  /** The running config read before the first command. */
  before: string;
}


/** Reads the running config in an open session (paging turned off first). */
export async function showRunning(session: BoxSession, driver: CommandDriven): Promise<string> {
  const r = await session.run(driver.show);
  if (r.error !== undefined) throw new Error(`"${driver.show}" failed: ${redact(r.error)}`);
  return r.output.endsWith('\n') || r.output === '' ? r.output : `${r.output}\n`;
}

export async function pushCommands(
  target: CliTarget, driver: CommandDriven, plan: (running: string) => CommandPlan, opts: CliPushOptions = {},
): Promise<CommandPushReport> {
  const started = Date.now();
  const timeoutMs = target.settings.timeout;
  const steps: PushProgress[] = [];
  const detail: CliApplyDetail = { mode: 'shell', sent: 0, total: 0, transcript: '' };
  let label = target.endpoint.host;
  let step: PushStep = 'connect';
  let planned: CommandStep[] = [];
  let before = '';
  let after = '';
  const emit = (s: PushStep, status: StepStatus, message?: string) => {
    const e: PushProgress = { appliance: target.appliance, step: s, status, at: Date.now(), ...(message ? { message } : {}) };
    steps.push(e);
    opts.onProgress?.(e);
  };
  const begin = (s: PushStep, message?: string) => { step = s; emit(s, 'start', message); };
  const report = (outcome: PushOutcome, reason: string, historyId?: string): CommandPushReport => ({
    appliance: target.appliance, target: label, configPath: cliWhere(target), outcome, reason, hash: sha256(after || before),
    ...(before ? { previousHash: sha256(before) } : {}), notes: [], steps, durationMs: Date.now() - started, cli: detail,
    plan: planned, before, ...(historyId ? { historyId } : {}),
  });
  const record = async (outcome: PushOutcome, confirm?: 'pending') => {
    const h = await recordHistory(syncDataDir(opts.dataDir), { appliance: target.appliance, kind: 'push', data: Buffer.from(after, 'utf8'), target: label, configPath: cliWhere(target), outcome, workspace: target.workspace, ...(confirm ? { confirm } : {}) });
    return h.id;
  };
  const open = async (conn: SshConnection) => {
    const s = await BoxSession.open(conn.client, { patterns: target.patterns, timeoutMs, label: conn.label, onTranscript: opts.onTranscript });
    sessions.push(s);
    if (driver.enable && />\s*$/.test(s.currentPrompt)) await must(s, driver.enable, 'prologue');
    return s;
  };
  const sessions: BoxSession[] = [];
  const conns: SshConnection[] = [];
  // Every command sent, numbered as `render --commands` prints them; the inverse numbered after.
  const sent: { step: number; line: CliLine }[] = [];
  /**
   * A refused transaction left the box as it was; a cut one dies with its session, which is
   * checked over a new session: the running config read again must be the one read before.
   */
  const transactionFailed = async (why: string, cut: boolean): Promise<[PushOutcome, string, string]> => {
    begin('restore', cut ? 'reading the running config again over a new session' : 'nothing to undo: the transaction was not applied');
    const session = sessions[sessions.length - 1]!;
    if (!cut && !session.isClosed) {
      if (driver.transaction) await session.run(driver.transaction.abort).catch(() => undefined);
      const reason = `${why}; nothing was applied (the commands were one transaction, which the box takes whole or not at all), nothing saved`;
      emit('restore', 'ok', reason);
      return ['rolled-back', reason, await record('rolled-back')];
    }
    try {
      const again = await connectSsh(target.endpoint, opts);
      conns.push(again);
      const s = await open(again);
      for (const c of driver.prologue.filter((x) => !/^conf/.test(x))) await must(s, c, 'prologue');
      const now = await showRunning(s, driver);
      if (now === before) {
        const reason = `${why}; the running config read again is the one before the push: the transaction was not applied, nothing saved`;
        emit('restore', 'ok', reason);
        return ['rolled-back', reason, await record('rolled-back')];
      }
      const reason = `${why}; the running config read again differs from the one before the push (the submit may have been taken): check the appliance; nothing was saved`;
      emit('restore', 'fail', reason);
      return ['failed', reason, await record('failed')];
    } catch (err) {
      const reason = `${why}; the box could not be reached again (${redact((err as Error).message)}): a transaction not submitted is dropped with its session, but this could not be checked; nothing was saved`;
      emit('restore', 'fail', reason);
      return ['failed', reason, await record('failed')];
    }
  };
  /** Commit-confirmed: configuration mode left, nothing saved, the inverse of every step kept for the deadline. */
  const leavePending = async (withinMs: number): Promise<CommandPushReport> => {
    const session = sessions[sessions.length - 1]!;
    for (const c of driver.leave) await must(session, c, 'epilogue');
    emit('reload', 'ok', `${detail.sent} commands accepted; NOT saved until confirmed`);
    begin('arm-confirm', `${Math.ceil(withinMs / 1000)}s`);
    const dir = syncDataDir(opts.dataDir);
    const deadline = Date.now() + withinMs;
    const hash = sha256(after);
    const inverse = [...planned].reverse().flatMap((s) => s.inverse);
    await writePending(dir, cliWhere(target), { appliance: target.appliance, target: label, deadline, hash, inverse });
    const id = await record('applied', 'pending');
    const { connection: _shared, ...ssh } = opts;
    watchPending(target, driver, cliWhere(target), deadline, hash, { ...ssh, dataDir: dir }, opts.onConfirmWatch);
    const until = new Date(deadline).toISOString();
    emit('arm-confirm', 'ok', `this lbdesk process sends the inverse (${inverse.length} commands) at ${until} unless confirmed`);
    return {
      ...report('applied', `${planned.length} change${planned.length === 1 ? '' : 's'} in ${detail.sent} commands, NOT saved: confirm before ${until} (lbdesk confirm) to save them, or this lbdesk process sends the inverse then; ${UNWATCHED}`, id),
      pending: { deadline, hash },
    };
  };
  try {
    begin('connect');
    const conn = opts.connection ?? await connectSsh(target.endpoint, opts);
    if (!opts.connection) conns.push(conn);
    label = conn.label;
    emit('connect', 'ok', label);
    let session = await open(conn);
    begin('inspect', driver.show);
    for (const c of driver.prologue.filter((x) => !/^conf/.test(x))) await must(session, c, 'prologue');
    before = await showRunning(session, driver);
    const p = plan(before);
    planned = p.steps;
    after = p.after;
    const gate = gatePlan(p, emit, opts.dryRun, 'running config');
    const { commands } = gate;
    detail.total = commands.length;
    if (gate.stop) return report(...gate.stop);

    begin('reload', `${commands.length} commands in the CLI`);
    for (const c of driver.prologue.filter((x) => /^conf/.test(x))) await must(session, c, 'prologue');
    const tx = driver.transaction;
    if (tx) await must(session, tx.begin, 'prologue');
    let failure: CliFailure | undefined;
    let cut = false;
    for (const [n, c] of commands.entries()) {
      const line: CliLine = { n: n + 1, text: c.text, section: 'config' };
      sent.push({ step: c.step, line });
      try {
        const r = await session.run(c.text);
        if (r.error !== undefined) { failure = failureOf(line, r.error, r.output); break; }
      } catch (err) {
        failure = failureOf(line, (err as Error).message, '');
        cut = err instanceof BoxCliError && err.kind === 'closed';
        if (!cut && !(await session.interrupt())) cut = true;
        break;
      }
      detail.sent += 1;
    }
    if (tx && !failure) {
      const line: CliLine = { n: commands.length + 1, text: tx.submit, section: 'config' };
      try {
        const r = await session.run(tx.submit);
        if (r.error !== undefined) failure = failureOf(line, r.error, r.output);
      } catch (err) {
        failure = failureOf(line, (err as Error).message, '');
        cut = true;
      }
    }
    if (tx && failure) {
      const why = `the appliance ${cut ? 'was cut off at' : 'rejected'} ${describe(failure)}`;
      detail.failure = failure;
      emit('reload', 'fail', why);
      return report(...await transactionFailed(why, cut));
    }
    if (!failure && opts.confirmWithinMs) return await leavePending(opts.confirmWithinMs);
    if (!failure) {
      for (const c of driver.save) await must(session, c, 'epilogue');
      emit('reload', 'ok', `${detail.sent} commands accepted; saved (${driver.save.join(', ')})`);
      return report('applied', `${planned.length} change${planned.length === 1 ? '' : 's'} in ${detail.sent} commands, then saved`, await record('applied'));
    }
    detail.failure = failure;
    const why = `the appliance ${cut ? 'was cut off at' : 'rejected'} ${describe(failure)}`;
    emit('reload', 'fail', why);

    // The inverse of the steps the box took a command of, newest first (a cut command may have
    // been taken: its step counts); nothing saved.
    const took = sent.slice(0, cut ? sent.length : sent.length - 1);
    const started = [...new Set(took.map((s) => s.step))].reverse();
    const inverse = started.flatMap((i) => planned[i]!.inverse);
    begin('restore', `${inverse.length} inverse commands${cut ? ' over a new session' : ''}`);
    const rb: NonNullable<CliApplyDetail['rollback']> = { sent: 0, total: inverse.length, errors: [] };
    detail.rollback = rb;
    if (cut || session.isClosed) {
      try {
        const again = await connectSsh(target.endpoint, opts);
        conns.push(again);
        session = await open(again);
        for (const c of driver.prologue) await must(session, c, 'prologue');
      } catch (err) {
        const msg = redact((err as Error).message);
        emit('restore', 'fail', msg);
        return report('failed', `${why}; the box could not be reached again (${msg}): the inverse was NOT sent and the running config holds the commands accepted so far; the saved config is the old one (a reload brings it back)`, await record('failed'));
      }
    } else if (/\(config-/.test(session.currentPrompt)) {
      await session.run('exit').catch(() => undefined);
    }
    for (const [n, text] of inverse.entries()) {
      const line: CliLine = { n: commands.length + n + 1, text, section: 'rollback' };
      try {
        const r = await session.run(text);
        if (r.error !== undefined) rb.errors.push(failureOf(line, r.error, r.output));
        else rb.sent += 1;
      } catch (err) {
        rb.errors.push(failureOf(line, (err as Error).message, ''));
        if (session.isClosed || !(await session.interrupt())) break;
      }
    }
    for (const c of driver.leave) await session.run(c).catch(() => undefined);
    const ok = rb.errors.length === 0 && rb.sent === rb.total;
    const reason = ok
      ? `${why}; the inverse (${rb.total} commands) was sent and accepted, nothing saved`
      : `${why}; rollback incomplete (${rb.sent} of ${rb.total} accepted; first problem: ${rb.errors[0] ? describe(rb.errors[0]) : 'not all sent'}): check the appliance; nothing was saved`;
    emit('restore', ok ? 'ok' : 'fail', reason);
    return report(ok ? 'rolled-back' : 'failed', reason, await record(ok ? 'rolled-back' : 'failed'));
  } catch (err) {
    const msg = redact(err instanceof Error ? err.message : String(err));
    emit(step, 'fail', msg);
    if (!sent.length) return report('refused', msg);
    return report('failed', `${msg} after the appliance was changed: check it (nothing was saved)`);
  } finally {
    detail.transcript = sessions.map((s) => s.transcript).join('\n');
    for (const s of sessions) s.close();
    for (const c of conns) c.close();
  }
}

/** A command that must be accepted (paging, configuration mode, save). */
async function must(session: BoxSession, command: string, section: CliLine['section']): Promise<void> {
  const r = await session.run(command);
  if (r.error !== undefined) throw new Error(`${section} "${command}" was refused: ${redact(r.error)}`);
}
