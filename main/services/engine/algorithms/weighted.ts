// Smooth weighted round-robin (the nginx scheme): every choice adds each server's weight to its
// current value, picks the highest and takes the sum of weights off the winner. Over a cycle of
// sum(w)/gcd(w) choices each server gets exactly w/sum(w) of them (the IPFE share formula),
// interleaved rather than in bursts; weight 0 is never chosen.
import type { Candidate, Memory } from './types';

export function smoothWeighted<T extends Candidate>(
  cands: readonly T[],
  mem: Memory,
  weightOf: (c: T) => number = (c) => c.weight,
): T | undefined {
  let total = 0;
  let best: T | undefined;
  let bestCurrent = -Infinity;
  for (const c of cands) {
    const w = weightOf(c);
    if (w <= 0) continue;
    const cur = (mem.current.get(c.key) ?? 0) + w;
    mem.current.set(c.key, cur);
    total += w;
    if (cur > bestCurrent) {
      best = c;
      bestCurrent = cur;
    }
  }
  if (best) {
    mem.current.set(best.key, bestCurrent - total);
    mem.last = best.index;
  }
  return best;
}

/** Forget servers that left, so a returning one starts from zero instead of an old debt. */
export function pruneCurrent(mem: Memory, keys: ReadonlySet<string>): void {
  for (const k of mem.current.keys()) if (!keys.has(k)) mem.current.delete(k);
}
