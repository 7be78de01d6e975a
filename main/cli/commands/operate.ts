// `lbdesk state | drain | maint | ready WS --appliance NAME …`: the live box's own view of each
// member, and runtime changes on it at once (no reload, no config change; main/services/operate).
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { disagreement } from '../../../shared/api/disagree';
import { formatDuration } from '../../../shared/model/duration';
import { askControl } from '../../services/lab/control';
import { syncDataDir } from '../../services/sync';
import {
  connectRuntime, MemberError, resolveMembers, runtimeDriver, runtimeDrivers, servedMembers, setAdmin,
  type AdminState, type MemberState, type Operation, type OperateContext,
} from '../../services/operate';
import { about, CliError } from '../errors';
import { durationOption, prepareForSync, sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

/** The appliance with a runtime, or exit 2 (usage: an invalid workspace is not "some member down"). */
async function context(file: string, o: SshCliOptions): Promise<OperateContext> {
  const { workspace, prepared } = await prepareForSync(file, o, false).catch((err: unknown) => {
    throw err instanceof CliError && err.exitCode === 1 ? new CliError(err.message, 2) : err;
  });
  const p = prepared[0]!;
  const runtime = runtimeDriver(p.appliance.driver);
  if (!runtime) throw new CliError(`${p.appliance.name}: driver ${p.appliance.driver} has no runtime operations in lbdesk yet (${runtimeDrivers().join(', ')} have)`, 2);
  if (runtime.readsConfigFile && !p.target.configPath) throw new CliError(`${p.appliance.name}: no configPath`, 2);
  return { workspace, appliance: p.appliance, target: p.target };
}

async function connect(ctx: OperateContext, o: SshCliOptions): Promise<Operation> {
  try {
    return await connectRuntime(ctx, sshOptionsFrom(o));
  } catch (err) {
    throw new CliError(about(ctx.appliance.name, (err as Error).message), 2);
  }
}

/** A box that could not be asked (no socket, no tool, refused login) is exit 2, one line. */
async function asked<T>(ctx: OperateContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(about(ctx.appliance.name, (err as Error).message), 2);
  }
}

function label(m: MemberState): string {
  return `${m.group}/${m.server}${m.port === undefined ? '' : `:${m.port}`}`;
}

function row(m: MemberState): string {
  if (m.health === 'unknown') return `${label(m)}  unknown  ${m.why ?? ''}`;
  // A box without admin states, sessions or weights (PingDirectoryProxy's monitor) prints none.
  const words = [label(m), ...(m.admin ? [m.admin] : []), m.health, ...(m.sessions !== undefined ? [`${m.sessions} sessions`] : []), ...(m.weight !== undefined ? [`weight ${m.weight}`] : [])];
  if (m.check) words.push(m.check);
  if (m.on) words.push(`(${m.on.join(', ')})`);
  const l = m as WithLab;
  if (l.lab) words.push(`lab ${l.lab}`);
  if (l.disagree) words.push(`DISAGREE: ${l.disagree}`);
  return words.join('  ');
}

type WithLab = MemberState & { lab?: string; disagree?: string };

/**
 * `--lab SOCKET`: the control channel of a lab on this machine (`lbdesk serve WS --control
 * SOCKET`) that runs this same workspace file: each member gets its verdict and, where the box
 * and the lab disagree (the Operate view's rule), why.
 */
async function withLab(file: string, socket: string, members: MemberState[]): Promise<WithLab[]> {
  const a = await askControl(socket, { op: 'state' }).catch((err: Error) => {
    throw new CliError(`--lab ${socket}: ${err.message}`, 2);
  });
  if (!a.ok) throw new CliError(`--lab ${socket}: the lab says: ${a.error}`, 2);
  if (!('members' in a)) throw new CliError(`--lab ${socket}: not a state answer`, 2);
  if (a.workspace !== resolve(file)) throw new CliError(`--lab ${socket}: that lab runs ${a.workspace ?? 'another workspace'}, not ${resolve(file)}: no verdict to compare`, 2);
  return members.map((m) => {
    const c = a.members.find((x) => x.group === m.group && x.server === m.server && x.port === m.port);
    if (!c) return m;
    const d = disagreement(m, { state: c.state, reason: c.reason });
    return { ...m, lab: c.state, ...(d ? { disagree: d } : {}) };
  });
}

// No admin state (a box without runtime switches) is in service.
const allWell = (members: MemberState[]) => members.every((m) => (m.admin ?? 'ready') === 'ready' && (m.health === 'up' || m.health === 'no-check'));

