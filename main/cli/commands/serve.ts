// `lbdesk serve WS [--events] [--stats N] [--ui [--ui-port P]]`: the health checker and the
// forwarding engine on the workspace's services and target sets until SIGINT/SIGTERM (exit 0). SIGHUP
// re-reads WS and applies it without dropping established connections; an invalid file keeps
// the running config (a `reload` event with ok false says why). `--control PATH`: the control
// channel (services/lab/control.ts) for `lbdesk state|drain|maint|ready` on this box.
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { EngineEvent, EngineStats } from '../../../shared/api/engine';
import type { MemberEvent } from '../../../shared/api/contract';
import type { MemberStatus } from '../../../shared/api/types';
import { formatProblem } from '../../../shared/model/problem';
import type { Workspace } from '../../../shared/model/schema';
import { Lab, stateLine } from '../../services/lab';
import { Told } from '../../../shared/emitter';
import { listenControl } from '../../services/lab/control';
import type { FaultLine } from '../../services/lab/faults';
import { parseScenario, runFaultLine, runScenario, type ScenarioStep } from '../../services/lab/scenario';
import { MemorySecretStore } from '../../services/secrets/memory';
import { loadWorkspace, type LoadRefused } from '../../services/workspace/load';
import { CliError } from '../errors';
import { parsePort } from '../options';
import { addSecretsFromEnv, SECRETS_HELP } from '../secrets-env';
import { reportProblems } from '../workspace';

interface ServeOptions {
  events?: boolean;
  stats?: number;
  ui?: boolean;
  uiPort?: number;
  io?: 'native' | 'uv' | 'net';
  threads?: number;
  scenario?: string;
  control?: string;
}

/** What serve drives: its own lab, or the one behind the browser UI. */
interface Runner {
  apply(workspace: Workspace): Promise<{ ok: boolean; reason?: string }>;
  stats(): Promise<EngineStats | undefined>;
  stop(): Promise<void>;
  /** The HA fault (docs/ha.md): stop or start a box of a pair the lab runs. */
  pairBox(pair: string | undefined, box: string, action: 'stop' | 'start'): Promise<void>;
  /** A fault on the lab's path to a member, or its clear (docs/cli.md, "Lab faults"). */
  fault(line: FaultLine): Promise<void>;
  members(): MemberStatus[];
  /** The lab itself, for the control channel. */
  lab: Lab;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('run the health checker and the forwarding engine on the workspace until SIGINT/SIGTERM; SIGHUP reloads it without dropping connections')
    .argument('<workspace>', 'workspace file')
    .option('--events', 'print events as JSON lines (listening, state, reload, refused, redispatch, notice, error, stats, stopped, pair, fault, clear, expect) and read faults on stdin (stop/start BOX, fault MEMBER KIND [VALUE], clear MEMBER|all)')
    .option('--stats <seconds>', 'print per-service stats every so many seconds', (v) => positive(v, '--stats'))
    .option('--ui', 'also serve the browser UI on loopback and print its URL')
    .option('--ui-port <port>', 'port for the browser UI on 127.0.0.1 (default: a free port)', parsePort)
    .option('--control <path>', 'serve the control channel on this UNIX socket (mode 0600): lbdesk state, drain, maint and ready reach the daemon through it; drained and maintenance members stay so through SIGHUP until set ready')
    .option('--scenario <file>', 'run a scenario file (faults, clears, box stops at given times, expected transitions) start to finish, print a PASS/FAIL line per expectation, then stop: exit 0 when all passed, 1 when some failed')
    .option('--io <layer>', 'data path of the forwarding engine: native (C addon, default), or JavaScript on uv (libuv handles) or net (node:net)', (v) => {
      if (v !== 'native' && v !== 'uv' && v !== 'net') throw new CliError(`--io must be native, uv or net, not "${v}"`, 2);
      return v;
    })
    .option('--threads <n>', 'data threads of the native data path, sharing each listener\'s port (default 1)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 16) throw new CliError(`--threads must be a whole number from 1 to 16, not "${v}"`, 2);
      return n;
    })
    .addHelpText('after', `\nSCTP target sets are kept in the config but only their TCP side is forwarded locally.\n${SECRETS_HELP}`)
    .action(async (file: string, opts: ServeOptions) => {
      if (opts.uiPort !== undefined && !opts.ui) throw new CliError('--ui-port needs --ui', 2);
      const path = resolve(file);
      const loaded = await load(path, file);
      if (!('workspace' in loaded)) {
        // A file that is not there yet: say where a new site is made.
        const hint = loaded.unreadable && !existsSync(path) ? ' (to start a new site: lbdesk demo, then New workspace… in the app)' : '';
        throw new CliError(`${loaded.message}${hint}`, loaded.unreadable ? 2 : 1);
      }
      const workspace = loaded.workspace;
      const scenario = opts.scenario ? await loadScenario(opts.scenario, workspace) : undefined;
      const print = printer(opts.events === true);
      const runner = opts.ui ? await uiRunner(path, workspace, opts, print) : await directRunner(path, workspace, opts, print);
      // Signals are taken from here on: one during start-up waits for the start to finish.
      const session = supervise(runner, path, file, opts, print);
      const first = await session.run(() => runner.apply(workspace));
      if (!first.ok) {
        session.detach();
        await runner.stop();
        throw new CliError(`cannot serve ${file}: ${first.reason ?? 'refused'}`, 1);
      }
      if (opts.control) {
        const path = opts.control;
        const control = await listenControl(path, { lab: runner.lab, run: session.run }).catch(async (err: Error) => {
          session.detach();
          await runner.stop();
          throw new CliError(err.message.startsWith('--control') ? err.message : `--control ${path}: ${err.message}`, 2);
        });
        print({ ts: new Date().toISOString(), type: 'notice', message: `control channel on ${path}` });
        void session.stopped.then(() => control.close());
      }
      sayIfIdle(workspace, file, print);
      if (scenario) void playScenario(scenario, opts.scenario!, runner, session, print);
      await session.stopped;
    });
}

