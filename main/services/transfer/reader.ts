// Buffered reads from an exec channel for the SCP protocol: a byte, a line, exactly n bytes,
// each with an idle deadline, and a clear error when the channel ends first.
import type { ClientChannel } from 'ssh2';
import { TransferError } from './types';

export class ChannelReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  private closedFlag = false;
  private wake?: () => void;
  stderr = '';
  exitCode: number | null | undefined;

  constructor(readonly channel: ClientChannel, private readonly label: string, private readonly timeoutMs: number) {
    channel.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.length += d.length;
      this.wake?.();
    });
    channel.stderr.on('data', (d: Buffer) => {
      if (this.stderr.length < 16_384) this.stderr += d.toString('utf8');
      this.wake?.();
    });
    channel.on('exit', (code: number | null) => { this.exitCode = code; });
    // A cut connection surfaces as `close`; an `error` event alone must not crash the process.
    channel.on('error', () => { this.ended = true; this.wake?.(); });
    channel.on('end', () => { this.ended = true; this.wake?.(); });
    channel.on('close', () => { this.ended = true; this.closedFlag = true; this.wake?.(); });
  }

  get closed(): boolean { return this.closedFlag; }

  /** Waits until `ready()` holds; the deadline restarts whenever data arrives. */
  private async until(ready: () => boolean, what: string): Promise<void> {
    while (!ready()) {
      if (this.ended) {
        const why = this.stderr.trim().split('\n').pop();
        throw new TransferError('closed', `${this.label}: channel closed while waiting for ${what}${why ? `: ${why}` : ''}`);
      }
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.wake = undefined;
          reject(new TransferError('timeout', `${this.label}: no ${what} within ${this.timeoutMs} ms`));
        }, this.timeoutMs);
        this.wake = () => { clearTimeout(timer); this.wake = undefined; resolve(); };
      });
    }
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift(); else this.chunks[0] = first.subarray(n);
      this.length -= n;
      return out;
    }
    const all = Buffer.concat(this.chunks, this.length);
    const out = all.subarray(0, n);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.length -= n;
    return out;
  }

  async byte(what = 'a reply'): Promise<number> {
    await this.until(() => this.length >= 1, what);
    return this.take(1)[0]!;
  }

  /** One line without its `\n` (bounded: a protocol line is short). */
  async line(what = 'a protocol line', max = 4096): Promise<string> {
    let at = -1;
    await this.until(() => {
      if (this.length === 0) return false;
      const head = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
      if (this.chunks.length > 1) this.chunks = [head];
      at = head.indexOf(0x0a);
      if (at < 0 && head.length > max) throw new TransferError('protocol', `${this.label}: protocol line longer than ${max} bytes`);
      return at >= 0;
    }, what);
    return this.take(at + 1).subarray(0, at).toString('utf8');
  }

  async exact(n: number, what: string, onProgress?: (got: number) => void): Promise<Buffer> {
    await this.until(() => {
      onProgress?.(Math.min(this.length, n));
      return this.length >= n;
    }, what);
    return n === 0 ? Buffer.alloc(0) : this.take(n);
  }

  /** Waits for the channel to close (bounded); the exit code when the appliance sent one. */
  async closedWithin(ms: number): Promise<number | null | undefined> {
    if (!this.closedFlag) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { this.wake = undefined; resolve(); }, ms);
        const check = () => { if (this.closedFlag) { clearTimeout(timer); this.wake = undefined; resolve(); } else this.wake = check; };
        check();
      });
    }
    if (!this.closedFlag) this.channel.close();
    return this.exitCode;
  }
}
