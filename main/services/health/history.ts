// Bounded per-member histories: the newest `size` items, oldest first on read.
import type { CheckResult } from '../../../shared/api/types';
import { tcpOutcome, type TcpNumbers } from './probes/tcp';

export class Ring<T> {
  private items: T[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  push(item: T): void {
    if (this.items.length < this.size) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.size;
  }

  toArray(): T[] {
    if (this.items.length < this.size) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }

  get length(): number {
    return this.items.length;
  }
}

const FIELDS = 4; // at, status, ms, timeoutMs

/**
 * A member's last results. A TCP Layer 4 result is kept as four numbers, since its words and
 * evidence are a function of them (tcpOutcome), and rebuilt when read; any other result is kept
 * as it is. 20,000 members with 30 results each would otherwise keep 600,000 small objects
 * alive, and marking them takes the health checker's loop away from its schedule for whole seconds.
 */
export class ResultRing {
  private readonly nums: Float64Array;
  /** Results kept as objects, by slot (made on the first one). */
  private objs: (CheckResult | undefined)[] | undefined;
  private next = 0;
  private count = 0;

  constructor(private readonly size: number) {
    this.nums = new Float64Array(size * FIELDS);
  }

  /** `tcp`: the numbers `result` was made from, when it is exactly tcpOutcome's (no extra evidence). */
  push(result: CheckResult, tcp?: TcpNumbers): void {
    const i = this.next;
    if (tcp) {
      const o = i * FIELDS;
      this.nums[o] = result.at;
      this.nums[o + 1] = tcp.status;
      this.nums[o + 2] = tcp.ms;
      this.nums[o + 3] = tcp.timeoutMs;
      if (this.objs) this.objs[i] = undefined;
    } else {
      (this.objs ??= new Array<CheckResult | undefined>(this.size))[i] = result;
    }
    this.next = (i + 1) % this.size;
    if (this.count < this.size) this.count += 1;
  }

  get length(): number {
    return this.count;
  }

  toArray(): CheckResult[] {
    const out: CheckResult[] = [];
    const first = this.count < this.size ? 0 : this.next;
    for (let k = 0; k < this.count; k++) out.push(this.at((first + k) % this.size));
    return out;
  }

  /** The newest result, if any. */
  last(): CheckResult | undefined {
    return this.count === 0 ? undefined : this.at((this.next - 1 + this.size) % this.size);
  }

  private at(i: number): CheckResult {
    const kept = this.objs?.[i];
    if (kept) return kept;
    const o = i * FIELDS;
    const outcome = tcpOutcome({ status: this.nums[o + 1]!, ms: this.nums[o + 2]!, timeoutMs: this.nums[o + 3]! });
    return { ok: outcome.ok, reason: outcome.reason, evidence: outcome.evidence, at: this.nums[o]!, ...(outcome.rttMs !== undefined ? { rttMs: outcome.rttMs } : {}) };
  }
}
