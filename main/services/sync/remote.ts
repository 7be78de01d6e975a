// File operations on an appliance over one SSH connection: SFTP when the server has it, plain
// exec (`cat`) otherwise. Every shell script here takes its paths as arguments ($1…), never spliced.
import type { SFTPWrapper } from 'ssh2';
import type { SshConnection, ExecResult } from '../ssh/connect';
import { SshError } from '../ssh/errors';
import type { RemotePaths } from './paths';
import { shScript, tail } from './quote';
import { CAPS, CONFIRM_STATE, EXEC_UPLOAD, INSPECT, INSTALL, KEEP_MODE, PREPARE, PROBE, RESTORE, TIMER, USER_UPLOAD } from './scripts';
import { Sudo, type SudoOptions } from './sudo';
import type { SyncTarget } from './target';
import { remotePaths } from './paths';
import { readIfExists, scpPut, scpTransfer } from '../transfer';
import { keepNote } from '../transfer/remote-posix';

export interface Inspection {
  exists: boolean;
  hash?: string;
  swept: number;
  pending?: { deadline: number; hash: string; backupHash: string; pid?: number; alive: boolean };
  /** `keep`: the exit code of the timer's keeper (0: every kept runtime state set again after its reload). */
  fired?: { running: boolean; at?: number; rc?: number; hash?: string; backupHash?: string; deadline?: number; keep?: number };
}

/** A script the box's own commit-confirmed timer runs around its reload, and its one data argument (TIMER's $10, $11). */
export interface BoxKeeper {
  script: string;
  data: string;
}

export function kv(stdout: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) m.set(line.slice(0, i), line.slice(i + 1));
  }
  return m;
}

export interface PrepareResult {
  checksum: boolean;
  validated: boolean;
  backupHash?: string;
  pid?: number;
  /** The step that failed, if any. */
  failed?: 'checksum' | 'validate' | 'backup' | 'arm-confirm';
  reason: string;
  /** A pending marker of another push was found: never disarm it. */
  otherPending?: boolean;
}

/** What the appliance has (CAPS in scripts.ts), probed once per connection. */
export interface Capabilities {
  tools: Record<'flock' | 'setsid' | 'nohup' | 'timeout' | 'bash' | 'stat', boolean>;
  hash?: string;
  nc: 'z' | 'e' | 'plain' | 'none';
}

export type VerifyMethod = 'bash-timeout' | 'bash' | 'nc-z' | 'nc-e' | 'nc-timeout' | 'none';

export function parseCaps(m: Map<string, string>): Capabilities | undefined {
  if (!m.has('cap.flock')) return undefined;
  const on = (t: string) => m.get(`cap.${t}`) === '1';
  const nc = m.get('cap.nc');
  return {
    tools: { flock: on('flock'), setsid: on('setsid'), nohup: on('nohup'), timeout: on('timeout'), bash: on('bash'), stat: on('stat') },
    hash: m.get('cap.hash'),
    nc: nc === 'z' || nc === 'e' || nc === 'plain' ? nc : 'none',
  };
}

/** How to connect to a VIP from this box, using only what it has. */
export function verifyMethod(c: Capabilities): VerifyMethod {
  if (c.tools.bash) return c.tools.timeout ? 'bash-timeout' : 'bash';
  if (c.nc === 'z') return 'nc-z';
  if (c.nc === 'e') return 'nc-e';
  if (c.nc === 'plain' && c.tools.timeout) return 'nc-timeout';
  return 'none';
}

const num = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) : undefined);

export class Remote {
  private sftpOk?: boolean;
  private caps?: Capabilities;

  constructor(readonly conn: SshConnection, readonly paths: RemotePaths, private readonly transfer: 'auto' | 'sftp' | 'exec' | 'scp' = 'auto', readonly sudo?: Sudo) {}

  /** The Remote for a target: its paths, its transfer, and sudo when it says `become: sudo`. */
  static for(conn: SshConnection, target: SyncTarget, opts: SudoOptions): Remote {
    const sudo = target.become === 'sudo' ? new Sudo(conn, target.appliance, opts) : undefined;
    return new Remote(conn, remotePaths(target.configPath), target.transfer, sudo);
  }

