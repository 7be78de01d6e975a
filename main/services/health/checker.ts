// The health checker ("engine" names the forwarding engine only): keeps every member's state by
// the Px procedure (state.ts), runs each member's probe on schedule with at most one check in
// flight per member and per backend server (seed 002), and keeps a bounded history of results
// and transitions with their evidence.
import { availableParallelism } from 'node:os';
import type { CheckResult, MemberKey, MemberStatus, StateChange } from '../../../shared/api/types';
import { seenAt } from '../../../shared/model/certificates';
import type { Workspace } from '../../../shared/model/schema';
import { PASSIVE_MIN_GAP_MS } from '../../../shared/model/detection';
import type { SecretStore } from '../secrets/types';
import { ResultRing, Ring } from './history';
import { memberSelector, membersOf, targetOf, type MemberSpec } from './members';
import { DEFAULT_PORTS, runProbe, type ProbeContext, type ProbeOutcome, type ProbeType } from './probes';
import { fmtMs } from './probes/util';
import { Histogram, Scheduler } from './scheduler';
import { applyResult, initialTracker, type Tracker } from './state';
import { changeOf, fixedTracker, statusOf } from './status';
import type { HealthEvents, HealthView } from './types';
import { Emitter } from '../../../shared/emitter';
import { checkMembers } from './check-once';
import { TcpPool } from './probes/tcp-pool';
import { realClock, type Clock, type TimerHandle } from './clock';

export interface HealthCheckerOptions {
  secrets: SecretStore;
  /** Clock and timers for due times, timestamps and the hung-probe sweep (default: the real ones). */
  clock?: Clock;
  /** Each delay is shortened by a random fraction up to this (0-1, default 0.1) so checks spread out. */
  jitter?: number;
  /**
   * Checks in flight across all members (default 1000, and 1000 more per probe thread: each
   * holds its own sockets); more wait their turn in due order.
   */
  maxInFlight?: number;
  /** Results and transitions kept per member (default 30 each). */
  historySize?: number;
  /** argv prefix for ping (default ['ping']). */
  pingCommand?: string[];
  /**
   * Threads that run TCP Layer 4 handshakes beside the checker's loop (default 2 with two or
   * more cores, else 0: two answer sooner than one under load, even on two cores). They start
   * once `probeThreadsFrom` members (default 1000) are checked by TCP L4: for fewer, a thread
   * costs more than it saves.
   */
  probeThreads?: number;
  probeThreadsFrom?: number;
  /** Where a member's checks connect instead of its address (the lab's fault path: services/lab/faults). */
  route?: (key: MemberKey) => string | undefined;
}

export interface CheckerStats {
  members: number;
  /** Checks started, counted as each probe ends (when a probe thread has said when it started). */
  checksStarted: number;
  inFlight: number;
  scheduled: number;
  /** Start − due in ms, the start being the probe's connect on a probe thread: p50/p99 are bucket upper bounds (1 ms buckets below 1 s). */
  lateness: { p50: number; p99: number; max: number; mean: number };
}

interface Member {
  spec: MemberSpec;
  tracker: Tracker;
  results: ResultRing;
  changes: Ring<StateChange>;
  /** Bumped when the probe changes or the member goes: a result of an older generation is dropped. */
  gen: number;
  inFlight: boolean;
  /** The next result is a first check (start-up, enabled, or check changed): pass = up at once. */
  fresh: boolean;
  due?: number;
  lastStart?: number;
  /** Why the next check comes early (a failure reported by the forwarding engine). */
  trigger?: string;
  /** A failure reported while a check was in flight: check again soon after it ends. */
  recheck?: string;
  /** The MemberStatus last handed out (frozen), rebuilt after any change. */
  view?: MemberStatus;
  /** Address and port its check goes to (targetOf). */
  target: string;
  /** Due time of a check waiting for another member's check of the same server to end. */
  waiting?: number;
}

const DEFAULT_IN_FLIGHT = 1000;
/** A probe that has not settled this long after its timeout is abandoned as failed. */
const HUNG_GRACE_MS = 2000;
/** Reported failures trigger at most one check per this long (or per retryInterval if shorter). */
const REPORT_MIN_GAP_MS = PASSIVE_MIN_GAP_MS;

