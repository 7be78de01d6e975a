// A blackhole on loopback without privileges: listeners (backlog 1) in a thread whose loop is
// held in Atomics.wait, so nothing is ever accepted. Once the kernel's accept queue is full
// (filled here), Linux drops every new SYN: connects and checks time out, as with a dead host.
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';

const THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const net = require('node:net');
const flag = new Int32Array(workerData.flag);
let left = workerData.ports.length;
for (const port of workerData.ports) {
  const s = net.createServer(() => undefined);
  s.on('error', (e) => { parentPort.postMessage({ error: e.message }); process.exit(0); });
  s.listen({ host: workerData.address, port, backlog: 1, exclusive: true }, () => {
    if (--left > 0) return;
    parentPort.postMessage({ ready: true });
    Atomics.wait(flag, 0, 0);
    process.exit(0);
  });
}
`;

/** Connects that stay unanswered this long mean the queue is full. */
const FILL_WAIT_MS = 200;
const FILL_MAX = 8;

export class Blackhole {
  private constructor(private readonly worker: Worker, private readonly flag: Int32Array, private readonly fillers: Socket[]) {}

  static async start(address: string, ports: number[]): Promise<Blackhole> {
    const shared = new SharedArrayBuffer(4);
    const worker = new Worker(THREAD, { eval: true, workerData: { address, ports, flag: shared } });
    worker.unref();
    const flag = new Int32Array(shared);
    const hole = new Blackhole(worker, flag, []);
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (m: { ready?: boolean; error?: string }) => (m.ready ? resolve() : reject(new Error(`blackhole on ${address}: ${m.error}`))));
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error(`blackhole on ${address}: the thread ended`)));
    });
    for (const port of ports) await hole.fill(address, port);
    return hole;
  }

  /** Opens connections until one is left unanswered: from then on every SYN is dropped. */
  private async fill(address: string, port: number): Promise<void> {
    for (let i = 0; i < FILL_MAX; i++) {
      const s = connect({ host: address, port });
      s.on('error', () => undefined);
      const answered = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), FILL_WAIT_MS);
        s.once('connect', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!answered) {
        s.destroy();
        return;
      }
      this.fillers.push(s);
    }
  }

  /** Wakes the thread, which exits: its listeners close (queued connections are reset). */
  async close(): Promise<void> {
    for (const s of this.fillers) s.destroy();
    const ended = new Promise<void>((r) => this.worker.once('exit', () => r()));
    Atomics.store(this.flag, 0, 1);
    Atomics.notify(this.flag, 0);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2000).unref())]);
    await this.worker.terminate().catch(() => undefined);
  }
}