  /** A script with its arguments, as root through sudo where the target says so. */
  async run(script: string, args: string[], timeoutMs = 60_000): Promise<ExecResult> {
    if (!this.sudo) return this.conn.exec(shScript(script, args), { timeoutMs });
    const w = await this.sudo.wrap(script, args);
    return this.conn.exec(w.command, { timeoutMs, ...(w.stdin ? { stdin: w.stdin } : {}) });
  }

  /** SFTP if the server has it (and transfer allows), else undefined: callers use exec. With sudo never: SFTP runs as the login user. */
  async sftp(): Promise<SFTPWrapper | undefined> {
    if (this.sudo || this.transfer === 'exec' || this.transfer === 'scp' || this.sftpOk === false) return undefined;
    try {
      const s = await this.conn.sftp();
      this.sftpOk = true;
      return s;
    } catch (err) {
      if (this.transfer === 'sftp') throw err;
      this.sftpOk = false;
      return undefined;
    }
  }

  /** The INSPECT script and its arguments (run under the lock, see lock.ts). */
  inspectScript(): { script: string; args: string[] } {
    const p = this.paths;
    return { script: INSPECT, args: [p.live, p.pending, p.fired, p.prefix] };
  }

  parseInspection(stdout: string): Inspection {
    const p = this.paths;
    const m = kv(stdout);
    const out: Inspection = { exists: m.get('exists') === '1', swept: num(m.get('swept')) ?? 0 };
    this.caps = parseCaps(m) ?? this.caps;
    if (out.exists) {
      const h = m.get('hash');
      if (!h || !/^[0-9a-f]{64}$/.test(h)) {
        const why = this.caps && !this.caps.hash ? 'the appliance has no sha256sum, openssl or shasum' : 'cannot read it';
        throw new SshError('connect', `cannot hash ${p.live} on the appliance: ${why}`);
      }
      out.hash = h;
    }
    Object.assign(out, confirmFields(m));
    return out;
  }

  /** The box's tools: from the inspection when there was one, else probed now (once). */
  async capabilities(): Promise<Capabilities> {
    if (!this.caps) {
      const r = await this.run(CAPS, []);
      this.caps = parseCaps(kv(r.stdout));
      if (!this.caps) throw new SshError('connect', `${this.conn.label}: cannot probe the appliance's tools: ${tail(r.stderr) || `exit ${r.code}`}`);
    }
    return this.caps;
  }

  /** A pending commit-confirmed push and a fired timer, read without the lock (nothing swept). */
  async confirmState(): Promise<Pick<Inspection, 'pending' | 'fired'>> {
    const p = this.paths;
    return confirmFields(kv((await this.run(CONFIRM_STATE, [p.pending, p.fired])).stdout));
  }

  /** The live file's bytes, or undefined when it does not exist. */
  async readLive(): Promise<Buffer | undefined> {
    const sftp = await this.sftp();
    if (sftp) {
      return this.conn.guard(new Promise((resolve, reject) => {
        sftp.readFile(this.paths.live, (err: (Error & { code?: number }) | null | undefined, data: Buffer) => {
          if (!err) return resolve(data);
          if (err.code === 2) return resolve(undefined); // SSH_FX_NO_SUCH_FILE
          reject(new SshError('connect', `cannot read ${this.paths.live}: ${err.message}`));
        });
      }));
    }
    if (this.transfer === 'scp' && !this.sudo) {
      return readIfExists(scpTransfer(this.conn), this.paths.live, { timeoutMs: 60_000 }).catch((err: Error) => {
        throw new SshError('connect', `cannot read ${this.paths.live}: ${err.message}`);
      });
    }
    const r = await this.run('[ -e "$1" ] || exit 3; exec cat -- "$1"', [this.paths.live]);
    if (r.code === 3) return undefined;
    if (r.code !== 0) throw new SshError('connect', `cannot read ${this.paths.live}: ${tail(r.stderr)}`);
    return r.raw;
  }

