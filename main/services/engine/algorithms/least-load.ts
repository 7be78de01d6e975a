// IPFE least load (seed 003). Each server's load
//   L = (Fm * m/mtotal + Fc * c/ctotal) * Whigh / w
// with Fm + Fc normalised to 100, m/mtotal its reserved/total messages per second, c/ctotal
// its connections (plus the rate of new ones, to smooth a flood) over its connection
// capacity, w its weight and Whigh the highest weight in the target set's list.
// Servers whose L is within the allowed deviation (percentage points) of the lowest share new
// connections by weighted round-robin; otherwise the least loaded one takes it.
// Peer-node awareness first drops servers whose count of connections from the client's peer
// node group is D or more above the lowest count.
import type { Candidate, Memory } from './types';
import { smoothWeighted } from './weighted';

export interface LoadCandidate extends Candidate {
  /** Messages per second now (reserved ingress MPS). */
  readonly m: number;
  readonly mtotal: number;
  /** Connections now, the rate of new connections (per second) included. */
  readonly c: number;
  readonly ctotal: number;
}

export interface LeastLoadParams {
  /** MPS factor Fm, 0-100. */
  fm: number;
  /** Connection count factor Fc, 0-100. */
  fc: number;
  /** Allowed deviation, percentage points of L (0-50). */
  deviation: number;
  /** The highest weight in the target set's IP list (configured servers, not just the usable ones). */
  whigh: number;
}

/** Fm and Fc scaled so they sum to 100 (both 0 counts as equal factors). */
export function normaliseFactors(fm: number, fc: number): { fm: number; fc: number } {
  const sum = fm + fc;
  if (sum <= 0) return { fm: 50, fc: 50 };
  return { fm: (100 * fm) / sum, fc: (100 * fc) / sum };
}

export function loadOf(c: LoadCandidate, p: Pick<LeastLoadParams, 'fm' | 'fc' | 'whigh'>): number {
  if (c.weight <= 0) return Infinity;
  const f = normaliseFactors(p.fm, p.fc);
  const mFrac = c.mtotal > 0 ? c.m / c.mtotal : 0;
  const cFrac = c.ctotal > 0 ? c.c / c.ctotal : 0;
  return (f.fm * mFrac + f.fc * cFrac) * (p.whigh / c.weight);
}

/** The servers within the allowed deviation of the least loaded one (at least that one). */
export function withinDeviation<T extends LoadCandidate>(cands: readonly T[], p: LeastLoadParams): T[] {
  const loads = cands.map((c) => loadOf(c, p));
  const min = Math.min(...loads);
  if (!Number.isFinite(min)) return [];
  return cands.filter((_, i) => loads[i] === min || loads[i]! - min < p.deviation);
}

export function leastLoad<T extends LoadCandidate>(cands: readonly T[], p: LeastLoadParams, mem: Memory): T | undefined {
  const near = withinDeviation(cands, p);
  if (near.length <= 1) {
    const only = near[0];
    if (only) mem.last = only.index;
    return only;
  }
  return smoothWeighted(near, mem);
}

/**
 * Peer node aware spreading: keep the servers whose count of connections from this peer node
 * group is less than D above the lowest count (D = 1: only the lowest). D = 0 filters nothing.
 */
export function peerSpread<T extends Candidate>(cands: readonly T[], groupCount: (c: T) => number, threshold: number): T[] {
  if (threshold <= 0 || cands.length <= 1) return [...cands];
  const counts = cands.map(groupCount);
  const min = Math.min(...counts);
  return cands.filter((_, i) => counts[i]! - min < threshold);
}
