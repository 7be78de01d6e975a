// Due-time scheduling for many members: one min-heap, one timer armed for the earliest due
// check, and a cap on checks in flight so a burst (start-up, 20,000 members) queues in due
// order instead of opening every socket at once. Lateness (start − due) is recorded because
// the Px manual warns that "if the CPU is swamped ... the times may stretch": the checker says by how much.
import type { Clock, TimerHandle } from './clock';

/** Checks started per tick: the loop then handles I/O (completions) before starting more. */
const BATCH = 200;

interface Entry {
  due: number;
  seq: number;
  key: string;
}

export class Scheduler {
  private heap: Entry[] = [];
  private readonly spare: Entry[] = [];
  private readonly live = new Map<string, number>();
  private seq = 0;
  private timer: TimerHandle | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  private running = false;

  /** `run` must call `done` exactly once, when the check has ended. */
  constructor(
    private readonly run: (key: string, due: number, done: () => void) => void,
    private readonly clock: Clock,
    public maxInFlight: number,
  ) {}

  private readonly done = (): void => {
    this.inFlight -= 1;
    this.arm();
  };

  get pending(): number {
    return this.live.size;
  }

  get active(): number {
    return this.inFlight;
  }

  /** (Re)schedules the key's next check; replaces any earlier schedule of the same key. */
  schedule(key: string, due: number): void {
    const seq = ++this.seq;
    this.live.set(key, seq);
    // Entries are reused: each lives a whole interval, long enough to reach the old
    // generation, where thousands a second would be garbage for the major collector.
    const e = this.spare.pop();
    if (e) {
      e.due = due;
      e.seq = seq;
      e.key = key;
      this.push(e);
    } else this.push({ due, seq, key });
    this.arm();
  }

  cancel(key: string): void {
    this.live.delete(key);
  }

  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.clock.clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private valid(e: Entry): boolean {
    return this.live.get(e.key) === e.seq;
  }

  private arm(): void {
    if (!this.running || this.immediate) return;
    while (this.heap.length > 0 && !this.valid(this.heap[0]!)) this.release(this.pop());
    const top = this.heap[0];
    if (!top || this.inFlight >= this.maxInFlight) return;
    if (this.timer && this.timerAt <= top.due) return;
    this.clock.clearTimeout(this.timer);
    this.timerAt = top.due;
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, top.due - this.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (!this.running) return;
    let now = this.clock.now();
    let started = 0;
    while (this.heap.length > 0 && this.inFlight < this.maxInFlight) {
      const top = this.heap[0]!;
      if (!this.valid(top)) {
        this.release(this.pop());
        continue;
      }
      if (top.due > now) break;
      if (started++ === BATCH) {
        this.immediate = setImmediate(() => {
          this.immediate = undefined;
          this.fire();
        });
        return;
      }
      this.pop();
      this.live.delete(top.key);
      this.inFlight += 1;
      // Starting a probe takes time too: the health checker measures lateness at each start.
      now = this.clock.now();
      const { key, due } = top;
      this.release(top);
      this.run(key, due, this.done);
    }
    this.arm();
  }

  private release(e: Entry | undefined): void {
    if (e && this.spare.length < 65_536) this.spare.push(e);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.due <= e.due) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  private pop(): Entry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && h[r]!.due < h[l]!.due ? r : l;
      if (h[c]!.due >= last.due) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
    return top;
  }
}

/** Lateness in ms: 1 ms buckets to 1 s, 100 ms buckets to 60 s. */
export class Histogram {
  private fine = new Uint32Array(1000);
  private coarse = new Uint32Array(591);
  count = 0;
  max = 0;
  sum = 0;

  add(ms: number): void {
    const v = Math.max(0, ms);
    this.count += 1;
    this.sum += v;
    if (v > this.max) this.max = v;
    if (v < 1000) this.fine[Math.floor(v)]! += 1;
    else this.coarse[Math.min(590, Math.floor((v - 1000) / 100))]! += 1;
  }

  /** Upper bound of the bucket holding the p-th percentile (0-100). */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const want = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < this.fine.length; i++) {
      seen += this.fine[i]!;
      if (seen >= want) return i + 1;
    }
    for (let i = 0; i < this.coarse.length; i++) {
      seen += this.coarse[i]!;
      if (seen >= want) return 1000 + (i + 1) * 100;
    }
    return this.max;
  }

  reset(): void {
    this.fine.fill(0);
    this.coarse.fill(0);
    this.count = 0;
    this.max = 0;
    this.sum = 0;
  }
}
