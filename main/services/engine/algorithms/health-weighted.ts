// Health-weighted (seed 002): available servers before degraded ones (the caller's tier), and
// among them a share that grows with the health score: smooth weighted round-robin on
// weight x score, so a score-10 server gets twice the connections of a score-5 one.
import type { Candidate, Memory } from './types';
import { smoothWeighted } from './weighted';

export function healthWeight(c: Candidate): number {
  return c.weight * Math.min(10, Math.max(1, Math.round(c.score)));
}

export function healthWeighted<T extends Candidate>(cands: readonly T[], mem: Memory): T | undefined {
  return smoothWeighted(cands, mem, healthWeight);
}