function registerState(program: Command): void {
  const cmd = program
    .command('state')
    .description("each member's live state as the appliance itself sees it (exit 0 all ready and up, 1 some not, 2 not asked)")
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, false)
    .option('--json', 'print the state as JSON on stdout')
    .option('--lab <socket>', 'beside each member, the verdict of the lab that runs this workspace here (lbdesk serve WS --control SOCKET), and a flag where the box and the lab disagree')
    .action(async (file: string, o: SshCliOptions & { json?: boolean; lab?: string }) => {
      const ctx = await context(file, o);
      const op = await connect(ctx, o);
      try {
        const askedAt = new Date().toISOString();
        const boxSays = await asked(ctx, () => op.runtime.state(servedMembers(ctx)));
        const members = o.lab ? await withLab(file, o.lab, boxSays) : boxSays;
        const via = await op.runtime.via();
        if (o.json) {
          process.stdout.write(`${JSON.stringify({ appliance: ctx.appliance.name, driver: ctx.appliance.driver, askedAt, via, members }, null, 2)}\n`);
        } else {
          process.stderr.write(`lbdesk: ${ctx.appliance.name}: ${op.conn.label}, ${via}, at ${askedAt}\n`);
          for (const m of members) process.stdout.write(`${row(m)}\n`);
        }
        process.exitCode = allWell(members) ? 0 : 1;
      } finally {
        op.close();
      }
    });
}

interface ChangeOptions extends SshCliOptions { wait?: string }

/** `--wait`: the members' sessions, polled on the open connection, printed as they fall. */
async function waitDrained(ctx: OperateContext, op: Operation, members: ReturnType<typeof resolveMembers>, waitMs: number): Promise<void> {
  const started = Date.now();
  const last = new Map<string, number>();
  for (;;) {
    const states = await asked(ctx, () => op.runtime.state(members));
    for (const s of states) {
      const n = s.sessions ?? 0;
      if (last.get(label(s)) !== n) process.stdout.write(`${ctx.appliance.name}: ${label(s)}: ${n} session${n === 1 ? '' : 's'}\n`);
      last.set(label(s), n);
    }
    const left = states.filter((s) => (s.sessions ?? 0) > 0);
    const took = formatDuration(Date.now() - started);
    if (left.length === 0) {
      process.stdout.write(`${ctx.appliance.name}: no sessions left after ${took}\n`);
      return;
    }
    if (Date.now() - started >= waitMs) {
      const counts = left.map((s) => `${s.sessions} on ${label(s)}`).join(', ');
      throw new CliError(`${ctx.appliance.name}: --wait ${formatDuration(waitMs)} ended with sessions left: ${counts}`, 4);
    }
    await new Promise((r) => setTimeout(r, Math.min(250, Math.max(10, waitMs - (Date.now() - started)))));
  }
}

const WHAT: Record<AdminState, string> = {
  drain: 'takes no new connections (persistent clients included), open ones go on, at once, without a reload (exit 0 done, 1 refused, 2 usage or not reached, 4 --wait ended with sessions left)',
  maint: 'out of service (no traffic, no checks), at once, without a reload (exit 0 done, 1 refused, 2 usage or not reached)',
  ready: 'back in service: its checks run again and it takes traffic once they pass (exit 0 done, 1 refused, 2 usage or not reached)',
};

function registerChange(program: Command, admin: AdminState): void {
  const cmd = program
    .command(admin)
    .description(`on the running appliance: the member ${WHAT[admin]}`)
    .argument('<workspace>', 'workspace file')
    .argument('<member...>', 'GROUP/SERVER, GROUP/SERVER:PORT, or SERVER (each group it is in)');
  withSshOptions(cmd, false);
  if (admin === 'drain') cmd.option('--wait <duration>', 'return when the members have no sessions left, printing the count as it falls');
  cmd.action(async (file: string, names: string[], o: ChangeOptions) => {
    const waitMs = durationOption(o.wait, '--wait');
    const ctx = await context(file, o);
    let members;
    try {
      members = resolveMembers(ctx.workspace, names);
    } catch (err) {
      if (err instanceof MemberError) throw new CliError(err.message, 2);
      throw err;
    }
    const op = await connect(ctx, o);
    try {
      const r = await asked(ctx, () => setAdmin(ctx, op, members, admin, syncDataDir()));
      if (!r.ok) throw new CliError(`${ctx.appliance.name}: refused by the box: ${r.refused}`, 1);
      process.stdout.write(`${ctx.appliance.name}: ${admin}: ${members.map((m) => m.label).join(', ')}: done\n`);
      if (waitMs !== undefined) await waitDrained(ctx, op, members, waitMs);
    } finally {
      op.close();
    }
  });
}

export function register(program: Command): void {
  registerState(program);
  for (const admin of ['drain', 'maint', 'ready'] as const) registerChange(program, admin);
}
