// Time for the health engine: the clock and the timers it schedules checks with, in one small
// interface, so the Px sequence can be run on a fake clock to the millisecond.

/** What a timer source hands back; the real one can be unref'd (a background timer). */
export interface TimerHandle {
  unref?(): unknown;
}

export interface Clock {
  /** Epoch ms. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

export const realClock: Clock = {
  now: Date.now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};