async function loadScenario(file: string, workspace: Workspace): Promise<ScenarioStep[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the scenario ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
  const parsed = parseScenario(text, file, workspace);
  if ('problems' in parsed) {
    for (const p of parsed.problems) process.stderr.write(`${formatProblem(p)}\n`);
    throw new CliError(`${file}: ${parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'} in the scenario; nothing was run`, 2);
  }
  return parsed.steps;
}

/** Runs the scenario once the lab is up, then stops serve: exit 0 when every expectation passed, else 1. */
async function playScenario(steps: ScenarioStep[], file: string, runner: Runner, session: Session, print: Printer): Promise<void> {
  const say = (message: string) => print({ ts: new Date().toISOString(), type: 'notice', message });
  try {
    const { passed, failed } = await runScenario(steps, {
      exec: (line) => runFaultLine(runner, session.run, line),
      members: () => runner.members(),
      events: (listener) => print.listen(listener),
      report: (e) => print(e),
    });
    say(`scenario ${file}: ${passed} of ${passed + failed} expected transitions passed${failed ? `, ${failed} failed` : ''}`);
    session.stop('scenario', failed ? 1 : 0);
  } catch (err) {
    say(`scenario ${file} stopped: ${(err as Error).message}`);
    session.stop('scenario', 1);
  }
}

/** Running with nothing to listen on looks like a hang: say so (at start and after a reload). */
function sayIfIdle(workspace: Workspace, file: string, print: (e: EngineEvent) => void): void {
  if (workspace.services.some((s) => s.enabled) || workspace.targetSets.some((t) => !t.disabled)) return;
  print({ ts: new Date().toISOString(), type: 'notice', message: `nothing to forward: ${file} has no enabled service or target set (add one, then SIGHUP to reload)` });
}

function positive(v: string, name: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new CliError(`${name} must be a whole number from 1 to 65535, not "${v}"`, 2);
  return n;
}

/**
 * The workspace, or why not: each problem on stderr; `reason` names the first ones (for a reload
 * event), `summary` closes the report.
 */
async function load(path: string, shown: string): Promise<{ workspace: Workspace } | LoadRefused> {
  const loaded = await loadWorkspace(path, { shown });
  if (!loaded.ok) {
    reportProblems(loaded);
    return loaded;
  }
  for (const p of loaded.problems) process.stderr.write(`${formatProblem(p)}\n`);
  return { workspace: loaded.workspace };
}

/** The lab behind serve: `apply` says a refusal instead of throwing it. */
function runner(lab: Lab, secrets: MemorySecretStore, path: string, stop: () => Promise<void>, onApplied = () => {}): Runner {
  return {
    async apply(next) {
      try {
        await addSecretsFromEnv(next, secrets);
        await lab.start(next, path);
        onApplied();
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: (err as Error).message };
      }
    },
    stats: () => lab.stats(),
    pairBox: async (pair, box, action) => void (await lab.pairBox(pair, box, action)),
    fault: async (line) => void (await (line.op === 'fault' ? lab.fault(line.member, line.fault) : lab.clearFault(line.member))),
    members: () => lab.status().members,
    lab,
    stop,
  };
}

