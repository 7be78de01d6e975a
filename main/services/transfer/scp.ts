// SCP over exec, for appliances without SFTP: `scp -t PATH` receives a file, `scp -f PATH`
// sends one (the classic rcp protocol: a `C<mode> <size> <name>` header, the bytes, a 0 byte,
// each step acknowledged with 0, or 1/2 followed by a message line).
import { posix } from 'node:path';
import type { ClientChannel } from 'ssh2';
import { execChannel, labelOf, remoteWord, tempBeside, type TransferHost } from './host';
import { ChannelReader } from './reader';
import { probeShell, shellHash, shellRemove, shellReplace } from './remote-posix';
import {
  DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, TransferError,
  type FileTransfer, type ReadOptions, type WriteOptions, type WriteResult,
} from './types';
import { sha256 } from '../hash';

const CHUNK = 64 * 1024;

function classify(label: string, path: string, message: string): TransferError {
  const msg = message.replace(/^scp:\s*/, '').trim() || 'refused without a message';
  if (/no such file|not found|does not exist|cannot open/i.test(msg)) return new TransferError('not-found', `${label}: ${path}: ${msg}`);
  return new TransferError('refused', `${label}: ${path}: ${msg}`);
}

/** Reads one acknowledgement: 0 is fine, 1 and 2 carry the appliance's complaint. */
async function ack(r: ChannelReader, label: string, path: string, what: string): Promise<void> {
  const b = await r.byte(what);
  if (b === 0) return;
  if (b === 1 || b === 2) throw classify(label, path, await r.line('an error message').catch(() => ''));
  throw new TransferError('protocol', `${label}: ${path}: unexpected SCP reply 0x${b.toString(16).padStart(2, '0')} while waiting for ${what}`);
}

function waitDrain(ch: ClientChannel, r: ChannelReader, label: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      ch.off('drain', onDrain);
      ch.off('close', onClose);
      if (err) reject(err); else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new TransferError('closed', `${label}: connection closed during the upload${r.stderr ? `: ${r.stderr.trim()}` : ''}`));
    const timer = setTimeout(() => done(new TransferError('timeout', `${label}: upload stalled for ${timeoutMs} ms`)), timeoutMs);
    ch.on('drain', onDrain);
    ch.on('close', onClose);
  });
}

export interface PutOptions { mode: number; timeoutMs: number; onProgress?: (sent: number, total: number) => void }

/** Sends `data` as the file `path` (written in place by the appliance's SCP sink). */
export async function scpPut(h: TransferHost, path: string, data: Buffer, opts: PutOptions): Promise<void> {
  const label = labelOf(h);
  const name = posix.basename(path);
  if (!name || /[\n\r]/.test(name)) throw new TransferError('unsupported', `${label}: ${JSON.stringify(path)} is not a file name SCP can carry`);
  const ch = await execChannel(h, `scp -t ${remoteWord(path)}`);
  const r = new ChannelReader(ch, label, opts.timeoutMs);
  try {
    await ack(r, label, path, 'the SCP receiver to start');
    ch.write(`C${(opts.mode & 0o7777).toString(8).padStart(4, '0')} ${data.length} ${name}\n`);
    await ack(r, label, path, 'the file header to be accepted');
    for (let off = 0; off < data.length; off += CHUNK) {
      if (r.closed) throw new TransferError('closed', `${label}: connection closed during the upload of ${path}`);
      let more: boolean;
      try {
        more = ch.write(data.subarray(off, Math.min(off + CHUNK, data.length)));
      } catch (err) {
        throw new TransferError('closed', `${label}: upload of ${path} broken off: ${(err as Error).message}`);
      }
      opts.onProgress?.(Math.min(off + CHUNK, data.length), data.length);
      if (!more) await waitDrain(ch, r, label, opts.timeoutMs);
    }
    ch.write(Buffer.from([0]));
    await ack(r, label, path, `the appliance to store ${data.length} bytes`);
    ch.end();
    // Everything was acknowledged; a box that keeps the channel open after EOF is not waited for long.
    const code = await r.closedWithin(Math.min(opts.timeoutMs, 5000));
    if (code !== undefined && code !== null && code !== 0) {
      throw new TransferError('refused', `${label}: scp -t ${path} exited ${code}${r.stderr ? `: ${r.stderr.trim()}` : ''}`);
    }
  } catch (err) {
    ch.close();
    throw err;
  }
}

