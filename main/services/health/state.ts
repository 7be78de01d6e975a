// The Px health-check procedure (seed 004) as a pure step function, plus the
// available/degraded hysteresis of the LDAP proxy (seed 002):
//  - first check (start-up, server enabled, check changed): pass = up at once, fail = down;
//  - up: checked every interval; a failure starts retries every retryInterval, and failAfter
//    consecutive failures take it out of service; a pass in between resets the count;
//  - down: checked every retryInterval; restoreAfter consecutive passes restore it;
//  - up means available, or degraded when the response time is above degradedAbove; a degraded
//    or restored member must answer faster than availableBelow to be available (again).
import type { CheckResult, MemberState } from '../../../shared/api/types';
import { scoreOf } from './score';
import { fmtMs } from './probes/util';

export interface Tracker {
  state: MemberState;
  consecutiveFailures: number;
  consecutivePasses: number;
  /** Last passing response time while up. */
  rttMs?: number;
  reason: string;
  since: number;
  score: number;
}

export interface StepTimers {
  interval: number;
  retryInterval: number;
  failAfter: number;
  restoreAfter: number;
  timeout: number;
}

export interface Thresholds {
  degradedAbove?: number;
  availableBelow?: number;
}

export interface Step {
  tracker: Tracker;
  /** The state before this result (differs from tracker.state on a transition). */
  from: MemberState;
  /** Nominal delay before the next check starts, measured from this check's start. */
  delayMs: number;
}

export function initialTracker(now: number, state: MemberState = 'unknown', reason = 'not checked yet'): Tracker {
  return { state, consecutiveFailures: 0, consecutivePasses: 0, reason, since: now, score: 1 };
}

const isUp = (s: MemberState) => s === 'available' || s === 'degraded';

/** available or degraded for a passing response time, with hysteresis. */
function upState(prev: MemberState, rtt: number | undefined, th: Thresholds, flagged = false): { state: 'available' | 'degraded'; note: string } {
  // The server says it is degraded (seed 002: an administrative alert): no time overrides that.
  if (flagged) return { state: 'degraded', note: '' };
  const above = th.degradedAbove;
  if (above === undefined) return { state: 'available', note: '' };
  const below = th.availableBelow ?? above;
  if (rtt === undefined) return { state: prev === 'degraded' ? 'degraded' : 'available', note: '' };
  // Promotion (degraded or unavailable -> available) takes the stricter threshold: a server
  // restored from down must not get an easier rule than a degraded one.
  if (prev === 'degraded' || prev === 'unavailable') {
    return rtt < below
      ? { state: 'available', note: `; response ${fmtMs(rtt)} below availableBelow ${fmtMs(below)}` }
      : { state: 'degraded', note: `; response ${fmtMs(rtt)} not below availableBelow ${fmtMs(below)}` };
  }
  return rtt > above ? { state: 'degraded', note: `; response ${fmtMs(rtt)} above degradedAbove ${fmtMs(above)}` } : { state: 'available', note: '' };
}

export function applyResult(prev: Tracker, r: CheckResult, timers: StepTimers, th: Thresholds, now: number): Step {
  let state: MemberState = prev.state;
  let reason: string;
  let failures = 0;
  let passes = 0;
  if (r.ok) {
    passes = prev.consecutivePasses + 1;
    if (prev.state === 'unavailable') {
      if (passes >= timers.restoreAfter) {
        const up = upState(prev.state, r.rttMs, th, r.degraded);
        state = up.state;
        reason = `${r.reason}${up.note}; restored after ${passes} consecutive pass${passes === 1 ? '' : 'es'}`;
      } else {
        reason = `${r.reason} (pass ${passes} of ${timers.restoreAfter} needed to restore)`;
      }
    } else {
      const up = upState(prev.state, r.rttMs, th, r.degraded);
      state = up.state;
      const recovered = prev.consecutiveFailures > 0 ? ` (passed again after ${prev.consecutiveFailures} failure${prev.consecutiveFailures === 1 ? '' : 's'})` : '';
      reason = `${r.reason}${up.note}${recovered}`;
    }
  } else {
    failures = prev.consecutiveFailures + 1;
    if (isUp(prev.state)) {
      if (failures >= timers.failAfter) {
        state = 'unavailable';
        reason = timers.failAfter === 1 ? r.reason : `${r.reason} after ${failures} failures`;
      } else {
        reason = `${r.reason} (failure ${failures} of ${timers.failAfter}; still in service)`;
      }
    } else {
      state = 'unavailable';
      reason = r.reason;
    }
  }
  const degradedAbove = th.degradedAbove;
  // The response time of an up member is its last passing one; a down member has none.
  const rttMs = isUp(state) ? (r.ok ? r.rttMs : prev.rttMs) : undefined;
  const tracker: Tracker = {
    state,
    consecutiveFailures: failures,
    consecutivePasses: passes,
    reason,
    since: state === prev.state ? prev.since : now,
    score: scoreOf({ state, rttMs, consecutiveFailures: failures, degradedAbove, timeoutMs: timers.timeout }),
  };
  if (rttMs !== undefined) tracker.rttMs = rttMs;
  const delayMs = isUp(state) && failures === 0 ? timers.interval : timers.retryInterval;
  return { tracker, from: prev.state, delayMs };
}