/** Plain serve: the lab binding every address (this machine owns them), no status snapshots. */
async function directRunner(path: string, workspace: Workspace, opts: ServeOptions, print: (e: EngineEvent) => void): Promise<Runner> {
  const secrets = await addSecretsFromEnv(workspace, new MemorySecretStore());
  const lab = new Lab({
    secrets,
    bind: 'any',
    statusEveryMs: 0,
    ...(opts.io ? { io: opts.io } : {}),
    ...(opts.threads ? { threads: opts.threads } : {}),
    emit: (event, payload) => {
      if (event === 'lab.event') print(payload as EngineEvent);
      if (event === 'lab.member') printState(print, payload as MemberEvent);
    },
  });
  return runner(lab, secrets, path, async () => void (await lab.stop()));
}

async function uiRunner(path: string, workspace: Workspace, opts: ServeOptions, print: (e: EngineEvent) => void): Promise<Runner> {
  const { startBrowserUi } = await import('../ui');
  // The lab's checks get the same LBDESK_SECRET_<NAME> values as without --ui.
  const secrets = await addSecretsFromEnv(workspace, new MemorySecretStore());
  // The window opens the file the lab runs, not the last one opened in the app.
  const ui = await startBrowserUi({ port: opts.uiPort, secrets, startPath: resolve(path), ...(opts.io ? { io: opts.io } : {}) });
  // The window can stop and start the lab: say so, or serve would go quiet with nothing served.
  let running = false;
  let stopping = false;
  const off = ui.services.events.subscribe((e) => {
    if (e.event === 'lab.event') print(e.payload as EngineEvent);
    if (e.event === 'lab.member') printState(print, e.payload as MemberEvent);
    if (e.event !== 'lab.status' || stopping) return;
    const now = (e.payload as { running: boolean; path?: string }).running;
    if (now === running) return;
    running = now;
    const message = now
      ? `the lab was started from the window (${(e.payload as { path?: string }).path ?? path})`
      : 'the lab was stopped from the window; the UI is still served (Start the lab there, or SIGHUP here, to run it again)';
    print({ ts: new Date().toISOString(), type: 'notice', message });
  });
  print({ ts: new Date().toISOString(), type: 'ui', url: ui.url });
  // The URL on a line of its own too; with --events stdout stays JSON lines, so on stderr.
  if (opts.events) process.stderr.write(`${ui.url}\n`);
  const stop = async () => {
    stopping = true;
    off();
    await ui.close();
  };
  return runner(ui.services.lab, secrets, path, stop, () => (running = true));
}

/** Serialises start-up, reloads (SIGHUP), stats and the stop (SIGINT/SIGTERM). */
function supervise(runner: Runner, path: string, shown: string, opts: ServeOptions, print: Printer) {
  let chain: Promise<unknown> = Promise.resolve();
  let stopping = false;
  let done!: () => void;
  const stopped = new Promise<void>((r) => (done = r));
  const run = <T>(f: () => Promise<T>): Promise<T> => {
    const p = chain.then(f);
    chain = p.catch(() => undefined);
    return p;
  };
  const reload = () =>
    void run(async () => {
      if (stopping) return;
      const loaded = await load(path, shown).catch((err: Error) => ({ ok: false, unreadable: true, problems: [], reason: err.message, message: err.message }) satisfies LoadRefused);
      if (!('workspace' in loaded)) {
        print({ ts: new Date().toISOString(), type: 'reload', ok: false, reason: `${loaded.reason}; the running config is kept` });
        return;
      }
      // The engine reports the outcome as a `reload` event.
      const applied = await runner.apply(loaded.workspace);
      if (applied.ok) sayIfIdle(loaded.workspace, shown, print);
    });
  const timer = opts.stats
    ? setInterval(() => {
        void run(async () => {
          const stats = await runner.stats().catch(() => undefined);
          if (stats && !stopping) print({ ts: new Date().toISOString(), type: 'stats', stats });
        });
      }, opts.stats * 1000)
    : undefined;
  const detach = () => {
    clearInterval(timer);
    process.off('SIGHUP', reload);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  // A listener gets the signal's number too: never taken for an exit status.
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  const stop = (signal: NodeJS.Signals | 'scenario', code = 0) => {
    if (stopping) return;
    stopping = true;
    // Whatever happens while stopping, the process ends (a second signal ends it at once).
    setTimeout(() => process.exit(code), 10_000).unref();
    if (signal !== 'scenario') process.once(signal, () => process.exit(code));
    void run(async () => {
      detach();
      closeFaults();
      await runner.stop();
      print({ ts: new Date().toISOString(), type: 'stopped', reason: signal });
      process.exitCode = code;
      // Nothing of ours is left running; do not let a straggler keep the process up.
      setTimeout(() => process.exit(code), 1000).unref();
      done();
    });
  };
  process.on('SIGHUP', reload);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const closeFaults = opts.events ? faults(runner, run, print) : () => undefined;
  const detachAll = () => {
    detach();
    closeFaults();
  };
  return { run, detach: detachAll, stopped, stop };
}

type Session = ReturnType<typeof supervise>;

/**
 * `serve --events` reads faults on stdin, one per line: `stop [PAIR] BOX`, `start [PAIR] BOX`
 * (BOX: an appliance or IPFE name of a pair the lab runs), `fault MEMBER KIND [VALUE]`,
 * `clear MEMBER`, `clear all`. A bad line is an `error` event.
 */
function faults(runner: Runner, run: <T>(f: () => Promise<T>) => Promise<T>, print: (e: EngineEvent) => void): () => void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const say = (message: string) => print({ ts: new Date().toISOString(), type: 'error', message });
    void runFaultLine(runner, run, line).catch((err: Error) => say(`stdin: ${err.message}`));
  });
  // stdin at its end (or /dev/null under systemd) changes nothing.
  return () => lines.close();
}

