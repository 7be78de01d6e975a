// Plain round-robin: the next server after the last one chosen, in configuration order, so a
// server coming back or leaving does not reset the rotation for the others.
import type { Candidate, Memory } from './types';

/** `cands` must be in configuration (index) order. */
export function roundRobin<T extends Candidate>(cands: readonly T[], mem: Memory): T | undefined {
  if (cands.length === 0) return undefined;
  let pick = cands[0]!;
  for (const c of cands) {
    if (c.index > mem.last) {
      pick = c;
      break;
    }
  }
  mem.last = pick.index;
  return pick;
}