  /**
   * Creates `path` exclusively, writes, fsyncs and gives it the live file's mode and owner.
   * Returns notes (an owner that could not be kept).
   */
  async upload(path: string, data: Buffer): Promise<string[]> {
    if (this.sudo) return this.uploadBecome(path, data);
    const sftp = await this.sftp();
    if (!sftp) return this.transfer === 'scp' ? this.uploadScp(path, data) : this.uploadExec(path, data);
    try {
      return await this.uploadSftp(sftp, path, data);
    } catch (err) {
      // SFTP v3 carries no errno ("Failure" for a full disk): the same upload through the shell
      // either works or says why in the OS's words. A lost connection is not retried.
      if (this.conn.isClosed || this.transfer === 'sftp') throw err;
      await this.remove(path);
      return this.uploadExec(path, data);
    }
  }

  private async uploadSftp(sftp: SFTPWrapper, path: string, data: Buffer): Promise<string[]> {
    const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void, what: string) =>
      this.conn.guard(new Promise<T>((resolve, reject) => fn((err, v) => (err ? reject(new SshError('connect', `${what} ${path}: ${err.message}`)) : resolve(v as T)))));
    const [live, handle] = await Promise.all([
      this.conn.guard(new Promise<{ mode: number; uid: number; gid: number } | undefined>((resolve) => {
        sftp.stat(this.paths.live, (err, st) => resolve(err ? undefined : { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid }));
      })),
      call<Buffer>((cb) => sftp.open(path, 'wx', { mode: 0o600 }, cb), 'cannot create'),
    ]);
    try {
      // SFTP answers in order: the writes and the attribute calls are pipelined, not awaited one by one.
      const writes: Promise<unknown>[] = [];
      for (let off = 0; off < data.length; off += 32 * 1024) {
        const n = Math.min(32 * 1024, data.length - off);
        const at = off;
        writes.push(call((cb) => sftp.write(handle, data, at, n, at, cb), 'cannot write'));
      }
      const owner = live ? call((cb) => sftp.fchown(handle, live.uid, live.gid, cb), 'chown').then(() => undefined, () => keepNote(3, `@lbdesk OWNER ${live.uid}:${live.gid}`, path)) : Promise.resolve(undefined);
      const mode = call((cb) => sftp.fchmod(handle, live ? live.mode : 0o644, cb), 'cannot chmod');
      const [note] = await Promise.all([owner, mode, ...writes]);
      try {
        await call((cb) => sftp.ext_openssh_fsync(handle, cb), 'cannot fsync');
      } catch (err) {
        if (this.conn.isClosed) throw err;
        await this.conn.exec(shScript('sync -- "$1" 2>/dev/null || sync', [path]));
      }
      return note ? [note] : [];
    } finally {
      await call((cb) => sftp.close(handle, cb), 'cannot close').catch(() => undefined);
    }
  }

  /** SCP into the temp file (main/services/transfer), then the live file's mode and owner. */
  private async uploadScp(path: string, data: Buffer): Promise<string[]> {
    await scpPut(this.conn, path, data, { mode: 0o600, timeoutMs: 120_000 }).catch((err: Error) => {
      throw new SshError('connect', `cannot upload to ${path}: ${err.message}`);
    });
    const r = await this.run(KEEP_MODE, [path, this.paths.live]);
    return this.kept(r, path, 'cannot set the mode of');
  }

  private async uploadExec(path: string, data: Buffer): Promise<string[]> {
    const r = await this.conn.exec(shScript(EXEC_UPLOAD, [path, this.paths.live]), { stdin: data, timeoutMs: 120_000 });
    return this.kept(r, path, 'cannot write');
  }

  /** `become`: into the login user's temp folder, then installed beside the live file as root. */
  private async uploadBecome(path: string, data: Buffer): Promise<string[]> {
    const up = await this.conn.exec(shScript(USER_UPLOAD, []), { stdin: data, timeoutMs: 120_000 });
    const userTemp = up.stdout.trim().split('\n').pop() ?? '';
    if (up.code !== 0 || !userTemp.startsWith('/')) throw new SshError('connect', `cannot upload to the login user's temp folder: ${tail(up.stderr) || `exit ${up.code}`}`);
    const r = await this.run(INSTALL, [userTemp, path, this.paths.live], 120_000);
    if (r.code !== 0 && r.code !== 3) await this.conn.exec(shScript('rm -f -- "$1"', [userTemp])).catch(() => undefined);
    return this.kept(r, path, 'cannot install the upload as');
  }

  /** Exit 0 or 3 of KEEP_FN (3: a note about the owner); anything else refuses the upload. */
  private kept(r: ExecResult, path: string, what: string): string[] {
    if (r.code === 0) return [];
    if (r.code === 3) return [keepNote(3, r.stdout, this.paths.live)!];
    throw new SshError('connect', `${what} ${path}: ${osReason(r.stderr) || `exit ${r.code}`}`);
  }

  /** A driver command (reload), through `sh -c` so the sbin folders are on PATH. */
  command(cmd: string, timeoutMs: number): Promise<ExecResult> {
    return this.run('eval "$1"', [cmd], timeoutMs);
  }

  async remove(path: string): Promise<void> {
    await this.run('rm -f -- "$1"', [path]).catch(() => undefined);
  }

  /**
   * Checksum, validate and (unless `dry`) back up and arm, in one exec (PREPARE). The first
   * failing step is named; nothing here touches the live file.
   */
  async prepare(o: {
    temp: string; hash: string; validate?: string; dry: boolean; expectLive?: string; timeoutMs: number;
    arm?: { seconds: number; deadline: number; reloadCommand: string; keep?: BoxKeeper };
  }): Promise<PrepareResult> {
    const p = this.paths;
    const args = [o.temp, o.hash, o.validate ?? '', o.dry ? 'dry' : 'commit', p.live, p.backup, o.expectLive ?? '', p.temp('bak')];
    if (o.arm) args.push(p.pending, p.fired, p.lock, String(o.arm.seconds), o.arm.reloadCommand, p.temp('restore'), String(Math.ceil(o.arm.deadline / 1000)), TIMER, o.arm.keep?.script ?? '', o.arm.keep?.data ?? '');
    const r = await this.run(PREPARE, args, o.timeoutMs);
    const ours = (word: string) => new RegExp(`^@lbdesk ${word}(?: (.*))?$`, 'm').exec(r.stdout);
    const output = `${r.stderr}\n${r.stdout.replace(/^@lbdesk .*\n?/gm, '')}`;
    // What went wrong after validation: the validator's output stays out of it.
    const late = `${r.stderr}\n${(r.stdout.split(/^@lbdesk (?:VALIDATE-OK|CHECKSUM-OK)\n/m).pop() ?? '').replace(/^@lbdesk .*\n?/gm, '')}`;
    const checksum = !!ours('CHECKSUM-OK');
    const validated = !!ours('VALIDATE-OK');
    const backupHash = ours('BACKUP')?.[1];
    const pid = ours('PID')?.[1];
    const base = { checksum, validated, backupHash, pid: pid ? Number(pid) : undefined };
    switch (r.code) {
      case 0:
        if (o.arm && !o.dry && !pid) return { ...base, failed: 'arm-confirm', reason: `the confirm timer did not start: ${tail(output)}` };
        return { ...base, failed: undefined, reason: '' };
      case 90: return { ...base, failed: 'checksum', reason: `checksum mismatch after upload (appliance computed ${(ours('CHECKSUM-MISMATCH')?.[1] ?? '').slice(0, 12) || 'nothing'}, sent ${o.hash.slice(0, 12)})` };
      case 91: return { ...base, failed: 'validate', reason: `validation failed (exit ${ours('VALIDATE-FAILED')?.[1] ?? '?'}): ${tail(output) || 'no output'}` };
      case 93: return { ...base, failed: 'backup', reason: `${p.live} changed on the appliance while pushing (now ${(ours('CHANGED')?.[1] ?? '').slice(0, 12) || 'missing'})` };
      case 94: return { ...base, failed: 'backup', reason: `cannot back up ${p.live}: ${osReason(late) || 'copy failed'}` };
      case 95: return { ...base, failed: 'arm-confirm', reason: 'a commit-confirmed push is already pending', otherPending: true };
      case 96: return { ...base, failed: 'arm-confirm', reason: `cannot write the pending marker ${p.pending}: ${ours('ARM-FAILED')?.[1] || osReason(late) || 'write failed'}` };
      default: return { ...base, failed: checksum ? (validated || !o.validate ? 'backup' : 'validate') : 'checksum', reason: `preparing on the appliance failed (exit ${r.code ?? r.signal}): ${tail(validated ? late : output) || 'no output'}` };
    }
  }

  /** Atomic replace: posix-rename@openssh.com when offered, else `mv -f` (rename(2) on one filesystem). */
  async rename(from: string, to: string): Promise<'posix-rename' | 'mv'> {
    const sftp = await this.sftp();
    const ext = (sftp as unknown as { _extensions?: Record<string, string> } | undefined)?._extensions;
    if (sftp && ext?.['posix-rename@openssh.com'] === '1') {
      const failed = await this.conn.guard(new Promise<Error | undefined>((resolve) => sftp.ext_openssh_rename(from, to, (err) => resolve(err ?? undefined))));
      if (!failed) return 'posix-rename';
      // SFTP says "Permission denied" for an immutable file; mv says what the OS said.
      if (this.transfer === 'sftp') throw new SshError('connect', `cannot replace ${to}: ${failed.message}`);
    }
    const r = await this.run('exec mv -f -- "$1" "$2"', [from, to]);
    if (r.code !== 0) throw new SshError('connect', `cannot replace ${to}: ${osReason(r.stderr) || `exit ${r.code}`}`);
    return 'mv';
  }

  async restore(): Promise<{ ok: boolean; reason?: string }> {
    const p = this.paths;
    const r = await this.run(RESTORE, [p.live, p.backup, p.temp('restore')]);
    return r.code === 0 ? { ok: true } : { ok: false, reason: tail(r.stderr || r.stdout) || `exit ${r.code}` };
  }

  /** 0 connected, 1 refused/timed out, 2 no way to try (`method` none). */
  async probe(address: string, port: number, method: VerifyMethod): Promise<number> {
    if (method === 'none') return 2;
    const r = await this.run(PROBE, [address, String(port), method], 10_000);
    return r.code === 0 ? 0 : r.code === 2 ? 2 : 1;
  }
}