const hung = (timeoutMs: number): ProbeOutcome => ({
  ok: false,
  reason: `probe did not finish within ${fmtMs(timeoutMs)} (abandoned ${fmtMs(HUNG_GRACE_MS)} later)`,
  evidence: { hung: true, timeoutMs },
});

const isProbed = (spec: MemberSpec) => !spec.disabled && !spec.problem && spec.check.type !== 'none';

export class HealthChecker extends Emitter<HealthEvents> implements HealthView {
  private readonly members = new Map<MemberKey, Member>();
  private readonly guards = new Set<{ until: number; timeoutMs: number; settle: (o: ProbeOutcome) => void }>();
  /**
   * Servers (targetOf) with a check in progress, and the members waiting for it (null while
   * nobody waits: no array per check). Seed 002: one health check at a time per backend server.
   */
  private readonly busy = new Map<string, Member[] | null>();
  /** One-off checks (checkOnce) waiting for a busy server. */
  private readonly freed = new Map<string, (() => void)[]>();
  private running = 0;
  private idle: (() => void)[] = [];
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly jitter: number;
  private readonly historySize: number;
  private sweepTimer: TimerHandle | undefined;
  private started = false;
  private tcp: TcpPool | undefined;
  /** Due → the probe's start (its connect call, on a probe thread too), per check. */
  private readonly lateness = new Histogram();

  constructor(private readonly opts: HealthCheckerOptions) {
    super();
    this.clock = opts.clock ?? realClock;
    this.now = () => this.clock.now();
    this.jitter = Math.min(Math.max(opts.jitter ?? 0.1, 0), 1);
    this.historySize = Math.max(1, opts.historySize ?? 30);
    this.scheduler = new Scheduler((key, due, done) => this.check(key, due, done), this.clock, Math.max(1, opts.maxInFlight ?? DEFAULT_IN_FLIGHT));
  }

  /** The fraction by which checks may come early (detection bounds take it in). */
  get jitterFraction(): number {
    return this.jitter;
  }

  // ---- HealthView -------------------------------------------------------------------------

  /** Read-only (frozen): the forwarding engine may ask for it on every connection. */
  status(key: MemberKey): MemberStatus | undefined {
    const m = this.members.get(key);
    return m && this.viewOf(m);
  }

  all(): MemberStatus[] {
    return [...this.members.values()].map((m) => this.viewOf(m));
  }

  private viewOf(m: Member): MemberStatus {
    m.view ??= Object.freeze(statusOf(m.spec, m.tracker));
    return m.view;
  }

