// What the TCP and UDP data paths share inside the worker: the socket layer, event output,
// failure reports to the health checker, and a limiter so a flood of refusals is a few events.
import type { EngineEvent } from '../../../shared/api/engine';
import type { Io } from './io/types';

/** An event before it gets its timestamp. */
export type EventBody = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'ts'> : never) : never;

export interface Runtime {
  readonly io: Io;
  emit(e: EventBody): void;
  /** A connection to this member failed: the health checker checks it at once. */
  report(key: string, reason: string): void;
  /** Emits at most one event per key per second; the others are counted into the next one. */
  limited(key: string, make: (count: number) => EventBody): void;
}

const WINDOW_MS = 1000;

/** Rate limiter for repeated events (refusals, redispatches) with a count of those held back. */
export class EventLimiter {
  private readonly held = new Map<string, { last: number; count: number; make: (count: number) => EventBody }>();
  constructor(private readonly emit: (e: EventBody) => void) {}

  push(key: string, make: (count: number) => EventBody, now: number): void {
    const h = this.held.get(key);
    if (!h || now - h.last >= WINDOW_MS) {
      this.emit(make((h?.count ?? 0) + 1));
      this.held.set(key, { last: now, count: 0, make });
      return;
    }
    h.count += 1;
    h.make = make;
  }

  /** Sends what was held back once its window is over. */
  flush(now: number): void {
    for (const [key, h] of this.held) {
      if (now - h.last < WINDOW_MS) continue;
      if (h.count > 0) {
        this.emit(h.make(h.count));
        this.held.set(key, { last: now, count: 0, make: h.make });
      } else this.held.delete(key);
    }
  }
}
