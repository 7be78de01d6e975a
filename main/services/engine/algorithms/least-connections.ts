// Least connections, weighted: the server with the fewest open connections per unit of weight
// (active / weight). Ties go round-robin so equal servers share new connections.
import type { Candidate, Memory } from './types';

export function leastConnections<T extends Candidate>(cands: readonly T[], mem: Memory): T | undefined {
  let best: T | undefined;
  let tiedAfterLast: T | undefined;
  for (const c of cands) {
    if (c.weight <= 0) continue;
    // Compare active/weight without division: a.active * b.weight vs b.active * a.weight.
    const cmp = best === undefined ? -1 : c.active * best.weight - best.active * c.weight;
    if (cmp < 0) {
      best = c;
      tiedAfterLast = c.index > mem.last ? c : undefined;
    } else if (cmp === 0 && tiedAfterLast === undefined && c.index > mem.last) {
      tiedAfterLast = c;
    }
  }
  const pick = tiedAfterLast ?? best;
  if (pick) mem.last = pick.index;
  return pick;
}
