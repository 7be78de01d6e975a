// Appliance-like SSH targets for tests, built from Debian packages on loopback: a local user
// made (and removed) by the test, Dropbear with only BusyBox on PATH, and the user's own
// files. System changes (useradd, /etc/sudoers.d, mounts) are undone by each remove().
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, keygen, waitForBanner, type KeyPair } from './sshd';

export const DROPBEAR = '/usr/sbin/dropbear';
export const BUSYBOX = ['/usr/bin/busybox', '/bin/busybox'].find((p) => existsSync(p));
export const haveRoot = process.getuid?.() === 0;
export const haveUseradd = existsSync('/usr/sbin/useradd') && existsSync('/usr/sbin/userdel');

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  remove(): void;
}

/** A local account with its own group and `home` (made here, owned by it). Names stay short (32 chars max). */
export function createUser(prefix: string, shell: string, home: string, password?: string): TestUser {
  const name = `lbd${prefix}${Math.random().toString(36).slice(2, 7)}`;
  execFileSync('/usr/sbin/useradd', ['-M', '-U', '-d', home, '-s', shell, name], { stdio: 'pipe' });
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  const uid = id('-u');
  const gid = id('-g');
  mkdirSync(home, { recursive: true });
  chmodSync(home, 0o755);
  chownSync(home, uid, gid);
  // chpasswd takes the password on stdin, never in argv.
  if (password !== undefined) execFileSync('/usr/sbin/chpasswd', { input: `${name}:${password}\n`, stdio: ['pipe', 'pipe', 'pipe'] });
  // No password yet reads as a locked account ("!"), which sshd refuses even for keys; "*" is "no password login".
  else execFileSync('/usr/sbin/usermod', ['-p', '*', name], { stdio: 'pipe' });
  return {
    name, uid, gid, home,
    remove: () => {
      try { execFileSync('pkill', ['-KILL', '-u', name], { stdio: 'ignore' }); } catch { /* none left */ }
      try { execFileSync('/usr/sbin/userdel', [name], { stdio: 'pipe' }); } catch { /* already gone */ }
    },
  };
}

/** A folder of BusyBox applet links (and the binary itself): the whole userland of a small box. */
export function busyboxDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  copyFileSync(BUSYBOX!, join(dir, 'busybox'));
  chmodSync(join(dir, 'busybox'), 0o755);
  for (const applet of execFileSync(BUSYBOX!, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    if (applet !== 'busybox' && !existsSync(join(dir, applet))) symlinkSync('busybox', join(dir, applet));
  }
  chmodSync(dir, 0o755);
  return dir;
}

/** `key` as the user's authorized key (~/.ssh owned by the user, modes Dropbear and sshd accept). */
export function authorize(user: TestUser, key: KeyPair): void {
  const ssh = join(user.home, '.ssh');
  mkdirSync(ssh, { recursive: true, mode: 0o700 });
  writeFileSync(join(ssh, 'authorized_keys'), `${key.pub}\n`, { mode: 0o600 });
  chownSync(ssh, user.uid, user.gid);
  chownSync(join(ssh, 'authorized_keys'), user.uid, user.gid);
}

export interface Dropbear {
  host: string;
  port: number;
  knownHostsLine: string;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Dropbear on loopback in its own mount namespace, where /usr/bin (so /bin too) is `bbDir`
 * and /usr/local/bin is empty: a login there finds BusyBox and nothing else (no bash,
 * coreutils, flock, nohup); the SFTP server is hidden, so there is no SFTP either. The
 * login shell is the user's /bin/sh, which in that namespace is BusyBox sh.
 */
export async function startDropbear(host: string, dir: string, bbDir: string): Promise<Dropbear> {
  const key = join(dir, 'dropbear_ed25519');
  if (!existsSync(key)) execFileSync('dropbearkey', ['-t', 'ed25519', '-f', key], { stdio: 'pipe' });
  const pub = execFileSync('dropbearkey', ['-y', '-f', key], { encoding: 'utf8' }).split('\n').find((l) => l.startsWith('ssh-'))!.split(' ');
  const empty = join(dir, 'empty');
  mkdirSync(empty, { recursive: true });
  const port = await freePort(host);
  const script = `set -e
mount --bind /dev/null /usr/lib/openssh/sftp-server 2>/dev/null || true
mount --bind "$2" /usr/local/bin
mount --bind "$1" /usr/bin
exec ${DROPBEAR} -F -E -s -p "$3" -r "$4" -P "$5"`;
  let log = '';
  const child: ChildProcess = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', bbDir, empty, `${host}:${port}`, key, join(dir, 'dropbear.pid')], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d) => { log += d.toString(); if (log.length > 1_000_000) log = log.slice(-500_000); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await Promise.race([waitForBanner(host, port), exited.then(() => { throw new Error(`dropbear exited: ${log}`); })]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    host, port,
    knownHostsLine: `[${host}]:${port} ${pub[0]} ${pub[1]}`,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export { keygen };
