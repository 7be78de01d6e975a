// Push to a vendor appliance: optionally upload the config section by SFTP/SCP, then send the
// commands in an interactive CLI session. The first error line stops the apply; the
// template's rollback commands are then sent and the report names the failing line.
import type { PushOutcome, PushProgress, PushReport, PushStep, StepStatus } from '../../../../shared/api/sync';
import { connectSsh, type SshConnection, type SshOptions } from '../../ssh/connect';
import { recordHistory } from '../history';
import { syncDataDir } from '../state';
import { openTransfer } from '../../transfer';
import type { TransferKind, WriteResult } from '../../transfer/types';
import { BoxCliError, BoxSession } from './box-session';
import { redact } from './redact';
import type { WatchResult } from './confirm';
import { commandsOf, splitSections, type CliLine, type SectionName } from '../../drivers/template/sections';
import { cliWhere, type CliTarget } from './target';
import { sha256 } from '../../hash';

export interface CliPushOptions extends SshOptions {
  /** Where history lives (default: the user's data folder, or LBDESK_DATA_DIR). */
  dataDir?: string;
  /** Use this open connection (not closed afterwards). */
  connection?: SshConnection;
  /** Connect and wait for the prompt; nothing uploaded, nothing sent. */
  dryRun?: boolean;
  onProgress?: (e: PushProgress) => void;
  /** Commit-confirmed (command-driven boxes): applied, not saved, the inverse sent after this long unless confirmed. */
  confirmWithinMs?: number;
  /** Told how a commit-confirmed push ended (confirmed, inverse sent, or not sent). */
  onConfirmWatch?: (r: WatchResult) => void;
  /** Redacted session output as it happens. */
  onTranscript?: (text: string) => void;
}

export interface CliFailure {
  /** Line in the rendered text (`lbdesk render` output), 1-based. */
  lineNumber: number;
  line: string;
  section: SectionName;
  /** The error line the appliance printed, or why the wait failed. */
  error: string;
  output: string;
}

export interface CliApplyDetail {
  mode: 'shell' | 'upload' | 'both';
  /** Commands the appliance accepted before the stop (all of them when applied). */
  sent: number;
  total: number;
  failure?: CliFailure;
  rollback?: { sent: number; total: number; errors: CliFailure[] };
  upload?: WriteResult & { via: TransferKind };
  /** The session as seen on screen, redacted. */
  transcript: string;
}

export interface CliPushReport extends PushReport {
  cli: CliApplyDetail;
}


export function failureOf(c: CliLine, error: string, output: string): CliFailure {
  return { lineNumber: c.n, line: redact(c.text), section: c.section, error: redact(error), output: redact(output) };
}

export function describe(f: CliFailure): string {
  return `line ${f.lineNumber} (${f.section}) "${f.line.trim()}": ${f.error}`;
}