/** Prints an event; `listen` also hands every printed event to a listener (the scenario). */
type Printer = ((e: EngineEvent) => void) & { listen(listener: (e: EngineEvent) => void): () => void };

/** JSON lines with --events; otherwise one readable line per event. */
function printer(json: boolean): Printer {
  const told = new Told<EngineEvent>();
  const print = (e: EngineEvent) => {
    const line = json ? JSON.stringify(e) : human(e);
    if (line !== undefined) process.stdout.write(`${line}\n`);
    told.tell(e);
  };
  return Object.assign(print, { listen: (l: (e: EngineEvent) => void) => told.on('event', l) });
}

/** A member's transition, which comes in its lab.member frame, as a `state` line. */
function printState(print: (e: EngineEvent) => void, e: MemberEvent): void {
  const line = stateLine(e);
  if (line) print(line);
}

function where(e: { service?: string; targetSet?: number }): string {
  return e.service ?? (e.targetSet !== undefined ? `target set ${e.targetSet}` : '-');
}

function human(e: EngineEvent): string | undefined {
  const t = e.ts.slice(11, 23);
  switch (e.type) {
    case 'listening':
      return `${t} listening  ${where(e)} on ${e.address}:${e.port}/${e.protocol}`;
    case 'closed':
      return `${t} closed     ${where(e)} on ${e.address}:${e.port}/${e.protocol}`;
    case 'state': {
      const who = e.group !== undefined ? `${e.group}/${e.server}${e.port !== undefined ? `:${e.port}` : ''}` : `target set ${e.targetSet} ${e.server}`;
      const took = e.detectedMs !== undefined && e.bound ? ` [${e.fault}: after ${e.detectedMs} ms, bound ${e.bound[0]}-${e.bound[1]} ms${e.withinBound ? '' : ' OUTSIDE THE BOUND'}]` : '';
      return `${t} state      ${who}: ${e.from} -> ${e.to} (score ${e.score}) ${e.reason}${took}`;
    }
    case 'reload':
      return `${t} reload     ${e.ok ? `ok (${e.added ?? 0} added, ${e.removed ?? 0} removed, ${e.kept ?? 0} kept)` : `failed: ${e.reason}`}`;
    case 'refused':
      return `${t} refused    ${where(e)}: ${e.reason}${e.count > 1 ? ` (${e.count} connections)` : e.client ? ` (${e.client})` : ''}`;
    case 'redispatch':
      return `${t} redispatch ${where(e)}: ${e.server} ${e.address}:${e.port} ${e.reason} -> ${e.to ?? 'refused'}${e.count > 1 ? ` (${e.count} times)` : ''}`;
    case 'notice':
      return `${t} notice     ${e.message}`;
    case 'error':
      return `${t} error      ${e.message}`;
    case 'ui':
      return `lbdesk UI (browser mode), open:\n${e.url}`;
    case 'stopped':
      return `${t} stopped    (${e.reason})`;
    case 'pair':
      return `${t} pair       ${e.pair} ${e.change} ${e.box}${e.instance !== undefined ? ` VRRP ${e.instance} [${(e.addresses ?? []).join(', ')}]` : ''}${e.from ? ` from ${e.from}` : ''}: ${e.reason}`;
    case 'fault':
      return `${t} fault      ${e.member} ${e.fault}${e.value !== undefined ? ` ${e.value}` : ''} (the lab dials ${e.via})`;
    case 'clear':
      return `${t} clear      ${e.member} (was ${e.fault})${e.reason ? `: ${e.reason}` : ''}`;
    case 'expect':
      return `${e.ok ? 'PASS' : 'FAIL'} ${e.member} ${e.state} within ${e.withinMs} ms: ${e.reason}`;
    case 'stats':
      return e.stats.pools
        .map((p) => `${t} stats      ${p.name}: ${p.active} active, ${p.total} total, ${p.refused} refused, ${p.bytesIn} B in, ${p.bytesOut} B out, ${p.errors} errors`)
        .join('\n');
  }
}
