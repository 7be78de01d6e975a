// What the health checker's thread and a probe thread say to each other: numbers in typed arrays,
// which cross threads as one copy (a plain array is serialised value by value). Addresses
// travel once, as strings, and are numbers after that.

/** Checker → thread: new addresses (appended to the thread's table), then requests. */
export interface ProbeBatch {
  /** Hand-off time (performance.timeOrigin + performance.now()), to measure each probe's wait. */
  at: number;
  /** Addresses new to this thread: their indexes follow the ones it already has. */
  addresses: string[];
  /** REQ fields per probe. */
  req: Int32Array;
}
/** id, address index, port, timeout ms. */
export const REQ = 4;

/** Thread → checker: RES fields per probe; or 'ready' once, at start. */
export type ProbeReply = Float64Array | 'ready';
/** id, status, handshake ms, wait ms. */
export const RES = 4;

/** A growable Int32Array / Float64Array builder. */
export class Numbers<T extends Int32Array | Float64Array> {
  private buf: T;
  length = 0;

  constructor(private readonly make: (n: number) => T) {
    this.buf = make(1024);
  }

  push4(a: number, b: number, c: number, d: number): void {
    if (this.length + 4 > this.buf.length) {
      const bigger = this.make(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    const b0 = this.buf;
    const i = this.length;
    b0[i] = a;
    b0[i + 1] = b;
    b0[i + 2] = c;
    b0[i + 3] = d;
    this.length = i + 4;
  }

  /** The numbers so far, as a new array (to transfer), and empty again. */
  take(): T {
    const out = this.buf.slice(0, this.length) as T;
    this.length = 0;
    return out;
  }
}
