import { describe, expect, it } from 'vitest';
import type { CheckResult, MemberState } from '../../../../shared/api/types';
import { applyResult, initialTracker, type StepTimers, type Thresholds, type Tracker } from '../../../../main/services/health/state';
import { scoreOf } from '../../../../main/services/health/score';

const T: StepTimers = { interval: 1000, retryInterval: 300, failAfter: 2, restoreAfter: 2, timeout: 2000 };
const ok = (rttMs = 5): CheckResult => ({ ok: true, rttMs, reason: 'pass', evidence: {}, at: 0 });
const bad = (reason = 'connect ECONNREFUSED'): CheckResult => ({ ok: false, reason, evidence: {}, at: 0 });

/** Feeds results in order; returns the state and the next delay after each. */
function run(results: CheckResult[], timers = T, th: Thresholds = {}, start: Tracker = initialTracker(0)) {
  let t = start;
  return results.map((r, i) => {
    const step = applyResult(t, r, timers, th, i + 1);
    t = step.tracker;
    return { state: t.state, delay: step.delayMs, reason: t.reason, score: t.score, from: step.from };
  });
}
const states = (xs: { state: MemberState }[]) => xs.map((x) => x.state);

describe('Px procedure (seed 004)', () => {
  it('first check passes: up at once, then checked every interval', () => {
    const out = run([ok()]);
    expect(out[0]).toMatchObject({ state: 'available', delay: 1000, from: 'unknown' });
  });

  it('first check fails: down at once, then checked every retryInterval', () => {
    const out = run([bad()]);
    expect(out[0]).toMatchObject({ state: 'unavailable', delay: 300, reason: 'connect ECONNREFUSED' });
  });

  it('failAfter consecutive failures take an up member out; retries come every retryInterval', () => {
    const out = run([ok(), bad(), bad()]);
    expect(states(out)).toEqual(['available', 'available', 'unavailable']);
    expect(out.map((o) => o.delay)).toEqual([1000, 300, 300]);
    expect(out[1]!.reason).toBe('connect ECONNREFUSED (failure 1 of 2; still in service)');
    expect(out[2]!.reason).toBe('connect ECONNREFUSED after 2 failures');
  });

  it('a pass between failures resets the count and returns to the interval', () => {
    const out = run([ok(), bad(), ok(), bad(), ok()]);
    expect(states(out)).toEqual(['available', 'available', 'available', 'available', 'available']);
    expect(out.map((o) => o.delay)).toEqual([1000, 300, 1000, 300, 1000]);
    expect(out[2]!.reason).toContain('passed again after 1 failure');
  });

  it('restoreAfter consecutive passes bring a down member back; a failure restarts the count', () => {
    const out = run([bad(), ok(), bad(), ok(), ok()]);
    expect(states(out)).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable', 'available']);
    expect(out.map((o) => o.delay)).toEqual([300, 300, 300, 300, 1000]);
    expect(out[1]!.reason).toBe('pass (pass 1 of 2 needed to restore)');
    expect(out[4]!.reason).toBe('pass; restored after 2 consecutive passes');
  });

  it('failAfter 1 and restoreAfter 1 act on the first result', () => {
    const t1 = { ...T, failAfter: 1, restoreAfter: 1 };
    expect(states(run([ok(), bad(), ok()], t1))).toEqual(['available', 'unavailable', 'available']);
  });

  it('since moves only on a transition', () => {
    let t = initialTracker(0);
    t = applyResult(t, ok(), T, {}, 10).tracker;
    expect(t.since).toBe(10);
    t = applyResult(t, ok(), T, {}, 20).tracker;
    t = applyResult(t, bad(), T, {}, 30).tracker;
    expect(t.since).toBe(10);
    t = applyResult(t, bad(), T, {}, 40).tracker;
    expect(t.since).toBe(40);
  });
});