/** The OS's own words at the end of a tool's error line ("cat: write error: No space left on device" → the last part). */
export function osReason(stderr: string): string {
  const line = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  const i = line.lastIndexOf(': ');
  const why = i >= 0 ? line.slice(i + 2) : line;
  // EPERM where root may write: the usual cause is the immutable attribute.
  return why === 'Operation not permitted' ? `${why} (immutable? lsattr shows an "i"; chattr -i clears it)` : why;
}

/** The commit-confirmed part of an inspection (INSPECT and CONFIRM_STATE print it alike). */
function confirmFields(m: Map<string, string>): Pick<Inspection, 'pending' | 'fired'> {
  const out: Pick<Inspection, 'pending' | 'fired'> = {};
  if (m.has('pending.deadline') || m.has('pending.hash')) {
    out.pending = {
      deadline: num(m.get('pending.deadline')) ?? 0,
      hash: m.get('pending.hash') ?? '',
      backupHash: m.get('pending.backupHash') ?? '',
      pid: num(m.get('pending.pid')),
      alive: m.get('pending.alive') === '1',
    };
  }
  if (m.has('fired.running') || m.has('fired.firedAt')) {
    out.fired = {
      running: m.get('fired.running') === '1',
      at: num(m.get('fired.firedAt')),
      rc: num(m.get('fired.rc')),
      hash: m.get('fired.hash'),
      backupHash: m.get('fired.backupHash'),
      deadline: num(m.get('fired.deadline')),
      keep: num(m.get('fired.keep')),
    };
  }
  return out;
}
