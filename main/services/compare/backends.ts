// The real servers of a compare run: one loopback TCP server per member, speaking just enough
// of its protocol for the check (HTTP and RTSP, or a mail/news/file banner), naming itself to
// clients, and able to fail on demand the ways real servers do.
import net from 'node:net';
import type { FaultKind } from '../../../shared/api/compare';

export type Personality = 'http' | 'smtp' | 'ftp' | 'pop3' | 'imap4' | 'nntp';
export type Mode = 'ok' | FaultKind;

/** How a client learns which server answered: this marker and the server's id. */
export const MARKER = 'lbdesk-backend=';

const GREETING: Record<Exclude<Personality, 'http'>, [ok: string, wrong: string, reply: string, bye: string]> = {
  smtp: ['220', '554', '250 ok', '221 bye'],
  ftp: ['220', '421', '200 ok', '221 bye'],
  pop3: ['+OK', '-ERR', '+OK', '+OK bye'],
  imap4: ['* OK', '* BYE', 'a1 OK', '* BYE logging out'],
  nntp: ['200', '502', '200 ok', '205 bye'],
};

export interface BackendOptions {
  id: string;
  address: string;
  port: number;
  personality: Personality;
  checkPath?: string;
  expect?: string;
  /** How late a slowed server answers, ms. */
  slowMs: number;
}

export class Backend {
  private server?: net.Server;
  private readonly held = new Set<net.Socket>();
  private mode: Mode = 'ok';

  constructor(readonly opts: BackendOptions) {}

  get id(): string {
    return this.opts.id;
  }

  async start(): Promise<void> {
    const server = net.createServer((s) => this.accept(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.opts.address, port: this.opts.port, backlog: 511 }, () => resolve());
    });
    this.server = server;
  }

  /** Puts the server into a failure mode, or back to `ok`. */
  async set(mode: Mode): Promise<void> {
    const was = this.mode;
    this.mode = mode;
    if (mode === 'refusing' && this.server) {
      const s = this.server;
      this.server = undefined;
      await new Promise((r) => s.close(r));
    }
    if (was === 'refusing' && mode !== 'refusing') await this.start();
    // A frozen server resumed: what it held is answered now (as a SIGCONT'd process would).
    if (was === 'stopped' && mode !== 'stopped') for (const s of [...this.held]) this.serve(s);
  }

  async close(): Promise<void> {
    for (const s of this.held) s.destroy();
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise((r) => s.close(r));
  }

  private accept(s: net.Socket): void {
    s.on('error', () => undefined);
    s.setNoDelay(true);
    if (this.mode === 'stopped') {
      // Accepted by the kernel, never answered until resumed.
      this.held.add(s);
      s.once('close', () => this.held.delete(s));
      s.pause();
      return;
    }
    this.serve(s);
  }

  private later(fn: () => void): void {
    if (this.mode === 'slowed') setTimeout(fn, this.opts.slowMs);
    else fn();
  }

  private serve(s: net.Socket): void {
    this.held.delete(s);
    s.resume();
    const p = this.opts.personality;
    if (p !== 'http') {
      const [ok, wrong, reply, bye] = GREETING[p];
      let greeted = false;
      let buf = '';
      const answer = () => {
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (/^(a1 )?(QUIT|LOGOUT)\b/i.test(line) || /^GET /.test(line)) {
            s.end(`${bye}\r\n`);
            return;
          }
          if (line) s.write(`${reply}\r\n`);
        }
      };
      this.later(() => {
        if (s.destroyed) return;
        // A server refusing service says so and closes, as 421/554/-ERR/BYE greetings do:
        // a client gets no service from it.
        if (this.mode === 'wrong-content') {
          s.end(`${wrong} service not available\r\n`);
          return;
        }
        s.write(`${ok} ${MARKER}${this.id} ready\r\n`);
        greeted = true;
        answer();
      });
      // What the client says before the greeting waits for it, as on a real server.
      s.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        if (greeted) answer();
      });
      return;
    }
    let head = '';
    s.on('data', (d: Buffer) => {
      if (head.includes('\r\n\r\n')) return;
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n') && !head.includes('\n\n')) return;
      const [method = '', target = ''] = head.split(/\s+/, 2);
      this.later(() => {
        if (s.destroyed) return;
        if (/ RTSP\/1\.0/.test(head.split('\n')[0] ?? '')) {
          s.end(`RTSP/1.0 ${this.mode === 'wrong-content' ? '500 Internal Server Error' : '200 OK'}\r\nCSeq: 1\r\n\r\n`);
          return;
        }
        let body = `${MARKER}${this.id}\n`;
        if (target === this.opts.checkPath) body = this.mode === 'wrong-content' ? `wrong content\n${body}` : `${this.opts.expect ?? 'OK'}\n${body}`;
        s.end(`HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${method === 'HEAD' ? '' : body}`);
      });
    });
  }
}
