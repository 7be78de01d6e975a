// A real OpenSSH sshd for tests: own host and user keys, own config, loopback only, no
// system paths touched except the privilege-separation runtime dir /run/sshd.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';
export const haveSshd = existsSync(SSHD) && existsSync('/usr/bin/ssh-keygen');
/** Why sshd tests skip ('' when they run). */
export const noSshd = haveSshd ? '' : `${SSHD} or /usr/bin/ssh-keygen is missing (apt-get install openssh-server openssh-client)`;
export const haveAgent = existsSync('/usr/bin/ssh-agent') && existsSync('/usr/bin/ssh-add');
export const SFTP_SERVER = existsSync('/usr/lib/openssh/sftp-server') ? '/usr/lib/openssh/sftp-server' : 'internal-sftp';

export interface KeyPair { path: string; pub: string; fingerprint: string }

export function keygen(path: string, type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519', passphrase = ''): KeyPair {
  if (!existsSync(path)) {
    execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', passphrase, '-C', 'lbdesk-test', '-f', path]);
  }
  const pub = readFileSync(`${path}.pub`, 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${path}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  return { path, pub, fingerprint };
}

export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once the port answers with an SSH banner. */
export async function waitForBanner(host: string, port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, host);
      s.setTimeout(1000, () => { s.destroy(); resolve(false); });
      s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('SSH-')); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`sshd on ${host}:${port} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface SshdOptions {
  host?: string;
  /** Reuse a directory (same host and user keys across restarts). */
  dir?: string;
  sftp?: boolean;
  /** Which host key to serve; a second set (`hostKeyName: 'other'`) simulates a reinstalled appliance. */
  hostKeyType?: 'ed25519' | 'ecdsa' | 'rsa';
  hostKeyName?: string;
  /** Extra sshd_config lines. */
  extra?: string[];
  /** Log in only through keyboard-interactive answered by PAM, under the service named by `binary`'s file name. */
  pam?: boolean;
  /** sshd to run (a link to it under another name gives PAM another service name). */
  binary?: string;
  port?: number;
}

export interface Sshd {
  host: string;
  port: number;
  dir: string;
  userKey: KeyPair;
  hostKey: KeyPair;
  /** `[host]:port type base64` as OpenSSH writes it (not hashed). */
  knownHostsLine: string;
  /** sshd's own log (-e). */
  log(): string;
  stop(): Promise<void>;
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const host = opts.host ?? '127.0.8.1';
  const owned = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'lbdesk-sshd-'));
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const type = opts.hostKeyType ?? 'ed25519';
  const hostKey = keygen(join(dir, `host_${opts.hostKeyName ?? 'main'}_${type}`), type);
  const userKey = keygen(join(dir, 'user_ed25519'));
  const authorized = join(dir, 'authorized_keys');
  if (!existsSync(authorized)) writeFileSync(authorized, `${userKey.pub}\n`, { mode: 0o600 });
  const port = opts.port ?? await freePort(host);
  const cfg = join(dir, `sshd_config_${port}`);
  writeFileSync(cfg, [
    `ListenAddress ${host}:${port}`,
    `HostKey ${hostKey.path}`,
    `PidFile ${join(dir, `sshd_${port}.pid`)}`,
    `AuthorizedKeysFile ${authorized}`,
    'StrictModes no',
    ...(opts.pam
      ? ['UsePAM yes', 'KbdInteractiveAuthentication yes', 'AuthenticationMethods keyboard-interactive']
      : ['UsePAM no', 'KbdInteractiveAuthentication no']),
    'PermitRootLogin yes',
    'PasswordAuthentication no',
    'AllowTcpForwarding yes',
    'MaxStartups 200:30:400',
    'MaxSessions 100',
    'LogLevel VERBOSE',
    // Debian's bash sources ~/.bashrc for every ssh command unless SHLVL says it is nested;
    // a slow .bashrc (pyenv, nvm) would otherwise dominate every test.
    'SetEnv SHLVL=1',
    ...(opts.sftp === false ? [] : [`Subsystem sftp ${SFTP_SERVER}`]),
    ...(opts.extra ?? []),
    '',
  ].join('\n'));
  let log = '';
  const child: ChildProcess = spawn(opts.binary ?? SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d) => { log += d.toString(); if (log.length > 2_000_000) log = log.slice(-1_000_000); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await Promise.race([waitForBanner(host, port), exited.then(() => { throw new Error(`sshd exited: ${log}`); })]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const hostPub = hostKey.pub.split(' ');
  return {
    host, port, dir, userKey, hostKey,
    knownHostsLine: `[${host}]:${port} ${hostPub[0]} ${hostPub[1]}`,
    log: () => log,
    /** Stops sshd; removes its directory when the helper made it (others sharing it stop first). */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      if (owned) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Agent { socket: string; stop(): Promise<void> }

/** A real ssh-agent on its own socket holding `keys`. */
export async function startAgent(dir: string, keys: string[]): Promise<Agent> {
  const socket = join(dir, `agent-${process.pid}-${Date.now()}.sock`);
  const child = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const until = Date.now() + 5000;
  while (!existsSync(socket)) {
    if (Date.now() > until) { child.kill(); throw new Error('ssh-agent did not start'); }
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const k of keys) execFileSync('ssh-add', ['-q', k], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: 'ignore' });
  return {
    socket,
    stop: async () => {
      if (child.exitCode === null) { child.kill('SIGTERM'); await exited; }
      rmSync(socket, { force: true });
    },
  };
}

/** A workspace's `appliances:` entry (YAML lines) for an HAProxy box behind this sshd, logged in as root with its key. */
export function haproxyApplianceLines(sshd: Sshd, name: string, configPath: string, commands: { validate?: string; reload?: string; comment?: string } = {}): string[] {
  return [
    `  - name: ${name}${commands.comment ? `   # ${commands.comment}` : ''}`,
    `    host: ${sshd.host}`,
    `    port: ${sshd.port}`,
    '    user: root',
    '    auth: key',
    `    keyFile: ${sshd.userKey.path}`,
    '    driver: haproxy',
    `    configPath: ${configPath}`,
    ...(commands.validate ? [`    validateCommand: "${commands.validate}"`] : []),
    ...(commands.reload ? [`    reloadCommand: "${commands.reload}"`] : []),
  ];
}
