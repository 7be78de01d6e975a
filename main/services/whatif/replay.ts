// Replay: a member's recorded check results run through the health checker's own state machine
// (health/state.ts) twice — as recorded, and under other timers — to show when each state
// change would have happened and how long the member took traffic while failing.
// Under other timers the checks fall at other times: a check at t sees the member as the latest
// recorded result started at or before t left it (results are logged when they change, so a
// result holds until the next one). A pass slower than the other timeout is a failure there.
import type { ReplayChange, ReplayReport, ReplayRun, ReplayTimers } from '../../../shared/api/whatif';
import type { CheckResult, MemberState } from '../../../shared/api/types';
import { applyResult, initialTracker, type Thresholds, type Tracker } from '../health/state';

/** One recorded result: when the probe started, its outcome, and how long it took when known. */
export interface Sample {
  at: number;
  ok: boolean;
  reason: string;
  rttMs?: number;
  degraded?: boolean;
  /** How long the probe took to decide (a failure's too, when the record says). */
  durationMs?: number;
}

/** Simulated checks are bounded: a day of 100 ms checks. */
const MAX_CHECKS = 864_000;

const isUp = (s: MemberState) => s === 'available' || s === 'degraded';

interface Step { at: number; sample: Sample }

/** The result a probe at `start` would have given under `timers` (a slow pass times out). */
function probe(s: Sample, start: number, timers: ReplayTimers): { result: CheckResult; decidedAt: number } {
  const took = s.durationMs ?? s.rttMs ?? 0;
  if (took > timers.timeout) {
    const reason = s.ok ? `no answer within timeout ${timers.timeout} ms (the recorded pass took ${took} ms)` : s.reason;
    return { result: { ok: false, reason, evidence: {}, at: start }, decidedAt: start + timers.timeout };
  }
  const result: CheckResult = { ok: s.ok, reason: s.reason, evidence: {}, at: start };
  if (s.rttMs !== undefined) result.rttMs = s.rttMs;
  if (s.degraded) result.degraded = true;
  return { result, decidedAt: start + took };
}

function run(steps: readonly Step[] | ((t: number) => Sample | undefined), start: number, end: number, timers: ReplayTimers, th: Thresholds): { run: ReplayRun; states: { at: number; state: MemberState }[] } {
  let tracker: Tracker = initialTracker(start);
  const changes: ReplayChange[] = [];
  const states: { at: number; state: MemberState }[] = [{ at: start, state: 'unknown' }];
  let checks = 0;
  const take = (sample: Sample, at: number) => {
    const { result, decidedAt } = probe(sample, at, timers);
    const step = applyResult(tracker, result, timers, th, decidedAt);
    tracker = step.tracker;
    checks += 1;
    if (step.tracker.state !== step.from) {
      changes.push({ at: decidedAt, from: step.from, to: tracker.state, reason: tracker.reason });
      states.push({ at: decidedAt, state: tracker.state });
    }
    return step.delayMs;
  };
  if (typeof steps === 'function') {
    for (let t = start; t <= end && checks < MAX_CHECKS;) {
      const s = steps(t);
      if (!s) break;
      t += take(s, t);
    }
  } else for (const s of steps) take(s.sample, s.at);
  return { run: { timers, checks, changes, servedWhileFailingMs: 0, outWhilePassingMs: 0, failures: [] }, states };
}

/** Time in service while failing, out of service while passing, and each failure's detection. */
function measure(r: ReplayRun, states: { at: number; state: MemberState }[], samples: readonly Sample[], end: number): ReplayRun {
  const stateAt = (t: number) => {
    let s: MemberState = 'unknown';
    for (const x of states) if (x.at <= t) s = x.state;
    return s;
  };
  const cuts = [...new Set([...samples.map((s) => s.at), ...states.map((s) => s.at), end])].filter((t) => t <= end).sort((a, b) => a - b);
  let condition: boolean | undefined;
  let si = 0;
  for (let i = 0; i < cuts.length - 1; i++) {
    const t = cuts[i]!;
    while (si < samples.length && samples[si]!.at <= t) condition = samples[si++]!.ok;
    const dt = cuts[i + 1]! - t;
    const state = stateAt(t);
    if (condition === false && isUp(state)) r.servedWhileFailingMs += dt;
    if (condition === true && state === 'unavailable') r.outWhilePassingMs += dt;
  }
  // A failure begins with a failed result after a pass (or the first result) and ends at the next pass.
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s.ok || (i > 0 && !samples[i - 1]!.ok)) continue;
    const next = samples.slice(i + 1).find((x) => x.ok)?.at ?? Infinity;
    const detected = isUp(stateAt(s.at)) || i === 0
      ? r.changes.find((c) => c.to === 'unavailable' && c.at >= s.at && c.at < next)?.at
      : s.at;
    r.failures.push({ began: s.at, ...(detected !== undefined ? { detected, afterMs: detected - s.at } : {}) });
  }
  return r;
}

export function replay(opts: { member: string; source: string; samples: readonly Sample[]; recorded: ReplayTimers; other: ReplayTimers; thresholds: Thresholds }): ReplayReport {
  const samples = [...opts.samples].sort((a, b) => a.at - b.at);
  if (!samples.length) throw new Error('the history has no check results');
  const start = samples[0]!.at;
  // The trace ends when its last probe decided.
  const last = samples.at(-1)!;
  const end = last.at + (last.durationMs ?? last.rttMs ?? 0);
  const recorded = run(samples.map((sample) => ({ at: sample.at, sample })), start, end, opts.recorded, opts.thresholds);
  const at = (t: number) => {
    let found: Sample | undefined;
    for (const s of samples) if (s.at <= t) found = s; else break;
    return found;
  };
  const replayed = run(at, start, end, opts.other, opts.thresholds);
  return {
    member: opts.member,
    source: opts.source,
    results: samples.length,
    start,
    end,
    recorded: measure(recorded.run, recorded.states, samples, end),
    replayed: measure(replayed.run, replayed.states, samples, end),
  };
}
