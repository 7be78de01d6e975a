// How long the health checker can take to notice a failure or a recovery (Px seed 004), from
// resolved timers. Pure, so the renderer can show it next to the timers it comes from.
//
// The health checker's rules this follows (docs/health.md):
//  - up: a check every `interval`; after a failure, a retry every `retryInterval` until
//    `failAfter` consecutive failures take the member out;
//  - down: a check every `retryInterval` until `restoreAfter` consecutive passes restore it;
//  - the next check starts `delay` after the previous one started, but never before it ends
//    (one check in flight per member), so a gap is really max(delay, duration of the check);
//  - a check lasts at most `timeout`; a refused connection fails at once, a silent server
//    only when the timeout expires; jitter only ever shortens a delay, by up to `jitter`.

export interface DetectionTimers {
  interval: number;
  retryInterval: number;
  failAfter: number;
  restoreAfter: number;
  timeout: number;
}

export interface DetectionRange {
  /** Fastest possible, in ms (a check in flight at the fault sees it at once, the next follows one retry after that check started). */
  bestMs: number;
  /** Slowest possible, in ms (the fault happens just after a check, every check runs to its timeout). */
  worstMs: number;
}

export interface DetectionTimes {
  /** From the moment an in-service server breaks until it is taken out of service. */
  failure: DetectionRange;
  /** From the moment an out-of-service server is healthy again until it is back in service. */
  recovery: DetectionRange;
}

/**
 * Best and worst time to detect a failure and a recovery (n = failAfter or restoreAfter,
 * r = retryInterval · (1 − jitter)).
 *
 * best  = 0 when n = 1, else max(0, r − timeout) + (n − 2) · r
 * failure  worst = max(interval, timeout) + (failAfter − 1) · max(retryInterval, timeout) + timeout
 * recovery worst = restoreAfter · max(retryInterval, timeout) + timeout
 *
 * Best: the first deciding check is one that started up to `timeout` before the fault (or the
 * repair) and completes just after it (a frozen server resumed, a dialogue cut short); the next
 * one is due `r` after that check started, so the first gap can shrink by up to the timeout.
 * In the worst failure case the fault comes just after a passing check started, so the first
 * failing check starts a full interval later (or when that check ends, if it ran longer), and
 * every failing check runs to its timeout. In the worst recovery case the server heals just
 * after a check started that still times out, and every passing check may itself take up to
 * the timeout (a UDP Layer 4 pass always does: silence is the pass).
 */
export function detectionTimes(timers: DetectionTimers, jitter = 0): DetectionTimes {
  const { interval, retryInterval, failAfter, restoreAfter, timeout } = timers;
  const shrink = 1 - Math.min(Math.max(jitter, 0), 1);
  const slowRetry = Math.max(retryInterval, timeout);
  const r = retryInterval * shrink;
  const best = (n: number) => (n <= 1 ? 0 : Math.round(Math.max(0, r - timeout) + (n - 2) * r));
  return {
    failure: {
      bestMs: best(failAfter),
      worstMs: Math.max(interval, timeout) + (failAfter - 1) * slowRetry + timeout,
    },
    recovery: {
      bestMs: best(restoreAfter),
      worstMs: restoreAfter * slowRetry + timeout,
    },
  };
}

/**
 * A failed forwarded connection (passive detection) brings a member's next check forward, at
 * most one early check per min(retryInterval, this) since the last one started. The health
 * checker schedules by it; the bounds below follow from it.
 */
export const PASSIVE_MIN_GAP_MS = 1000;

/** Every way a member changes state, with its bounds (docs/health.md, "The procedure"). */
export interface DetectionWays {
  /** The first check (lab start, member enabled or added, check changed) decides at once. */
  startup: DetectionRange;
  /** Scheduled checks alone. */
  active: DetectionTimes;
  /**
   * Out of service while forwarded connections keep failing: checks come every
   * min(retryInterval, 1 s) (one in flight), so failAfter of them, the first at once at best.
   */
  passive: DetectionRange;
}

export function detectionWays(timers: DetectionTimers, jitter = 0): DetectionWays {
  const { failAfter, timeout } = timers;
  const gap = Math.min(timers.retryInterval, PASSIVE_MIN_GAP_MS);
  const slow = Math.max(gap, timeout);
  return {
    startup: { bestMs: 0, worstMs: timeout },
    active: detectionTimes(timers, jitter),
    passive: { bestMs: (failAfter - 1) * gap, worstMs: failAfter * slow + timeout },
  };
}
