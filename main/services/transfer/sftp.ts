// SFTP transfer: a temp file beside the target, fsync, then posix-rename (or a shell `mv`).
import type { SFTPWrapper, Stats } from 'ssh2';
import { labelOf, openSftp, tempBeside, type TransferHost } from './host';
import { probeShell, shellHash, shellReplace } from './remote-posix';
import {
  DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, TransferError,
  type FileTransfer, type ReadOptions, type WriteOptions, type WriteResult,
} from './types';
import { sha256 } from '../hash';

const CHUNK = 32 * 1024;
const NO_SUCH_FILE = 2;

type Cb<T> = (err: (Error & { code?: number }) | null | undefined, v?: T) => void;

class SftpTransfer implements FileTransfer {
  readonly kind = 'sftp' as const;
  private sftpPromise?: Promise<SFTPWrapper>;

  constructor(private readonly h: TransferHost, private readonly timeoutMs: number) {}

  private sftp(): Promise<SFTPWrapper> {
    this.sftpPromise ??= openSftp(this.h).catch((err: Error) => {
      this.sftpPromise = undefined;
      throw new TransferError('refused', `${labelOf(this.h)}: no SFTP: ${err.message}`);
    });
    return this.sftpPromise;
  }

  /** One SFTP request with a deadline and the path in its error. */
  private call<T>(what: string, path: string, fn: (cb: Cb<T>) => void, timeoutMs = this.timeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new TransferError('timeout', `${labelOf(this.h)}: ${what} ${path}: no answer within ${timeoutMs} ms`)), timeoutMs);
      fn((err, v) => {
        clearTimeout(timer);
        if (!err) return resolve(v as T);
        const kind = err.code === NO_SUCH_FILE ? 'not-found' : 'refused';
        reject(new TransferError(kind, `${labelOf(this.h)}: ${what} ${path}: ${err.message}`));
      });
    });
  }

  hasShell(): Promise<boolean> {
    return probeShell(this.h, this.timeoutMs);
  }

  async read(path: string, opts: ReadOptions = {}): Promise<Buffer> {
    const sftp = await this.sftp();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const max = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const handle = await this.call<Buffer>('cannot open', path, (cb) => sftp.open(path, 'r', cb), timeoutMs);
    try {
      const parts: Buffer[] = [];
      let total = 0;
      for (;;) {
        const buf = Buffer.alloc(CHUNK);
        const n = await this.call<number>('cannot read', path, (cb) => sftp.read(handle, buf, 0, CHUNK, total, (err, bytes) => cb(err, bytes)), timeoutMs)
          .catch((err: TransferError) => { if (/EOF|end of file/i.test(err.message)) return 0; throw err; });
        if (!n) break;
        total += n;
        if (total > max) throw new TransferError('too-large', `${labelOf(this.h)}: ${path} is larger than the ${max} bytes allowed`);
        parts.push(buf.subarray(0, n));
      }
      return Buffer.concat(parts, total);
    } finally {
      await this.call('cannot close', path, (cb) => sftp.close(handle, cb), timeoutMs).catch(() => undefined);
    }
  }

  async write(path: string, data: Buffer, opts: WriteOptions = {}): Promise<WriteResult> {
    const sftp = await this.sftp();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const hash = sha256(data);
    const live = await this.call<Stats>('stat', path, (cb) => sftp.stat(path, cb), timeoutMs).catch(() => undefined);
    const mode = live ? live.mode & 0o7777 : (opts.mode ?? 0o644);
    const ext = (sftp as unknown as { _extensions?: Record<string, string> })._extensions ?? {};
    const posixRename = ext['posix-rename@openssh.com'] === '1';
    const shell = posixRename ? false : await this.hasShell();
    const canReplace = posixRename || shell || !live;
    if (opts.atomic === 'always' && !canReplace) {
      throw new TransferError('unsupported', `${labelOf(this.h)}: no atomic replace of ${path}: the SFTP server cannot rename over a file and there is no shell`);
    }
    if (opts.atomic === 'never' || !canReplace) {
      await this.put(sftp, path, data, 'w', mode, live, opts, timeoutMs);
      const verified = opts.verify === false ? 'none' : await this.check(path, hash);
      return { path, bytes: data.length, sha256: hash, atomic: false, verified };
    }
    const temp = tempBeside(path);
    try {
      await this.put(sftp, temp, data, 'wx', mode, live, opts, timeoutMs);
      const verified = opts.verify === false ? 'none' : await this.check(temp, hash);
      if (posixRename) await this.call('cannot rename', temp, (cb) => sftp.ext_openssh_rename(temp, path, cb), timeoutMs);
      else if (shell) await shellReplace(this.h, temp, path, mode, timeoutMs);
      else await this.call('cannot rename', temp, (cb) => sftp.rename(temp, path, cb), timeoutMs);
      return { path, bytes: data.length, sha256: hash, atomic: true, verified };
    } catch (err) {
      await this.call('cannot remove', temp, (cb) => sftp.unlink(temp, cb), 5000).catch(() => undefined);
      throw err;
    }
  }

  private async put(sftp: SFTPWrapper, path: string, data: Buffer, flags: 'w' | 'wx', mode: number, live: Stats | undefined, opts: WriteOptions, timeoutMs: number): Promise<void> {
    const handle = await this.call<Buffer>('cannot create', path, (cb) => sftp.open(path, flags, { mode: flags === 'wx' ? 0o600 : mode }, cb), timeoutMs);
    try {
      for (let off = 0; off < data.length; off += CHUNK) {
        const n = Math.min(CHUNK, data.length - off);
        await this.call('cannot write', path, (cb) => sftp.write(handle, data, off, n, off, cb), timeoutMs);
        opts.onProgress?.(off + n, data.length);
      }
      if (live && flags === 'wx') await this.call('chown', path, (cb) => sftp.fchown(handle, live.uid, live.gid, cb), timeoutMs).catch(() => undefined);
      if (flags === 'wx') await this.call('cannot chmod', path, (cb) => sftp.fchmod(handle, mode, cb), timeoutMs);
      const st = await this.call<Stats>('cannot stat', path, (cb) => sftp.fstat(handle, cb), timeoutMs);
      if (st.size !== data.length) throw new TransferError('verify', `${labelOf(this.h)}: ${path} has ${st.size} bytes after writing ${data.length}`);
      await this.call('fsync', path, (cb) => sftp.ext_openssh_fsync(handle, cb), timeoutMs).catch(() => undefined);
    } finally {
      await this.call('cannot close', path, (cb) => sftp.close(handle, cb), timeoutMs).catch(() => undefined);
    }
  }

  private async check(path: string, hash: string): Promise<WriteResult['verified']> {
    let got = (await this.hasShell()) ? await shellHash(this.h, path, this.timeoutMs).catch(() => undefined) : undefined;
    const how = got ? 'sha256' : 'read-back';
    got ??= sha256(await this.read(path));
    if (got !== hash) {
      throw new TransferError('verify', `${labelOf(this.h)}: ${path} does not match what was sent (sha256 ${got.slice(0, 12)} on the appliance, ${hash.slice(0, 12)} sent)`);
    }
    return how;
  }

  async remove(path: string): Promise<void> {
    const sftp = await this.sftp();
    await this.call('cannot remove', path, (cb) => sftp.unlink(path, cb)).catch((err: TransferError) => {
      if (err.kind !== 'not-found') throw err;
    });
  }
}

/** SFTP on this connection; the subsystem is opened on first use. */
export function sftpTransfer(h: TransferHost, opts: { timeoutMs?: number } = {}): FileTransfer {
  return new SftpTransfer(h, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

/** Opens the subsystem now: rejects when the server refuses SFTP. */
export async function openSftpTransfer(h: TransferHost, opts: { timeoutMs?: number } = {}): Promise<FileTransfer> {
  const t = new SftpTransfer(h, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  await (t as unknown as { sftp(): Promise<SFTPWrapper> }).sftp();
  return t;
}