export async function pushCli(target: CliTarget, rendered: string, opts: CliPushOptions = {}): Promise<CliPushReport> {
  const started = Date.now();
  const data = Buffer.from(rendered, 'utf8');
  const hash = sha256(data);
  const settings = target.settings;
  const timeoutMs = settings.timeout;
  const steps: PushProgress[] = [];
  const notes: string[] = [];
  const detail: CliApplyDetail = { mode: settings.mode, sent: 0, total: 0, transcript: '' };
  let label = target.endpoint.host;
  let step: PushStep = 'render';

  const emit = (s: PushStep, status: StepStatus, message?: string) => {
    const e: PushProgress = { appliance: target.appliance, step: s, status, at: Date.now(), ...(message ? { message } : {}) };
    steps.push(e);
    opts.onProgress?.(e);
  };
  const begin = (s: PushStep, message?: string) => { step = s; emit(s, 'start', message); };
  const report = (outcome: PushOutcome, reason: string): CliPushReport => ({
    appliance: target.appliance, target: label, configPath: cliWhere(target), outcome, reason, hash,
    notes, steps, durationMs: Date.now() - started, cli: detail,
  });

  const sections = splitSections(rendered);
  if (sections.problems.length) {
    emit('render', 'fail', sections.problems.join('; '));
    return report('refused', `the rendered commands are malformed: ${sections.problems.join('; ')}`);
  }
  if (settings.mode !== 'shell' && !settings.uploadPath) {
    emit('render', 'fail', 'no cli.uploadPath');
    return report('refused', `cli.mode ${settings.mode} needs cli.uploadPath`);
  }
  const comment = target.patterns.comment;
  const prologue = commandsOf(sections.lines.prologue, comment);
  const rollback = commandsOf(sections.lines.rollback, comment);
  const commands = [
    ...prologue,
    ...(settings.mode === 'upload' ? [] : commandsOf(sections.lines.config, comment)),
    ...commandsOf(sections.lines.epilogue, comment),
  ];
  detail.total = commands.length;

  let conn: SshConnection | undefined;
  let session: BoxSession | undefined;
  let changed = false;
  const dir = syncDataDir(opts.dataDir);
  const record = async (outcome: PushOutcome) => {
    if (opts.dryRun) return undefined;
    const h = await recordHistory(dir, { appliance: target.appliance, kind: 'push', data, target: label, configPath: cliWhere(target), outcome, workspace: target.workspace });
    return h.id;
  };
  try {
    begin('connect');
    conn = opts.connection ?? await connectSsh(target.endpoint, opts);
    label = conn.label;
    emit('connect', 'ok', label);

    if (settings.mode !== 'shell') {
      const path = settings.uploadPath!;
      begin('upload', path);
      if (opts.dryRun) {
        emit('upload', 'skip', 'dry run');
      } else {
        const xfer = await openTransfer(conn, target.transfer, { timeoutMs });
        const w = await xfer.write(path, Buffer.from(sections.configText, 'utf8'), { atomic: 'auto', verify: true, timeoutMs });
        changed = true;
        detail.upload = { ...w, via: xfer.kind };
        emit('upload', 'ok', `${w.bytes} bytes to ${path} by ${xfer.kind}${w.atomic ? ' (temp file, then renamed)' : ''}`);
        if (!w.atomic) notes.push(`${path} was written in place: the appliance offers no rename, so a cut connection could leave it partial`);
        emit('checksum', w.verified === 'none' ? 'skip' : 'ok', {
          sha256: 'sha256 computed on the appliance', 'read-back': 'read back and compared', size: 'size acknowledged (the appliance does not hand the file back)', none: '',
        }[w.verified]);
      }
    }

    begin('reload', `${commands.length} command${commands.length === 1 ? '' : 's'} in the CLI`);
    if (commands.length === 0 && !opts.dryRun) {
      emit('reload', 'skip', 'no commands to send');
      const id = await record('applied');
      return { ...report('applied', 'uploaded; the template sends no commands'), ...(id ? { historyId: id } : {}) };
    }
    session = await BoxSession.open(conn.client, { patterns: target.patterns, timeoutMs, label, onTranscript: opts.onTranscript });
    if (opts.dryRun) {
      emit('reload', 'skip', `dry run: prompt "${session.currentPrompt}" seen, nothing sent`);
      return report('would-apply', `dry run: connected, the CLI answered with its prompt; ${commands.length} commands would be sent`);
    }

    let failure: CliFailure | undefined;
    let stuck = false;
    for (const c of commands) {
      try {
        const r = await session.run(c.text);
        if (r.error !== undefined) { failure = failureOf(c, r.error, r.output); break; }
      } catch (err) {
        failure = failureOf(c, (err as Error).message, '');
        stuck = err instanceof BoxCliError && err.kind !== 'closed';
        break;
      } finally {
        if (c.section !== 'prologue') changed = true;
      }
      detail.sent += 1;
    }
    if (!failure) {
      emit('reload', 'ok', `${detail.sent} commands accepted`);
      const id = await record('applied');
      return { ...report('applied', `applied: ${detail.sent} commands accepted by the CLI`), ...(id ? { historyId: id } : {}) };
    }

    detail.failure = failure;
    const why = `the appliance rejected ${describe(failure)}`;
    emit('reload', 'fail', why);
    if (failure.section === 'prologue' && !detail.upload) {
      return report('refused', `${why}; nothing of the configuration was sent`);
    }
    if (rollback.length === 0) {
      const id = await record('failed');
      return { ...report('failed', `${why}; the template has no rollback commands, so the ${detail.sent - prologue.length} configuration commands accepted before it stay in place`), ...(id ? { historyId: id } : {}) };
    }

    begin('restore', `${rollback.length} rollback commands`);
    const rb: NonNullable<CliApplyDetail['rollback']> = { sent: 0, total: rollback.length, errors: [] };
    detail.rollback = rb;
    if (stuck && !(await session.interrupt())) {
      emit('restore', 'fail', 'the CLI does not answer; rollback not sent');
      const id = await record('failed');
      return { ...report('failed', `${why}; the CLI stopped answering, the rollback commands were NOT sent: check the appliance`), ...(id ? { historyId: id } : {}) };
    }
    for (const c of rollback) {
      if (session.isClosed) { rb.errors.push(failureOf(c, 'the session closed before this rollback command', '')); break; }
      try {
        const r = await session.run(c.text);
        if (r.error !== undefined) rb.errors.push(failureOf(c, r.error, r.output));
        else rb.sent += 1;
      } catch (err) {
        rb.errors.push(failureOf(c, (err as Error).message, ''));
        if (err instanceof BoxCliError && err.kind === 'closed') break;
        if (!(await session.interrupt())) break;
      }
    }
    const ok = rb.errors.length === 0 && rb.sent === rb.total;
    const outcome: PushOutcome = ok ? 'rolled-back' : 'failed';
    const reason = ok
      ? `${why}; the ${rb.total} rollback commands were sent and accepted`
      : `${why}; rollback incomplete (${rb.sent} of ${rb.total} accepted; first problem: ${rb.errors[0] ? describe(rb.errors[0]) : 'not all sent'}): check the appliance`;
    emit('restore', ok ? 'ok' : 'fail', reason);
    const id = await record(outcome);
    return { ...report(outcome, reason), ...(id ? { historyId: id } : {}) };
  } catch (err) {
    const msg = redact(err instanceof Error ? err.message : String(err));
    emit(step, 'fail', msg);
    if (!changed) return report('refused', msg);
    return report('failed', `${msg} after the appliance was changed: check it`);
  } finally {
    detail.transcript = session?.transcript ?? '';
    session?.close();
    if (conn && !opts.connection) conn.close();
  }
}
