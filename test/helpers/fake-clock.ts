// A fake clock for the health checker's timer source: time moves only when the test says so,
// firing due timers in order, so check times can be asserted to the millisecond.
import type { Clock, TimerHandle } from '../../main/services/health';

interface Timer extends TimerHandle {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Set<Timer>();

  constructor(start = 0) {
    this.t = start;
  }

  now = (): number => this.t;

  setTimeout = (fn: () => void, ms: number): TimerHandle => {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: ++this.seq, fn, unref: () => timer };
    this.timers.add(timer);
    return timer;
  };

  clearTimeout = (handle: TimerHandle | undefined): void => {
    if (handle) this.timers.delete(handle as Timer);
  };

  /** Moves time to `to`, running every timer due on the way (those they set included) at its own time. */
  advanceTo(to: number): void {
    for (;;) {
      let next: Timer | undefined;
      for (const x of this.timers) if (x.at <= to && (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq))) next = x;
      if (!next) break;
      this.timers.delete(next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, to);
  }

  advance(ms: number): void {
    this.advanceTo(this.t + ms);
  }
}