describe('available / degraded hysteresis (seed 002)', () => {
  const th: Thresholds = { degradedAbove: 1000, availableBelow: 500 };

  it('slower than degradedAbove is degraded; it must beat availableBelow to be available again', () => {
    const out = run([ok(100), ok(1200), ok(700), ok(900), ok(499)], { ...T, timeout: 5000 }, th);
    expect(states(out)).toEqual(['available', 'degraded', 'degraded', 'degraded', 'available']);
    expect(out[1]!.reason).toContain('above degradedAbove 1 s');
    expect(out[4]!.reason).toContain('below availableBelow 500 ms');
  });

  it('an available member near the threshold does not flap', () => {
    const out = run([ok(900), ok(1000), ok(950), ok(600), ok(1000)], { ...T, timeout: 5000 }, th);
    expect(states(out)).toEqual(['available', 'available', 'available', 'available', 'available']);
  });

  it('without availableBelow, degradedAbove is both thresholds', () => {
    const out = run([ok(1200), ok(1000), ok(999)], { ...T, timeout: 5000 }, { degradedAbove: 1000 });
    expect(states(out)).toEqual(['degraded', 'degraded', 'available']);
  });

  it('a member restored from unavailable must beat availableBelow too, or it comes back degraded', () => {
    const t1 = { ...T, timeout: 5000, restoreAfter: 1 };
    const slow = run([bad(), ok(700), ok(499)], t1, th);
    expect(states(slow)).toEqual(['unavailable', 'degraded', 'available']);
    expect(slow[1]!.reason).toContain('not below availableBelow 500 ms');
    expect(slow[1]!.reason).toContain('restored after 1 consecutive pass');
    expect(states(run([bad(), ok(499)], t1, th))).toEqual(['unavailable', 'available']);
  });

  it('a pass from a server that flags itself degraded is degraded whatever its response time', () => {
    const flagged = { ...ok(10), degraded: true };
    expect(states(run([ok(10), flagged, flagged, ok(10)], { ...T, timeout: 5000 }, th))).toEqual(['available', 'degraded', 'degraded', 'available']);
    expect(states(run([flagged], { ...T, timeout: 5000 }, {}))).toEqual(['degraded']);
  });

  it('a degraded member still needs failAfter failures to go down', () => {
    expect(states(run([ok(1500), bad(), bad()], { ...T, timeout: 5000 }, th))).toEqual(['degraded', 'degraded', 'unavailable']);
  });

  it('without thresholds every pass is available', () => {
    expect(states(run([ok(1900)]))).toEqual(['available']);
  });
});

describe('score 1-10', () => {
  it('follows the documented formula', () => {
    const base = { consecutiveFailures: 0, timeoutMs: 5000, degradedAbove: 1000 };
    expect(scoreOf({ ...base, state: 'available', rttMs: 1 })).toBe(10);
    expect(scoreOf({ ...base, state: 'available', rttMs: 250 })).toBe(9);
    expect(scoreOf({ ...base, state: 'available', rttMs: 999 })).toBe(7);
    expect(scoreOf({ ...base, state: 'available', rttMs: 1000, consecutiveFailures: 1 })).toBe(5);
    expect(scoreOf({ ...base, state: 'available', rttMs: 1000, consecutiveFailures: 5 })).toBe(4);
    expect(scoreOf({ ...base, state: 'degraded', rttMs: 900 })).toBe(5);
    expect(scoreOf({ ...base, state: 'degraded', rttMs: 3000 })).toBe(4);
    expect(scoreOf({ ...base, state: 'degraded', rttMs: 5000, consecutiveFailures: 1 })).toBe(2);
    expect(scoreOf({ ...base, state: 'unavailable' })).toBe(1);
    expect(scoreOf({ ...base, state: 'unknown' })).toBe(1);
    // Without degradedAbove the timeout is the yardstick.
    expect(scoreOf({ state: 'available', rttMs: 2500, consecutiveFailures: 0, timeoutMs: 5000 })).toBe(8);
  });

  it('ranks a fast member above a slow one and an available one above a degraded one', () => {
    const th: Thresholds = { degradedAbove: 1000, availableBelow: 500 };
    const [fast] = run([ok(10)], { ...T, timeout: 5000 }, th);
    const [slow] = run([ok(800)], { ...T, timeout: 5000 }, th);
    const [degraded] = run([ok(1500)], { ...T, timeout: 5000 }, th);
    expect(fast!.score).toBeGreaterThan(slow!.score);
    expect(slow!.score).toBeGreaterThan(degraded!.score);
    expect(degraded!.score).toBeGreaterThan(1);
  });
});
