// Push to a box whose own tool applies a batch file (driver pingdirectory: `bin/dsconfig
// --no-prompt --batch-file`), over SSH exec: read the running config with the driver's show
// script, let the driver plan the steps (each with its inverse, from this before-state), send the
// steps' commands as one batch and read the tool's result line by line. On a refused command the
// config is read again: unchanged, nothing is undone; else the inverse of the steps the tool
// took goes back as a second batch, and the config read once more must be the one before.
import type { Appliance } from '../../../../shared/model/schema';
import type { HistoryEntry, PushOutcome, PushProgress, PushStep, StepStatus } from '../../../../shared/api/sync';
import type { BatchApply, CommandPlan, CommandStep } from '../../drivers/types';
import { connectSsh, type SshConnection } from '../../ssh/connect';
import { destination, SecretRefusedError } from '../../secrets/bound';
import { secretName, secretToSend } from '../../secrets/types';
import { listHistory, recordHistory } from '../history';
import { claimPush } from '../lock';
import { shScript, tail } from '../quote';
import { syncDataDir } from '../state';
import type { CliApplyDetail, CliFailure, CliPushOptions } from './apply';
import type { CommandPushReport } from './steps';
import type { CliReadOptions } from './pull';
import { redact } from './redact';
import type { CliTarget } from './target';
import { sha256 } from '../../hash';
import { gatePlan } from './gate';

/** lbdesk's own words (names, never values): shown as they are, not through redact(). */
class PushRefused extends Error {}

const EXEC_MS = 120_000;

/** Where a batch box's config is read from, for reports and history. */
export const batchWhere = (tool: BatchApply) => `${tool.tool} (config-diff)`;

/** Runs the driver's show script: the running config as text. */
export async function showBatch(conn: SshConnection, tool: BatchApply, appliance: Appliance): Promise<string> {
  const s = tool.show(appliance);
  if ('refused' in s) throw new Error(s.refused);
  const r = await conn.exec(shScript(s.script, s.args), { timeoutMs: EXEC_MS });
  if (r.code !== 0) throw new Error(`${conn.label}: reading the configuration failed (exit ${r.code ?? r.signal}): ${redact(tail(`${r.stdout}\n${r.stderr}`))}`);
  return r.stdout.endsWith('\n') || r.stdout === '' ? r.stdout : `${r.stdout}\n`;
}

export async function pushBatch(
  target: CliTarget, appliance: Appliance, tool: BatchApply, plan: (running: string) => CommandPlan, opts: CliPushOptions = {},
): Promise<CommandPushReport> {
  const started = Date.now();
  const steps: PushProgress[] = [];
  const where = batchWhere(tool);
  const detail: CliApplyDetail = { mode: 'upload', sent: 0, total: 0, transcript: '' };
  let label = target.endpoint.host;
  let step: PushStep = 'connect';
  let planned: CommandStep[] = [];
  let before = '';
  let after = '';
  const transcript: string[] = [];
  const emit = (s: PushStep, status: StepStatus, message?: string) => {
    const e: PushProgress = { appliance: target.appliance, step: s, status, at: Date.now(), ...(message ? { message } : {}) };
    steps.push(e);
    opts.onProgress?.(e);
  };
  const begin = (s: PushStep, message?: string) => { step = s; emit(s, 'start', message); };
  const report = (outcome: PushOutcome, reason: string, historyId?: string): CommandPushReport => ({
    appliance: target.appliance, target: label, configPath: where, outcome, reason, hash: sha256(after || before),
    ...(before ? { previousHash: sha256(before) } : {}), notes: [], steps, durationMs: Date.now() - started, cli: detail,
    plan: planned, before, ...(historyId ? { historyId } : {}),
  });
  const record = async (outcome: PushOutcome, data: string) => {
    const h = await recordHistory(syncDataDir(opts.dataDir), { appliance: target.appliance, kind: 'push', data: Buffer.from(data, 'utf8'), target: label, configPath: where, outcome, workspace: target.workspace });
    return h.id;
  };
  let conn: SshConnection | undefined;
  let sentAny = false;
  let unclaim: (() => void) | undefined;
  try {
    begin('connect');
    // One push per proxy (its server root on that box) in this process, claimed before the login:
    // a second one planned from the same before-state would send commands the first already sent.
    const ep = target.endpoint;
    const show = tool.show(appliance);
    unclaim = claimPush(`${ep.user ? `${ep.user}@` : ''}${ep.host}${ep.port ? `:${ep.port}` : ''}:${'args' in show ? show.args.join(' ') : where}`);
    conn = opts.connection ?? await connectSsh(target.endpoint, opts);
    label = conn.label;
    emit('connect', 'ok', label);

    begin('inspect', 'bin/config-diff');
    before = await showBatch(conn, tool, appliance);
    const p = plan(before);
    planned = p.steps;
    after = p.after;
    const gate = gatePlan(p, emit, opts.dryRun, 'configuration');
    const { commands } = gate;
    detail.total = commands.length;
    if (gate.stop) return report(...gate.stop);

    const apply = tool.apply(appliance);
    if ('refused' in apply) throw new PushRefused(apply.refused);
    const password = await bindPassword(conn, appliance, apply.secret, opts);
    const run = async (texts: string[]) => {
      const file = tool.file(texts);
      const r = await conn!.exec(shScript(apply.script, apply.args), { stdin: `${password ?? ''}\n${file}`, timeoutMs: EXEC_MS });
      const output = `${r.stdout}${r.stderr ? `\n${r.stderr}` : ''}`;
      transcript.push(redact(output));
      opts.onTranscript?.(redact(output));
      return tool.result(output, r.code ?? 1, texts);
    };

    begin('reload', `${commands.length} commands in one batch (${tool.tool})`);
    sentAny = true;
    const res = await run(commands.map((c) => c.text));
    detail.sent = res.taken;
    if (!res.failed) {
      emit('reload', 'ok', `${commands.length} commands accepted`);
      return report('applied', `${planned.length} change${planned.length === 1 ? '' : 's'} in ${commands.length} commands, applied by ${tool.tool}`, await record('applied', after));
    }
    const failure = failureAt(commands.map((c) => c.text), res.failed);
    detail.failure = failure;
    const why = `the proxy refused ${failure.lineNumber ? `command ${failure.lineNumber} "${failure.line}"` : 'the batch'}: ${failure.error}`;
    emit('reload', 'fail', why);

    begin('restore', 'reading the configuration again');
    const now = await showBatch(conn, tool, appliance);
    if (now === before) {
      const reason = `${why}; the configuration read again is the one before the push: nothing was applied, nothing to undo`;
      emit('restore', 'ok', reason);
      return report('rolled-back', reason, await record('rolled-back', before));
    }
    // The inverse of the steps the tool took a command of, newest first.
    const took = [...new Set(commands.slice(0, res.taken).map((c) => c.step))].reverse();
    const inverse = took.flatMap((i) => planned[i]!.inverse);
    const rb: NonNullable<CliApplyDetail['rollback']> = { sent: 0, total: inverse.length, errors: [] };
    detail.rollback = rb;
    if (inverse.length) {
      const back = await run(inverse);
      rb.sent = back.taken;
      if (back.failed) rb.errors.push(failureAt(inverse, back.failed, commands.length));
    }
    const again = await showBatch(conn, tool, appliance);
    if (again === before) {
      const reason = `${why}; the inverse of the ${took.length} step${took.length === 1 ? '' : 's'} taken (${inverse.length} commands) was applied: the configuration is the one before the push`;
      emit('restore', 'ok', reason);
      return report('rolled-back', reason, await record('rolled-back', again));
    }
    const first = rb.errors[0];
    const reason = `${why}; rollback incomplete (${rb.sent} of ${rb.total} inverse commands taken${first ? `; refused: "${first.line}": ${first.error}` : ''}): the configuration differs from the one before the push, check the proxy`;
    emit('restore', 'fail', reason);
    return report('failed', reason, await record('failed', again));
  } catch (err) {
    const msg = err instanceof PushRefused ? err.message : redact(err instanceof Error ? err.message : String(err));
    emit(step, 'fail', msg);
    if (!sentAny) return report('refused', msg);
    return report('failed', `${msg} after the batch was sent: check the proxy`);
  } finally {
    detail.transcript = transcript.join('\n');
    if (!opts.connection) conn?.close();
    unclaim?.();
  }
}

