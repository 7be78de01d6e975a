// A bounded series of rows of numbers: the newest `capacity` rows, oldest first on read. Rows
// live in one Float64Array that grows on demand (a short session costs little) and then wraps.

export class NumRing {
  private data: Float64Array;
  /** Slot of the oldest row once the ring wrapped (0 until then). */
  private start = 0;
  private count = 0;

  constructor(readonly fields: number, readonly capacity: number, initialRows = 32) {
    this.data = new Float64Array(fields * Math.max(1, Math.min(capacity, initialRows)));
  }

  get length(): number {
    return this.count;
  }

  push(row: readonly number[]): void {
    const rows = this.data.length / this.fields;
    if (this.count < this.capacity && this.count === rows) {
      // Grow before wrapping: nothing was overwritten yet, so the rows are in order from slot 0.
      const next = new Float64Array(this.fields * Math.min(this.capacity, rows * 2));
      next.set(this.data);
      this.data = next;
    }
    let slot: number;
    if (this.count < this.capacity) {
      slot = this.count;
      this.count += 1;
    } else {
      slot = this.start;
      this.start = (this.start + 1) % this.capacity;
    }
    for (let f = 0; f < this.fields; f++) this.data[slot * this.fields + f] = row[f] ?? Number.NaN;
  }

  /** Field `f` of row `i` (0 is the oldest kept). */
  get(i: number, f: number): number {
    const slot = (this.start + i) % this.capacity;
    return this.data[slot * this.fields + f]!;
  }

  /** The newest row's field `f`, or undefined when empty. */
  last(f: number): number | undefined {
    return this.count ? this.get(this.count - 1, f) : undefined;
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
  }
}
