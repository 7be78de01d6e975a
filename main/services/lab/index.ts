// The live lab: the health checker and the forwarding engine running a workspace on this machine,
// their states and events fanned out through the contract. The one runtime behind the app's
// window, `serve --ui` and plain `serve` (which differ only in the options below).
import type { EventSink, LabSession, LabStatus, MemberEvent, UnboundListener } from '../../../shared/api/contract';
import type { AdminState } from '../../../shared/api/operate';
import type { StateChange } from '../../../shared/api/types';
import type { EngineEvent, EngineStats, FaultMeasure } from '../../../shared/api/engine';
import type { Workspace } from '../../../shared/model/schema';
import { Told } from '../../../shared/emitter';
import { ForwardingEngine, stateEvent, type EngineIo } from '../engine';
import { HealthChecker } from '../health';
import type { SecretStore } from '../secrets/types';
import { LabFaults, type Fault, type FaultLine } from './faults';
import { labScope } from './local';
import { describeUnbound, unbindable, unboundSentence } from './unbound';
import { LabPairs } from './lab-pairs';
import { runFaultLine, runScenario, type ScenarioStep } from './scenario';

const STATS_EVERY_MS = 1000;
/** What lab.session hands a window that looks late: the newest so many. */
const SESSION_CHANGES = 2000;
const SESSION_EVENTS = 500;

export interface LabOptions {
  secrets: SecretStore;
  emit: EventSink;
  /**
   * `loopback` (a window's lab): services and target sets on other addresses are left out with a
   * note, so neither a typo nor a compromised page opens a relay into a customer's network.
   * `any` (plain `lbdesk serve`, run on a machine that owns the addresses): everything is bound.
   */
  bind?: 'loopback' | 'any';
  /** Socket layer of the forwarding engine (default: its own). */
  io?: EngineIo;
  /** Data threads of the forwarding engine's native path (default 1). */
  threads?: number;
  /** How often `lab.status` goes out (default 1000 ms; 0: never, stats only when asked). */
  statusEveryMs?: number;
}

export class Lab {
  private health: HealthChecker | undefined;
  private engine: ForwardingEngine | undefined;
  private pairs: LabPairs | undefined;
  private faults: LabFaults | undefined;
  private path: string | undefined;
  private listening = new Map<string, LabStatus['listening'][number]>();
  /** Runtime errors, the last 20. */
  private notes: string[] = [];
  /** The applied configuration's notices (the engine's list, replaced at each apply). */
  private notices: string[] = [];
  private scopeNotes: string[] = [];
  private unbound: UnboundListener[] = [];
  private offs: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private changes: StateChange[] = [];
  private events: EngineEvent[] = [];
  /** Every lab event, for a scenario that runs on it. */
  /** The lab's events for a scenario run here; a listener's fault stays with it (the one Emitter). */
  private readonly told = new Told<EngineEvent>();
  private scenarioRun: AbortController | undefined;
  /** The workspace as given to the last start (a scenario's members are read against it). */
  private applied: Workspace | undefined;
  /** Members drained or in maintenance at run time (the control channel): kept through reloads until ready. */
  private admin = new Map<string, Exclude<AdminState, 'ready'>>();
  /** Workspaces applied since the lab started: a reload shows as a new number. */
  private applies = 0;

  constructor(private readonly deps: LabOptions) {}

  get running(): boolean {
    return this.engine !== undefined;
  }