/** The bytes of the remote file `path`, with the announced size checked. */
export async function scpGet(h: TransferHost, path: string, opts: { timeoutMs: number; maxBytes: number }): Promise<Buffer> {
  const label = labelOf(h);
  const ch = await execChannel(h, `scp -f ${remoteWord(path)}`);
  const r = new ChannelReader(ch, label, opts.timeoutMs);
  try {
    ch.write(Buffer.from([0]));
    for (let headers = 0; headers < 4; headers++) {
      const b = await r.byte('the file header');
      if (b === 1 || b === 2) throw classify(label, path, await r.line('an error message').catch(() => ''));
      const line = await r.line('the file header');
      const kind = String.fromCharCode(b);
      if (kind === 'T') { ch.write(Buffer.from([0])); continue; }  // times (-p), not asked for
      if (kind === 'D') throw new TransferError('unsupported', `${label}: ${path} is a directory`);
      const m = kind === 'C' ? /^([0-7]{3,4}) (\d+) (.*)$/.exec(line) : null;
      if (!m) throw new TransferError('protocol', `${label}: ${path}: unexpected SCP header ${JSON.stringify(kind + line).slice(0, 60)}`);
      const size = Number(m[2]);
      if (!Number.isSafeInteger(size) || size > opts.maxBytes) {
        throw new TransferError('too-large', `${label}: ${path} is ${m[2]} bytes, more than the ${opts.maxBytes} allowed`);
      }
      ch.write(Buffer.from([0]));
      const data = await r.exact(size, `${size} bytes of ${path}`);
      await ack(r, label, path, 'the end of the file');
      ch.write(Buffer.from([0]));
      ch.end();
      await r.closedWithin(Math.min(opts.timeoutMs, 5000));
      return data;
    }
    throw new TransferError('protocol', `${label}: ${path}: no file header`);
  } catch (err) {
    ch.close();
    throw err;
  }
}

class ScpTransfer implements FileTransfer {
  readonly kind = 'scp' as const;

  constructor(private readonly h: TransferHost, private readonly timeoutMs: number) {}

  hasShell(): Promise<boolean> {
    return probeShell(this.h, this.timeoutMs);
  }

  read(path: string, opts: ReadOptions = {}): Promise<Buffer> {
    return scpGet(this.h, path, { timeoutMs: opts.timeoutMs ?? this.timeoutMs, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES });
  }

  async write(path: string, data: Buffer, opts: WriteOptions = {}): Promise<WriteResult> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const mode = opts.mode ?? 0o644;
    const verify = opts.verify !== false;
    const hash = sha256(data);
    const shell = opts.atomic === 'never' && !verify ? false : await this.hasShell();
    if (opts.atomic === 'always' && !shell) {
      throw new TransferError('unsupported', `${labelOf(this.h)}: no atomic replace of ${path}: SCP writes in place and the appliance has no shell to rename with`);
    }
    const put = (p: string, m: number) => scpPut(this.h, p, data, { mode: m, timeoutMs, onProgress: opts.onProgress });
    if (shell && opts.atomic !== 'never') {
      // A cut connection leaves at most a stray temp file, never a half-written target.
      const temp = tempBeside(path);
      try {
        await put(temp, 0o600);
        const verified = verify ? await this.check(temp, hash, true) : 'none';
        await shellReplace(this.h, temp, path, mode, timeoutMs);
        return { path, bytes: data.length, sha256: hash, atomic: true, verified };
      } catch (err) {
        await shellRemove(this.h, temp, Math.min(timeoutMs, 5000)).catch(() => undefined);
        throw err;
      }
    }
    await put(path, mode);
    const verified = verify ? await this.check(path, hash, shell) : 'none';
    return { path, bytes: data.length, sha256: hash, atomic: false, verified };
  }

  /** sha256 on the appliance, else the file read back; `size` when it can be neither. */
  private async check(path: string, hash: string, shell: boolean): Promise<WriteResult['verified']> {
    let got: string | undefined;
    let how: WriteResult['verified'] = 'sha256';
    if (shell) got = await shellHash(this.h, path, this.timeoutMs).catch(() => undefined);
    if (got === undefined) {
      how = 'read-back';
      try {
        got = sha256(await this.read(path));
      } catch (err) {
        // Some boxes accept a config by SCP but will not hand it back: the sink's ack of every byte is all we have.
        if (err instanceof TransferError && (err.kind === 'not-found' || err.kind === 'refused')) return 'size';
        throw err;
      }
    }
    if (got !== hash) {
      throw new TransferError('verify', `${labelOf(this.h)}: ${path} does not match what was sent (sha256 ${got.slice(0, 12)} on the appliance, ${hash.slice(0, 12)} sent)`);
    }
    return how;
  }

  async remove(path: string): Promise<void> {
    if (!(await this.hasShell())) throw new TransferError('unsupported', `${labelOf(this.h)}: cannot remove ${path}: SCP has no delete and the appliance has no shell`);
    await shellRemove(this.h, path, this.timeoutMs);
  }
}

export function scpTransfer(h: TransferHost, opts: { timeoutMs?: number } = {}): FileTransfer {
  return new ScpTransfer(h, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}