  reportFailure(key: MemberKey, reason: string): void {
    const m = this.members.get(key);
    // A member already out of service learns nothing from a failed connection.
    if (!m || !isProbed(m.spec) || m.tracker.state === 'unavailable') return;
    if (m.inFlight) {
      m.recheck = reason;
      return;
    }
    this.triggerSoon(m, reason);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Adds, removes and updates members by diffing; unchanged members keep state and schedule. */
  apply(workspace: Workspace, held?: (key: MemberKey) => string | undefined): void {
    const seen = new Set<MemberKey>();
    for (const spec of membersOf(workspace, held)) {
      seen.add(spec.key);
      const m = this.members.get(spec.key);
      if (!m) this.add(spec);
      else if (m.spec.probeId !== spec.probeId) this.replaceProbe(m, spec);
      else if (m.spec.timerId !== spec.timerId) this.retime(m, spec);
      else m.spec = spec;
      if (m) m.view = undefined;
    }
    for (const [key, m] of this.members) {
      if (seen.has(key)) continue;
      m.gen += 1;
      this.scheduler.cancel(key);
      this.members.delete(key);
    }
    if (this.started) this.startThreads();
  }

  /** Probe threads, once enough members are checked by TCP L4 (they stay until stop()). */
  private startThreads(): void {
    const count = this.opts.probeThreads ?? (availableParallelism() > 1 ? 2 : 0);
    if (this.tcp || count <= 0) return;
    let tcp = 0;
    for (const m of this.members.values()) if (isProbed(m.spec) && m.spec.check.type === 'tcp') tcp++;
    if (tcp < (this.opts.probeThreadsFrom ?? 1000)) return;
    this.tcp = new TcpPool(count);
    // A check on a thread is in flight until its result is back here, well after its socket
    // has closed: without more room, results in transit would hold back the next starts.
    if (this.opts.maxInFlight === undefined) this.scheduler.maxInFlight = DEFAULT_IN_FLIGHT * (1 + count);
  }

  /** The cap on checks in flight. */
  get maxInFlight(): number {
    return this.scheduler.maxInFlight;
  }

  /** Probe threads that are up (0 until started and ready). */
  get probeThreads(): number {
    return this.tcp?.running ?? 0;
  }

  /** First checks at once for every member, then the schedule. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.startThreads();
    this.scheduler.start();
    for (const m of this.members.values()) if (isProbed(m.spec) && !m.inFlight) this.scheduleAt(m, this.now());
    this.armSweep();
  }

  /** Every 500 ms while started; a background timer (it keeps no process alive). */
  private armSweep(): void {
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweep();
      if (this.started) this.armSweep();
    }, 500);
    this.sweepTimer.unref?.();
  }

  /** Stops scheduling and waits for the checks in flight to end. */
  async stop(): Promise<void> {
    this.started = false;
    this.scheduler.stop();
    this.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    const tcp = this.tcp;
    this.tcp = undefined;
    if (this.opts.maxInFlight === undefined) this.scheduler.maxInFlight = DEFAULT_IN_FLIGHT;
    await tcp?.close();
  }

  history(key: MemberKey): { results: CheckResult[]; changes: StateChange[] } {
    const m = this.members.get(key);
    return { results: m ? m.results.toArray() : [], changes: m ? m.changes.toArray() : [] };
  }

  /** A member's newest result (without rebuilding its whole history). */
  lastResult(key: MemberKey): CheckResult | undefined {
    return this.members.get(key)?.results.last();
  }

  /** Every member's first check, once, outside the schedule (`lbdesk check`). */
  /** `onResult`: each probed member's result (its evidence and certificate), as it comes. */
  checkOnce(workspace: Workspace, group?: string, opts: { only?: (spec: MemberSpec) => boolean; onResult?: (key: MemberKey, result: CheckResult) => void } = {}): Promise<MemberStatus[]> {
    const pick = group === undefined ? () => true : memberSelector(workspace, group) ?? (() => false);
    const specs = membersOf(workspace).filter((s) => pick(s) && (opts.only?.(s) ?? true));
    const onResult = opts.onResult;
    return checkMembers(specs, (spec) => this.exclusive(targetOf(spec), () => this.probe(spec, true)), this.now, 256, onResult && ((spec, r) => onResult(spec.key, r)));
  }

  stats(): CheckerStats {
    const h = this.lateness;
    return {
      members: this.members.size,
      checksStarted: h.count,
      inFlight: this.scheduler.active,
      scheduled: this.scheduler.pending,
      lateness: { p50: h.percentile(50), p99: h.percentile(99), max: Math.round(h.max), mean: h.count ? Math.round((h.sum / h.count) * 100) / 100 : 0 },
    };
  }

  resetStats(): void {
    this.lateness.reset();
  }

  // ---- members ----------------------------------------------------------------------------

  private add(spec: MemberSpec): void {
    const now = this.now();
    const m: Member = {
      spec,
      tracker: initialTracker(now),
      results: new ResultRing(this.historySize),
      changes: new Ring(this.historySize),
      gen: 0,
      inFlight: false,
      fresh: true,
      target: targetOf(spec),
    };
    this.members.set(spec.key, m);
    const fixed = fixedTracker(spec, now);
    if (fixed) this.transition(m, fixed, now);
    else if (this.started) this.scheduleAt(m, now);
  }

  /** Address, port or check changed: the old results say nothing about the new check. */
  private replaceProbe(m: Member, spec: MemberSpec): void {
    const now = this.now();
    const wasProbed = isProbed(m.spec);
    m.spec = spec;
    m.target = targetOf(spec);
    m.gen += 1;
    m.fresh = true;
    m.trigger = undefined;
    m.recheck = undefined;
    this.scheduler.cancel(spec.key);
    m.due = undefined;
    const fixed = fixedTracker(spec, now);
    if (fixed) {
      this.transition(m, fixed, now);
      return;
    }
    if (!wasProbed) {
      // Back from "not probed": unknown until the first check says otherwise.
      this.transition(m, initialTracker(now, 'unknown', 'enabled: first check pending'), now);
    }
    // With a check of the old probe still in flight, its end schedules the new first check.
    if (this.started && !m.inFlight) this.scheduleAt(m, now);
  }

  /** Only timers changed: keep state and counters, move the next check to the new timing. */
  private retime(m: Member, spec: MemberSpec): void {
    m.spec = spec;
    if (!this.started || m.inFlight || !isProbed(spec) || m.due === undefined) return;
    const t = spec.timers;
    const up = m.tracker.state === 'available' || m.tracker.state === 'degraded';
    const delay = m.fresh ? 0 : up && m.tracker.consecutiveFailures === 0 ? t.interval : t.retryInterval;
    this.scheduleAt(m, Math.max(this.now(), (m.lastStart ?? this.now()) + delay));
  }

  private scheduleAt(m: Member, due: number): void {
    m.waiting = undefined;
    m.due = due;
    this.scheduler.schedule(m.spec.key, due);
  }

  private triggerSoon(m: Member, reason: string): void {
    const gap = Math.min(m.spec.timers.retryInterval, REPORT_MIN_GAP_MS);
    const due = Math.max(this.now(), (m.lastStart ?? Number.NEGATIVE_INFINITY) + gap);
    if (!this.started || (m.due !== undefined && m.due <= due)) return;
    m.trigger = `reported by the forwarding engine: ${reason}`;
    this.scheduleAt(m, due);
  }

  private transition(m: Member, next: Tracker, at: number): void {
    const change = this.setTracker(m, next, at);
    if (change) this.emit('change', change);
  }

  private setTracker(m: Member, next: Tracker, at: number): StateChange | undefined {
    const from = m.tracker.state;
    m.tracker = next;
    m.view = undefined;
    if (from === next.state) return undefined;
    const change = changeOf(m.spec, from, next, at);
    m.changes.push(change);
    return change;
  }


  // ---- checks -----------------------------------------------------------------------------

  private check(key: MemberKey, due: number, done: () => void): void {
    const m = this.members.get(key);
    if (!m || m.inFlight || !isProbed(m.spec)) {
      done();
      return;
    }
    const target = m.target;
    if (this.busy.has(target)) {
      // Another member's check of this server is in progress: this one starts when it ends.
      let waiters = this.busy.get(target);
      if (!waiters) this.busy.set(target, (waiters = []));
      if (!waiters.includes(m)) waiters.push(m);
      m.waiting = due;
      done();
      return;
    }
    this.busy.set(target, null);
    this.running += 1;
    const end = () => {
      this.release(target);
      done();
      if (--this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
    };
    this.runCheck(m, due).then(end, end);
  }

  /** Runs a one-off check when no other check of its server is in progress (the scheduled ones included). */
  private async exclusive<T>(target: string, run: () => Promise<T>): Promise<T> {
    while (this.busy.has(target)) {
      await new Promise<void>((resolve) => {
        const list = this.freed.get(target);
        if (list) list.push(resolve);
        else this.freed.set(target, [resolve]);
      });
    }
    this.busy.set(target, null);
    try {
      return await run();
    } finally {
      this.release(target);
    }
  }

  /** The server is free: its waiting members are due again at their own due times, in order. */
  private release(target: string): void {
    const waiters = this.busy.get(target);
    this.busy.delete(target);
    const once = this.freed.get(target);
    if (once) {
      this.freed.delete(target);
      for (const resolve of once) resolve();
    }
    if (!waiters || !this.started) return;
    for (const w of waiters) {
      const due = w.waiting;
      // Rescheduled, changed or removed meanwhile: that schedule stands.
      if (due === undefined || w.inFlight || this.members.get(w.spec.key) !== w) continue;
      this.scheduleAt(w, due);
    }
  }

  private async runCheck(m: Member, dueAt: number): Promise<void> {
    const gen = m.gen;
    const at = this.now();
    const trigger = m.trigger;
    m.trigger = undefined;
    m.due = undefined;
    m.inFlight = true;
    m.lastStart = at;
    const outcome = await this.probe(m.spec);
    this.lateness.add(at - dueAt + (outcome.waitMs ?? 0));
    m.inFlight = false;
    const current = this.members.get(m.spec.key) === m;
    if (!current) return;
    if (gen !== m.gen) {
      // The check changed while this one ran: start the new first check now.
      if (this.started && isProbed(m.spec)) this.scheduleAt(m, this.now());
      return;
    }
    const evidence = trigger ? { ...outcome.evidence, trigger } : outcome.evidence;
    const result: CheckResult = { ok: outcome.ok, reason: outcome.reason, evidence, at };
    if (outcome.rttMs !== undefined) result.rttMs = outcome.rttMs;
    if (outcome.degraded) result.degraded = true;
    if (outcome.certificate) result.certificate = seenAt(outcome.certificate, at);
    const now = this.now();
    const prev = m.fresh ? initialTracker(m.tracker.since) : m.tracker;
    const step = applyResult(prev, result, m.spec.timers, m.spec.settings, now);
    // A first check after a change starts from unknown, but an unchanged state keeps its since.
    const next = m.fresh && step.tracker.state === m.tracker.state ? { ...step.tracker, since: m.tracker.since } : step.tracker;
    m.fresh = false;
    // State first, then the result, then the transition: every listener sees the new state.
    const change = this.setTracker(m, next, now);
    // Without extra evidence a TCP result is exactly what its numbers rebuild: keep only those.
    m.results.push(result, trigger ? undefined : outcome.tcp);
    this.emit('result', { key: m.spec.key, result, ...(change ? { change } : {}) });
    if (change) this.emit('change', change);
    if (!this.started) return;
    const delay = step.delayMs * (1 - this.jitter * Math.random());
    let due = Math.max(at + delay, this.now());
    if (m.recheck) {
      const reason = m.recheck;
      m.recheck = undefined;
      const soon = Math.max(this.now(), at + Math.min(m.spec.timers.retryInterval, REPORT_MIN_GAP_MS));
      if (soon < due) {
        due = soon;
        m.trigger = `reported by the forwarding engine: ${reason}`;
      }
    }
    this.scheduleAt(m, due);
  }

  /**
   * Runs the member's probe; one that outlives its deadline by HUNG_GRACE_MS is abandoned as
   * failed. The running checker sweeps for those; a one-off check (`own`) gets its own timer.
   */
  private probe(spec: MemberSpec, own = false): Promise<ProbeOutcome> {
    const type = spec.check.type as ProbeType;
    const timeoutMs = spec.timers.timeout;
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      const guard = {
        until: this.now() + timeoutMs + HUNG_GRACE_MS,
        timeoutMs,
        settle: (o: ProbeOutcome) => {
          if (!this.guards.delete(guard)) return;
          this.clock.clearTimeout(timer);
          resolve(o);
        },
      };
      this.guards.add(guard);
      if (own) timer = this.clock.setTimeout(() => guard.settle(hung(timeoutMs)), timeoutMs + HUNG_GRACE_MS);
      // Assigned, not spread: this runs 10,000 times a second with many members.
      const ctx: ProbeContext = { address: spec.address, port: spec.port ?? DEFAULT_PORTS[type], timeoutMs, check: spec.settings, secrets: this.opts.secrets };
      const dial = this.opts.route?.(spec.key);
      if (dial !== undefined) ctx.dial = dial;
      if (this.opts.pingCommand) ctx.pingCommand = this.opts.pingCommand;
      if (this.tcp && !own) ctx.tcpThreads = this.tcp;
      runProbe(type, ctx).then(guard.settle);
    });
  }

  private sweep(): void {
    const now = this.now();
    for (const g of [...this.guards]) {
      if (g.until <= now) g.settle(hung(g.timeoutMs));
    }
  }
}
