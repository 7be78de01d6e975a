// The SSH side a transfer runs on: a raw ssh2 Client, or the sync service's SshConnection.
import { posix } from 'node:path';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import type { SshConnection } from '../ssh/connect';
import { TransferError } from './types';

export type TransferHost = Client | SshConnection;

function isConnection(h: TransferHost): h is SshConnection {
  return typeof (h as SshConnection).sftp === 'function' && 'label' in h;
}

export function clientOf(h: TransferHost): Client {
  return isConnection(h) ? h.client : h;
}

export function labelOf(h: TransferHost): string {
  return isConnection(h) ? h.label : 'appliance';
}

/** The SFTP subsystem (shared with the sync service when it is an SshConnection). */
export function openSftp(h: TransferHost): Promise<SFTPWrapper> {
  if (isConnection(h)) return h.sftp();
  return new Promise((resolve, reject) => h.sftp((err, s) => (err ? reject(err) : resolve(s))));
}

export function execChannel(h: TransferHost, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    clientOf(h).exec(command, (err, ch) => {
      if (err) reject(new TransferError('refused', `${labelOf(h)}: cannot run "${command.split(' ')[0]}": ${err.message}`));
      else resolve(ch);
    });
  });
}

export interface ExecText { code: number | null; stdout: string; stderr: string }

/** Runs a short command and collects its output (bounded), with a deadline. */
export async function execText(h: TransferHost, command: string, timeoutMs: number): Promise<ExecText> {
  const ch = await execChannel(h, command);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let code: number | null = null;
    const timer = setTimeout(() => {
      ch.close();
      reject(new TransferError('timeout', `${labelOf(h)}: "${command.split(' ')[0]}" did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    ch.on('data', (d: Buffer) => { if (stdout.length < 1_000_000) stdout += d.toString('utf8'); });
    ch.stderr.on('data', (d: Buffer) => { if (stderr.length < 100_000) stderr += d.toString('utf8'); });
    ch.on('exit', (c: number | null) => { code = c; });
    ch.on('close', () => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    ch.end();
  });
}

/** A unique temp name beside `path`, in the sync service's temp namespace (swept under its lock). */
export function tempBeside(path: string): string {
  const rand = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  return posix.join(posix.dirname(path), `.${posix.basename(path)}.lbdesk-tmp-xfer-${rand}`);
}

/** A path as one word for a remote command line: bare when plain (vendor CLIs rarely parse quotes). */
export function remoteWord(path: string): string {
  if (path.includes('\0') || path.includes('\n')) throw new TransferError('unsupported', `path ${JSON.stringify(path)} cannot be sent`);
  // A leading "-" would be read as an option.
  const p = path.startsWith('-') ? `./${path}` : path;
  if (/^[A-Za-z0-9_./:@%+=,~-]+$/.test(p)) return p;
  return `'${p.replace(/'/g, `'\\''`)}'`;
}

/** POSIX single-quoting. */
export function shq(value: string): string {
  if (value.includes('\0')) throw new TransferError('unsupported', 'a NUL byte cannot be passed to a shell');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * `sh -c SCRIPT sh ARG…`: the script sees its arguments as $1…, never spliced into code. $0 is
 * `sh`, so a shell error reads as one ("sh: 1: haproxy: not found"), not as lbdesk's. The sbin
 * folders join PATH: a non-root login's PATH lacks them, and that is where haproxy,
 * keepalived and friends live.
 */
export function shScript(script: string, args: string[]): string {
  return `sh -c ${shq(`${SBIN_PATH}\n${script}`)} sh ${args.map(shq).join(' ')}`;
}

export const SBIN_PATH = 'PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"';
