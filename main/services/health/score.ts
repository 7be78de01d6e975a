// The 1-10 score (LDAP proxy seed 002): ranks members that share a state. Formula in docs/health.md.
import type { MemberState } from '../../../shared/api/types';

export interface ScoreInput {
  state: MemberState;
  rttMs?: number;
  consecutiveFailures: number;
  degradedAbove?: number;
  timeoutMs: number;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * available:   10 − ⌊4 · min(1, rtt / ref)⌋ − min(2, failures)                 → 4..10
 *              ref = degradedAbove, or the timeout when there is none
 * degraded:    5 − ⌊3 · clamp((rtt − degradedAbove) / (timeout − degradedAbove))⌋ − min(1, failures), at least 2
 * otherwise:   1 (unavailable, unknown, disabled)
 */
export function scoreOf(i: ScoreInput): number {
  const rtt = i.rttMs ?? 0;
  if (i.state === 'available') {
    const ref = i.degradedAbove ?? i.timeoutMs;
    return 10 - Math.floor(4 * clamp01(ref > 0 ? rtt / ref : 0)) - Math.min(2, i.consecutiveFailures);
  }
  if (i.state === 'degraded') {
    const d = i.degradedAbove ?? 0;
    const span = i.timeoutMs - d;
    const slow = span > 0 ? clamp01((rtt - d) / span) : 1;
    return Math.max(2, 5 - Math.floor(3 * slow) - Math.min(1, i.consecutiveFailures));
  }
  return 1;
}