  /**
   * Starts the lab, or applies the workspace to the running lab without dropping connections.
   * The forwarding engine takes it first: one it refuses (a port that cannot be bound) changes
   * nothing, health checks included, and a lab that could not start is not left half running.
   */
  async start(full: Workspace, path: string): Promise<LabStatus> {
    const { workspace, notes } = this.deps.bind === 'any' ? { workspace: full, notes: [] } : labScope(full);
    const fresh = !this.health || !this.engine;
    this.applied = full;
    if (fresh) {
      this.changes = [];
      this.events = [];
      // Checks and forwarded traffic dial a faulted member's path (faults/), not the member.
      const route = (key: string) => this.faults?.route(key);
      const health = new HealthChecker({ secrets: this.deps.secrets, route });
      const every = this.deps.statusEveryMs ?? STATS_EVERY_MS;
      const engine = new ForwardingEngine({ health, route, ...(every === 0 ? { statsIntervalMs: 0 } : {}), ...(this.deps.io ? { io: this.deps.io } : {}), ...(this.deps.threads ? { threads: this.deps.threads } : {}) });
      this.health = health;
      this.engine = engine;
      const onEvent = (e: EngineEvent) => this.onEngineEvent(e);
      this.pairs = new LabPairs({ health, emit: onEvent, route, ...(this.deps.io ? { io: this.deps.io } : {}) });
      const pairs = this.pairs;
      this.faults = new LabFaults({
        emit: onEvent,
        jitter: health.jitterFraction,
        reroute: async () => {
          await engine.reroute();
          await pairs.reroute();
        },
      });
      // One frame per member's news (lab.member): a result with the transition it made, or a
      // transition without a check. The health checker also tells a result's transition as
      // `change`, after the result: that one is already out.
      const withResult = new WeakSet<object>();
      this.offs = [
        engine.on('event', onEvent),
        // The health checker sets the state before it tells about the result: `member` is already the new one.
        health.on('result', ({ key, result, change }) => {
          if (change) withResult.add(change);
          const member = health.status(key);
          const told = change && this.onChange(change);
          if (member) this.deps.emit('lab.member', { member, result, ...(told ? { change: told } : {}) });
        }),
        health.on('change', (change) => {
          if (withResult.has(change)) return;
          const member = health.status(change.key);
          const told = this.onChange(change);
          if (member) this.deps.emit('lab.member', { member, change: told });
        }),
      ];
    }
    if (fresh) await this.engine!.hold(this.heldKeys());
    // A lab that starts leaves out a service whose address another program holds (said, with the
    // holder) rather than leaving every member unknown; a running lab changes nothing on refusal.
    let served = workspace;
    const unbound: UnboundListener[] = [];
    let result = await this.engine!.apply(served, { listen: LabPairs.mainFilter(served) });
    while (!result.ok && fresh && this.deps.bind !== 'any') {
      const taken = unbindable(served, result.reason ?? '');
      if (!taken) break;
      unbound.push(await describeUnbound(taken.service, taken.why));
      served = { ...served, services: served.services.filter((x) => x !== taken.service) };
      result = await this.engine!.apply(served, { listen: LabPairs.mainFilter(served) });
    }
    const paired = result.ok ? await this.pairs!.apply(served) : result;
    if (!paired.ok) {
      const running = this.path;
      if (fresh) await this.stop();
      const raw = paired.reason ?? 'the forwarding engine refused the workspace';
      const taken = this.deps.bind === 'any' ? undefined : unbindable(served, raw);
      const reason = taken ? unboundSentence(await describeUnbound(taken.service, taken.why)) : raw;
      throw new Error(fresh || !running ? reason : `${reason}; the lab still runs ${running}, unchanged`);
    }
    this.unbound = unbound;
    // The engine said "cannot start" for each address left out: the unbound list says it in words.
    if (unbound.length) this.notes = this.notes.filter((n) => !unbound.some((u) => n.includes(`${u.address}:${u.port}`)));
    this.health!.apply(workspace, this.maintOf);
    await this.faults!.setWorkspace(workspace);
    if (fresh) {
      this.health!.start();
      const every = this.deps.statusEveryMs ?? STATS_EVERY_MS;
      if (every > 0) {
        this.timer = setInterval(() => void this.pushStatus(), every);
        this.timer.unref();
      }
    }
    this.scopeNotes = notes;
    // Notices describe the applied configuration (SCTP kept, not forwarded…): the engine gives
    // the whole list with each apply, so one from a workspace no longer applied goes away.
    this.notices = result.notices ?? [];
    this.path = path;
    this.applies += 1;
    return this.status();
  }

  /** How many workspaces this lab has applied (start and each reload). */
  get generation(): number {
    return this.applies;
  }

  async stop(): Promise<LabStatus> {
    this.scenarioRun?.abort();
    clearInterval(this.timer);
    const { engine, health, pairs, faults } = this;
    this.engine = undefined;
    this.health = undefined;
    this.pairs = undefined;
    this.faults = undefined;
    // Listened to until stopped: the `closed` events of its listeners still go out.
    await pairs?.stop();
    await engine?.stop();
    await health?.stop();
    await faults?.stop();
    this.offs.forEach((off) => off());
    this.offs = [];
    this.listening.clear();
    this.admin.clear();
    this.notes = [];
    this.notices = [];
    this.scopeNotes = [];
    this.unbound = [];
    const status = this.status();
    this.deps.emit('lab.status', status);
    return status;
  }

