// Bounded client traffic for a compare run: one new connection every `gapMs` per service, from
// rotating loopback source addresses (persistence and hashing see many clients), each asking
// once and reading who answered. Stops at `stop()`; never more than `maxInFlight` open.
import net from 'node:net';
import { MARKER } from './backends';

export interface Outcome {
  at: number;
  /** Backend id that answered, or undefined with `error`. */
  backend?: string;
  error?: string;
}

const CLIENT_NET = '127.88.2.';
const CLIENTS = 64;

function once(address: string, port: number, source: string, deadlineMs: number): Promise<Outcome> {
  const at = performance.now();
  return new Promise((resolve) => {
    let got = '';
    let done = false;
    const finish = (o: Omit<Outcome, 'at'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ at, ...o });
    };
    const s = net.connect({ host: address, port, localAddress: source });
    const timer = setTimeout(() => finish({ error: 'timeout' }), deadlineMs);
    s.on('connect', () => s.write('GET / HTTP/1.0\r\n\r\n'));
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      const m = new RegExp(`${MARKER}(\\S+)`).exec(got);
      if (m) finish({ backend: m[1]! });
    });
    s.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    s.on('close', () => finish({ error: 'closed without an answer' }));
  });
}

export class Traffic {
  readonly outcomes: Outcome[] = [];
  private timer?: NodeJS.Timeout;
  private inFlight = 0;
  private readonly pending = new Set<Promise<void>>();
  private n = 0;

  constructor(private readonly address: string, private readonly port: number, private readonly gapMs: number, private readonly deadlineMs: number, private readonly maxInFlight = 64) {}

  start(): void {
    this.timer = setInterval(() => this.fire(), this.gapMs);
  }

  private fire(): void {
    if (this.inFlight >= this.maxInFlight) return;
    this.inFlight += 1;
    const source = `${CLIENT_NET}${(this.n++ % CLIENTS) + 1}`;
    const p = once(this.address, this.port, source, this.deadlineMs).then((o) => {
      this.outcomes.push(o);
      this.inFlight -= 1;
    });
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Stops starting connections and waits (bounded by the deadline) for those open. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.pending);
  }
}