function failureAt(texts: string[], f: { index?: number; message: string }, offset = 0): CliFailure {
  const line = f.index !== undefined ? redact(texts[f.index] ?? '') : '';
  return { lineNumber: f.index !== undefined ? offset + f.index + 1 : 0, line, section: offset ? 'rollback' : 'config', error: redact(f.message), output: '' };
}

/** The bind password from the secret store, bound to the proxy's LDAP port on the box's host. */
async function bindPassword(conn: SshConnection, appliance: Appliance, bound: { name: string; port: number } | undefined, opts: CliPushOptions): Promise<string | undefined> {
  if (!bound) return undefined;
  const secret = bound.name;
  let value: string | undefined;
  try {
    value = opts.secrets ? await secretToSend(opts.secrets, secretName.named(secret), destination(conn.resolved.hostName, bound.port)) : undefined;
  } catch (err) {
    if (err instanceof SecretRefusedError) throw new PushRefused(`appliance ${appliance.name}: ${err.message}`);
    throw err;
  }
  if (value === undefined) throw new PushRefused(`appliance ${appliance.name}: the bind password secret "${secret}" (dsconfig.bindSecret) is not in the secret store`);
  if (/[\r\n]/.test(value)) throw new PushRefused(`appliance ${appliance.name}: the bind password secret "${secret}" holds a line break: dsconfig reads one line from --bindPasswordFile`);
  return value;
}

/** The running config read by the show script (history keeps it as a pull unless `record: false`). */
export async function pullBatch(target: CliTarget, appliance: Appliance, tool: BatchApply, opts: CliReadOptions = {}): Promise<{ data: Buffer; target: string; entry?: HistoryEntry }> {
  const conn = opts.connection ?? await connectSsh(target.endpoint, opts);
  try {
    const data = Buffer.from(await showBatch(conn, tool, appliance), 'utf8');
    let entry: HistoryEntry | undefined;
    if (opts.record !== false) {
      const dir = syncDataDir(opts.dataDir);
      const hash = sha256(data);
      entry = (await listHistory(dir, target.appliance).catch(() => [])).filter((e) => e.hash === hash).pop()
        ?? await recordHistory(dir, { appliance: target.appliance, kind: 'pull', data, target: conn.label, configPath: batchWhere(tool) });
    }
    return { data, target: conn.label, ...(entry ? { entry } : {}) };
  } finally {
    if (!opts.connection) conn.close();
  }
}
