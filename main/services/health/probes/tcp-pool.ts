// TCP Layer 4 handshakes on probe threads (tcp-worker.ts): the health checker's loop keeps the
// scheduling, the states and the evidence; the threads pay for the sockets. Requests and
// results travel in one message per loop turn each way (tcp-protocol.ts). Until a thread is ready, and if one
// fails, its probes run on the calling thread instead: a probe is never lost or failed for
// a thread's sake (that would be a false transition).
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { startWorker, workerPath } from '../../workers';
import { loadUv, NOT_PROBED, uvConnect, type UvTcp } from './tcp-connect';
import { Numbers, REQ, RES, type ProbeBatch, type ProbeReply } from './tcp-protocol';

/** status, handshake ms, and how long the probe waited for its thread before it started. */
export type Done = (status: number, ms: number, waitMs: number) => void;

interface Pending {
  address: string;
  port: number;
  timeoutMs: number;
  done: Done;
}

class Thread {
  ready = false;
  failed = false;
  readonly pending = new Map<number, Pending>();
  readonly out = new Numbers((n) => new Int32Array(n));
  /** Address → index in this thread's table; `added` are the ones it has not been sent yet. */
  readonly addressIndex = new Map<string, number>();
  added: string[] = [];

  constructor(readonly worker: Worker) {}
}

export class TcpPool {
  private readonly threads: Thread[] = [];
  private readonly uv: UvTcp | undefined = loadUv();
  private next = 0;
  private ids = 0;
  private flushing = false;
  private closed = false;

  constructor(count: number) {
    if (!this.uv) return;
    for (let i = 0; i < count; i++) this.spawn();
  }

  /** Threads that are up and taking probes. */
  get running(): number {
    return this.threads.filter((t) => t.ready && !t.failed).length;
  }

  private spawn(): void {
    let w: Worker;
    try {
      w = startWorker(workerPath('probe-worker', process.env.LBDESK_PROBE_WORKER));
    } catch {
      return; // no thread: every probe runs on the calling thread
    }
    w.unref();
    const t = new Thread(w);
    this.threads.push(t);
    w.on('message', (m: ProbeReply) => {
      if (m === 'ready') {
        t.ready = true;
        return;
      }
      for (let i = 0; i + RES <= m.length; i += RES) {
        const p = t.pending.get(m[i]!);
        if (!p) continue;
        t.pending.delete(m[i]!);
        if (m[i + 1] === NOT_PROBED) this.local(p);
        else p.done(m[i + 1]!, m[i + 2]!, m[i + 3]!);
      }
    });
    const lost = () => {
      if (t.failed) return;
      t.failed = true;
      // Whatever that thread had not answered is checked here instead.
      for (const p of t.pending.values()) this.local(p);
      t.pending.clear();
    };
    w.on('error', lost);
    w.on('exit', lost);
  }

  /** One handshake: `done(0 | errno | TIMED_OUT, ms, waitMs)`, once, never synchronously. */
  connect(address: string, port: number, timeoutMs: number, done: Done): void {
    const t = this.pick();
    if (!t) {
      this.local({ address, port, timeoutMs, done });
      return;
    }
    const id = (this.ids = (this.ids + 1) % 0x7fffffff);
    t.pending.set(id, { address, port, timeoutMs, done });
    let a = t.addressIndex.get(address);
    if (a === undefined) {
      a = t.addressIndex.size;
      t.addressIndex.set(address, a);
      t.added.push(address);
    }
    t.out.push4(id, a, port, Math.min(timeoutMs, 0x7fffffff));
    if (!this.flushing) {
      this.flushing = true;
      queueMicrotask(() => this.flush());
    }
  }

  private pick(): Thread | undefined {
    if (this.closed) return undefined;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[(this.next + i) % this.threads.length]!;
      if (t.ready && !t.failed) {
        this.next = (this.next + i + 1) % this.threads.length;
        return t;
      }
    }
    return undefined;
  }

  private flush(): void {
    this.flushing = false;
    for (const t of this.threads) {
      if (t.out.length === 0) continue;
      const req = t.out.take();
      if (t.failed) {
        for (let i = 0; i + REQ <= req.length; i += REQ) {
          const p = t.pending.get(req[i]!);
          t.pending.delete(req[i]!);
          if (p) this.local(p);
        }
        continue;
      }
      const msg: ProbeBatch = { at: performance.timeOrigin + performance.now(), addresses: t.added, req };
      t.added = [];
      t.worker.postMessage(msg, [req.buffer]);
    }
  }

  private local(p: Pending): void {
    uvConnect(this.uv!, p.address, p.port, p.timeoutMs, (status, ms) => p.done(status, ms, 0));
  }

  /** Stops the threads; probes still out on them are finished here. */
  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    await Promise.all(
      this.threads.map(async (t) => {
        const left = [...t.pending.values()];
        t.pending.clear();
        t.failed = true;
        await t.worker.terminate();
        for (const p of left) this.local(p);
      }),
    );
  }
}