  status(): LabStatus {
    return {
      running: this.running,
      path: this.path,
      listening: [...this.listening.values()],
      members: this.health?.all() ?? [],
      notes: [...new Set([...this.scopeNotes, ...this.notices, ...this.notes])],
      stats: this.engine?.stats(),
      pairs: this.pairs?.status() ?? [],
      faults: this.faultList(),
      unbound: [...this.unbound],
    };
  }

  /** Stats fresh from the data path (undefined when the lab is not running). */
  async stats(): Promise<EngineStats | undefined> {
    return this.engine?.refreshStats();
  }

  /** The HA fault of the lab: stop a box of a pair (its mate takes over) or start it again. */
  async pairBox(pair: string | undefined, box: string, action: 'stop' | 'start'): Promise<LabStatus> {
    if (!this.pairs) throw new Error('the lab is not running');
    await this.pairs.box(pair, box, action);
    const status = this.status();
    this.deps.emit('lab.status', status);
    return status;
  }

  /** A fault on the lab's path to a member (docs/cli.md, "Lab faults"): `member` as `web/web1:8081`. */
  async fault(member: string, fault: Fault): Promise<LabStatus> {
    if (!this.faults) throw new Error('the lab is not running');
    await this.faults.apply(member, fault);
    return this.announce();
  }

  /** Back to the real server: one member (or every port of `group/server`), or `all`. */
  async clearFault(member: string): Promise<LabStatus> {
    if (!this.faults) throw new Error('the lab is not running');
    await this.faults.clear(member);
    return this.announce();
  }

  /**
   * A scenario file's steps (docs/cli.md, "Scenarios") played on the running lab by the runner
   * `serve --scenario` uses; each step, expectation and the summary go out as lab events.
   */
  async scenario(steps: ScenarioStep[], name: string): Promise<{ passed: number; failed: number; stopped: boolean }> {
    if (!this.running) throw new Error('the lab is not running');
    if (this.scenarioRun) throw new Error('a scenario is already running (stop it first)');
    const run = (this.scenarioRun = new AbortController());
    const say = (message: string) => this.onEngineEvent({ ts: new Date().toISOString(), type: 'notice', message });
    const counts = { passed: 0, failed: 0 };
    const target = {
      fault: (l: FaultLine) => (l.op === 'fault' ? this.fault(l.member, l.fault) : this.clearFault(l.member)),
      pairBox: (pair: string | undefined, box: string, action: 'stop' | 'start') => this.pairBox(pair, box, action),
    };
    say(`scenario ${name}: started (${steps.length} steps)`);
    try {
      await runScenario(steps, {
        exec: (line) => (say(`scenario ${name}: ${line}`), runFaultLine(target, (f) => f(), line)),
        members: () => this.health?.all() ?? [],
        events: (l) => this.told.on('event', l),
        report: (e) => (counts[e.ok ? 'passed' : 'failed']++, this.onEngineEvent(e)),
        signal: run.signal,
      });
      const { passed, failed } = counts;
      say(`scenario ${name}: ${passed} of ${passed + failed} expected transitions passed${failed ? `, ${failed} failed` : ''}`);
      return { ...counts, stopped: false };
    } catch (err) {
      const { passed, failed } = counts;
      if (!run.signal.aborted) {
        say(`scenario ${name} stopped: ${(err as Error).message}`);
        throw err;
      }
      say(`scenario ${name}: stopped before the end, ${passed} of ${passed + failed} expected transitions passed so far`);
      return { ...counts, stopped: true };
    } finally {
      this.scenarioRun = undefined;
    }
  }

  /** A member's admin state at run time (by member key): ready unless drained or in maintenance. */
  adminOf(key: string): AdminState {
    return this.admin.get(key) ?? 'ready';
  }

