// What every selection algorithm sees of a server: a snapshot of its state and counters.
import type { MemberState } from '../../../../shared/api/types';

export interface Candidate {
  /** Position in the pool's configuration order: the order round-robin walks and ties break by. */
  readonly index: number;
  readonly key: string;
  readonly weight: number;
  readonly state: MemberState;
  /** Health score 1-10, higher is better (seed 002). */
  readonly score: number;
  /** Connections open now, including those still connecting. */
  readonly active: number;
}

/** Per-pool memory an algorithm carries from one choice to the next (the only state it keeps). */
export interface Memory {
  /** Index of the last server chosen by a rotating algorithm (-1 before the first). */
  last: number;
  /** Smooth weighted round-robin: each server's current weight, by key. */
  current: Map<string, number>;
}

export function newMemory(): Memory {
  return { last: -1, current: new Map() };
}
