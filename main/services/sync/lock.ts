// The per-appliance push lock (see LOCK in scripts.ts): held on the appliance for exactly as
// long as our SSH channel lives, so a dropped connection frees it and two lbdesk instances
// can never push to the same file at once. A script can run under the lock in the same exec.
import type { ClientChannel } from 'ssh2';
import type { SshConnection } from '../ssh/connect';
import { SshError } from '../ssh/errors';
import type { RemotePaths } from './paths';
import { LOCK } from './scripts';
import { shScript } from './quote';
import type { Sudo } from './sudo';

/** In-process guard: the same appliance file twice in one fleet run fails fast. */
const held = new Set<string>();

export class LockBusyError extends Error {}

/** Pushes begun in this process, by appliance endpoint and file: taken before connecting, so a
 *  second push fails fast however long the first one's SSH login takes. */
const begun = new Set<string>();

/** Claims `key` for one push in this process; the returned function frees it. */
export function claimPush(key: string): () => void {
  if (begun.has(key)) throw new LockBusyError(`another push to ${key} is running in this lbdesk`);
  begun.add(key);
  let freed = false;
  return () => { if (!freed) { freed = true; begun.delete(key); } };
}

export interface Lock {
  /** Output of the script run under the lock. */
  output: string;
  release(): Promise<void>;
}

export async function acquireLock(conn: SshConnection, paths: RemotePaths, holder: string, after: { script: string; args: string[] } = { script: ':', args: [] }, sudo?: Sudo): Promise<Lock> {
  const key = `${conn.label}:${paths.live}`;
  if (held.has(key)) throw new LockBusyError(`another push to ${key} is running in this lbdesk`);
  held.add(key);
  let channel: ClientChannel;
  try {
    const args = [paths.lock, holder, after.script, ...after.args];
    const w = sudo ? await sudo.wrap(LOCK, args) : { command: shScript(LOCK, args) };
    channel = await conn.channel(w.command);
    // sudo -S reads its password line first; the channel stays open (its end frees the lock).
    if (w.stdin) channel.write(w.stdin);
  } catch (err) {
    held.delete(key);
    throw err;
  }
  const closed = new Promise<void>((r) => channel.once('close', () => r()));
  // First line LOCKED or BUSY…; when locked, the script's output follows up to a line END.
  const answer = await new Promise<string>((resolve) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.startsWith('LOCKED\n') ? /(^|\n)END\n/.test(buf) : buf.includes('\n')) {
        channel.removeListener('data', onData);
        resolve(buf);
      }
    };
    channel.on('data', onData);
    channel.stderr.on('data', () => undefined);
    void closed.then(() => resolve(buf.trim() || 'ERROR lock command ended'));
  });
  if (!answer.startsWith('LOCKED\n') || !/(^|\n)END\n/.test(answer)) {
    held.delete(key);
    channel.end();
    await closedWithin(closed, 2000);
    if (conn.isClosed) throw new SshError('closed', `${conn.label}: connection lost`);
    const first = answer.split('\n')[0]!;
    if (first.startsWith('BUSY')) throw new LockBusyError(`another push to ${paths.live} is running (held by ${first.slice(5).trim() || 'unknown'})`);
    throw new Error(`cannot take the push lock ${paths.lock}: ${first.replace(/^ERROR /, '')}`);
  }
  let released = false;
  return {
    output: answer.slice('LOCKED\n'.length).replace(/(^|\n)END\n[\s\S]*$/, '$1'),
    release: async () => {
      if (released) return;
      released = true;
      held.delete(key);
      if (conn.isClosed) return;
      channel.end();
      await closedWithin(closed, 5000);
    },
  };
}

/**
 * Waits for the lock channel to close, at most `ms`. The timer is cleared when the channel
 * closes first: a pending one would keep the CLI alive for the whole wait after every push.
 */
async function closedWithin(closed: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