  /**
   * Drain (no new connections, open ones go on), maintenance (also out of health checks) or
   * ready, at once and without a reload; kept through later reloads of the workspace.
   */
  async setAdmin(keys: string[], admin: AdminState): Promise<void> {
    if (!this.engine || !this.health || !this.applied) throw new Error('the lab is not running');
    for (const k of keys) {
      if (admin === 'ready') this.admin.delete(k);
      else this.admin.set(k, admin);
    }
    await this.engine.hold(this.heldKeys());
    const workspace = this.deps.bind === 'any' ? this.applied : labScope(this.applied).workspace;
    this.health.apply(workspace, this.maintOf);
  }

  private heldKeys(): Set<string> {
    return new Set(this.admin.keys());
  }

  private readonly maintOf = (key: string) => (this.admin.get(key) === 'maint' ? 'maintenance (set on the control channel)' : undefined);

  /** The workspace the lab runs, whole (before the loopback scope). */
  get workspace(): Workspace | undefined {
    return this.running ? this.applied : undefined;
  }

  /** Stops the scenario that runs (false: none did). */
  stopScenario(): boolean {
    if (!this.scenarioRun) return false;
    this.scenarioRun.abort();
    return true;
  }

  /** Every window shows the change at once (not at the next stats tick). */
  private announce(): LabStatus {
    const status = this.status();
    this.deps.emit('lab.status', status);
    return status;
  }

  /** The faults in force, by member key. */
  faultList() {
    return this.faults?.list() ?? [];
  }

  history(key: string) {
    return this.health?.history(key) ?? { results: [], changes: [] };
  }

  /** One call for a window that looks late, whatever the number of members (not one per member). */
  session(): LabSession {
    const latest: LabSession['latest'] = [];
    for (const m of this.health?.all() ?? []) {
      const result = this.health!.lastResult(m.key);
      if (result) latest.push({ key: m.key, result });
    }
    return { changes: this.changes.slice(-SESSION_CHANGES), latest, events: [...this.events] };
  }

  /**
   * A member's transition, kept for the session and told to a scenario as a `state` event, with
   * the time a fault took to be seen beside its bound. The forwarding engines' own `state` events
   * say the same once per engine (a pair's boxes too), so they go no further.
   */
  private onChange(change: StateChange): StateChange & Partial<FaultMeasure> {
    this.changes.push(change);
    if (this.changes.length > SESSION_CHANGES * 1.5) this.changes = this.changes.slice(-SESSION_CHANGES);
    const m = this.faults?.measure(change.key, change.from, change.to, change.at);
    const told = m ? { ...change, ...m } : change;
    this.keep(stateLine({ change: told })!);
    return told;
  }

  private onEngineEvent(e: EngineEvent): void {
    if (e.type === 'state') return; // see onChange
    this.deps.emit('lab.event', e);
    this.keep(e);
  }

  /** An event for the session and a scenario, and what it says of the listeners and errors. */
  private keep(e: EngineEvent): void {
    this.told.tell(e);
    if (e.type !== 'stats') {
      this.events.push(e);
      if (this.events.length > SESSION_EVENTS * 1.5) this.events = this.events.slice(-SESSION_EVENTS);
    }
    const id = 'address' in e && 'port' in e ? `${e.address}:${e.port}` : '';
    if (e.type === 'listening') {
      const name = e.service ?? (e.targetSet !== undefined ? `target set ${e.targetSet}` : id);
      this.listening.set(`${e.protocol}/${id}`, { name, address: e.address, port: e.port, protocol: e.protocol });
    } else if (e.type === 'closed') {
      this.listening.delete(`${e.protocol}/${id}`);
    } else if (e.type === 'error') {
      this.notes = [...this.notes.slice(-19), e.message];
    }
  }

  private async pushStatus(): Promise<void> {
    if (!this.engine) return;
    await this.engine.refreshStats().catch(() => undefined);
    // Stats only: each member's news came as it happened (lab.member).
    const { members: _members, ...stats } = this.status();
    this.deps.emit('lab.status', stats);
  }
}

/** A member's transition as the line `serve` prints (a `state` event), if its frame has one. */
export function stateLine(e: Pick<MemberEvent, 'change'>): Extract<EngineEvent, { type: 'state' }> | undefined {
  const c = e.change;
  if (!c) return undefined;
  const m = c.fault !== undefined ? { fault: c.fault, detectedMs: c.detectedMs, bound: c.bound, withinBound: c.withinBound } : {};
  return { ...(stateEvent(c) as Extract<EngineEvent, { type: 'state' }>), ...m };
}
