// Opens an SSH connection to an appliance like OpenSSH would: ~/.ssh/config resolution,
// ProxyJump hops (each host key checked on its own), agent / key / password auth, keepalives.
import { Client, type ClientChannel, type SFTPWrapper } from 'ssh2';
import type { Duplex } from 'node:stream';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HostKeyPrompt, InteractivePrompt, SecretPrompt } from '../../../shared/api/sync';
import type { SecretStore } from '../secrets/types';
import { algorithmsFor, describeNoMatch, ssh2Algorithms, type AlgoKind } from './algorithms';
import { destination } from '../secrets/bound';
import { authHandler, DEFAULT_KEY_FILES, describeStep, type AuthStep } from './auth';
import { SshError } from './errors';
import { RsaSignatures } from './rsa-signatures';
import { decideHostKey, type HostKeyDecision } from './host-key';
import { KnownHosts } from './known-hosts';
import { SshConfigSet, type ResolvedHost } from './ssh-config';

/** The SSH side of an appliance, as the workspace says it. */
export interface SshEndpoint {
  appliance: string;
  host: string;
  /** Undefined or 22 defers to the ssh config's Port. */
  port?: number;
  user?: string;
  auth: 'agent' | 'key' | 'password';
  keyFile?: string;
  /** `SHA256:…` pin; a different key is refused. */
  hostKey?: string;
  legacyAlgorithms?: boolean;
}

export interface SshOptions {
  /** Loaded once per run and shared (a fleet push resolves 50 hosts from one parse). */
  sshConfig?: SshConfigSet;
  /** Like `ssh -F`: only this file (no system file). */
  sshConfigFile?: string;
  /** Only this known_hosts file, read and written. Tests always set it. */
  knownHostsFile?: string;
  knownHosts?: KnownHosts;
  /** Key file to use whatever the workspace `auth` says (CLI --identity). */
  identityFile?: string;
  /** ssh-agent socket; default IdentityAgent, else $SSH_AUTH_SOCK. */
  agentSocket?: string;
  secrets?: SecretStore;
  askSecret?: (p: SecretPrompt) => Promise<string | undefined>;
  /** keyboard-interactive rounds other than a lone password prompt (OTP): CLI terminal, app dialog. */
  answerPrompts?: (p: InteractivePrompt) => Promise<string[] | undefined>;
  /** Unknown host keys are refused unless this says yes (CLI: --accept-new; UI: a dialog). */
  confirmHostKey?: (p: HostKeyPrompt) => Promise<boolean>;
  /** A changed host key put to the user beside the old ones (the window); without it, refused. */
  confirmChangedHostKey?: (p: HostKeyPrompt) => Promise<boolean>;
  onHostKeyRefused?: (p: HostKeyPrompt) => void;
  readyTimeoutMs?: number;
  /** Gives up the connection attempt (the window's Cancel while it waits for a silent appliance). */
  signal?: AbortSignal;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
}

export interface ExecResult {
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  /** stdout exactly as sent (for file contents). */
  raw: Buffer;
}

const MAX_OUTPUT = 32 * 1024 * 1024;

interface Hop { resolved: ResolvedHost; jump: boolean }

export async function loadSshConfig(opts: SshOptions): Promise<SshConfigSet> {
  return opts.sshConfig ?? SshConfigSet.load(opts.sshConfigFile ? [opts.sshConfigFile] : undefined);
}

export async function loadKnownHosts(opts: SshOptions, resolved?: ResolvedHost): Promise<KnownHosts> {
  if (opts.knownHosts) return opts.knownHosts;
  if (opts.knownHostsFile) return KnownHosts.load([opts.knownHostsFile]);
  const user = resolved?.userKnownHostsFiles ?? [join(homedir(), '.ssh', 'known_hosts')];
  const global = resolved?.globalKnownHostsFiles ?? ['/etc/ssh/ssh_known_hosts'];
  return KnownHosts.load([...user, ...global]);
}

/** The hops OpenSSH would take: every ProxyJump host (resolved through the config), then the target. */
export function planHops(endpoint: SshEndpoint, config: SshConfigSet): Hop[] {
  const target = config.resolve(endpoint.host, { port: endpoint.port, user: endpoint.user });
  if (target.proxyCommand) {
    throw new SshError('config', `${endpoint.appliance}: ProxyCommand is not supported for ${endpoint.host}; use ProxyJump`);
  }
  const jumps = target.proxyJump.map((j) => ({ resolved: config.resolve(j.host, { port: j.port, user: j.user }), jump: true }));
  return [...jumps, { resolved: target, jump: false }];
}

function authSteps(hop: Hop, endpoint: SshEndpoint, opts: SshOptions): AuthStep[] {
  const r = hop.resolved;
  const agentSocket = opts.agentSocket ?? (r.identityAgent && r.identityAgent !== 'none' ? r.identityAgent : undefined) ?? process.env.SSH_AUTH_SOCK;
  if (!hop.jump) {
    if (opts.identityFile) return [{ kind: 'key', file: opts.identityFile, required: true }];
    if (endpoint.auth === 'password') return [{ kind: 'password' }];
    if (endpoint.auth === 'agent') {
      if (!agentSocket || r.identityAgent === 'none') {
        throw new SshError('config', `${endpoint.appliance}: auth is agent but no ssh-agent is available (SSH_AUTH_SOCK is not set)`);
      }
      return [{ kind: 'agent', socket: agentSocket }];
    }
    const file = endpoint.keyFile ? expandHome(endpoint.keyFile) : r.identityFiles[0];
    if (file) return [{ kind: 'key', file, required: true }];
    return DEFAULT_KEY_FILES.map((f) => ({ kind: 'key', file: f, required: false }));
  }
  // A jump host: whatever OpenSSH would offer it — the agent, its IdentityFiles, the appliance's key.
  const steps: AuthStep[] = [];
  if (agentSocket && r.identityAgent !== 'none') steps.push({ kind: 'agent', socket: agentSocket });
  const files = [...r.identityFiles, ...(opts.identityFile ? [opts.identityFile] : []), ...(endpoint.keyFile ? [expandHome(endpoint.keyFile)] : [])];
  for (const f of files.length ? files : DEFAULT_KEY_FILES) steps.push({ kind: 'key', file: f, required: false });
  return steps;
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

function hopLabel(r: ResolvedHost): string {
  return `${r.user}@${r.hostName}${r.port === 22 ? '' : `:${r.port}`}`;
}

/** One authenticated ssh2 client over `sock` (a jump channel) or a fresh TCP connection. */
function connectHop(hop: Hop, endpoint: SshEndpoint, opts: SshOptions, knownHosts: KnownHosts, sock?: Duplex): Promise<Client> {
  const r = hop.resolved;
  const label = `${hop.jump ? 'jump host ' : ''}${hopLabel(r)}`;
  const steps = authSteps(hop, endpoint, opts);
  const authState: { failure?: SshError; tried: string[] } = { tried: [] };
  let keyRefusal: SshError | undefined;
  const client = new Client();
  const known = knownHosts.linesFor(r.hostKeyName, r.port).map((l) => l.keyType);
  const legacy = endpoint.legacyAlgorithms === true;
  const algorithms = algorithmsFor(legacy, known, r.algorithms);
  // The server's offers, read from ssh2's handshake trace, so a failure can name them as OpenSSH does.
  const theirs: Partial<Record<AlgoKind, string[]>> = {};
  const TRACE: [RegExp, AlgoKind][] = [[/^Handshake: \(remote\) KEX method: (.*)$/, 'kex'], [/^Handshake: \(remote\) Host key format: (.*)$/, 'serverHostKey'], [/^Handshake: \(remote\) [CS]->[CS] cipher: (.*)$/, 'cipher'], [/^Handshake: \(remote\) [CS]->[CS] MAC: (.*)$/, 'hmac']];
  let tracing = true;
  const trace = (line: string) => {
    if (!tracing) return;
    for (const [re, kind] of TRACE) {
      const m = re.exec(line);
      if (m) theirs[kind] = m[1]!.split(',');
    }
  };
  client.once('handshake', () => { tracing = false; });
  const rsa = new RsaSignatures(algorithms.pubkey);
  const readyTimeout = opts.readyTimeoutMs ?? (r.connectTimeoutS ? r.connectTimeoutS * 1000 : 20_000);
  // Whether TCP got through says where a silent appliance hangs: the network, or the SSH server.
  let tcp = false;
  client.once('connect', () => { tcp = true; });
  return new Promise<Client>((resolve, reject) => {
    let settled = false;
    const onAbort = () => fail(new SshError('closed', `${label}: cancelled ${tcp ? 'after TCP connected, before the SSH handshake finished' : 'before TCP connected'}`));
    const fail = (err: SshError) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      client.end();
      client.destroy();
      reject(err);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    client.on('ready', () => {
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      // A CLI command and its prompt are one small packet each way: with Nagle's algorithm each
      // would wait for a delayed ACK (~40 ms). OpenSSH sets TCP_NODELAY for the same reason.
      client.setNoDelay(true);
      resolve(client);
    });
    client.on('error', (err: Error & { level?: string }) => {
      if (settled) return;
      // Agent and signing problems are reported by ssh2 and then the next method is tried.
      if (err.level === 'agent') return;
      if (keyRefusal) return fail(keyRefusal);
      if (authState.failure) return fail(authState.failure);
      if (err.level === 'client-authentication') {
        const tried = authState.tried.length ? authState.tried.join(', ') : steps.map(describeStep).join(', ');
        const sha1 = /\((rsa-sha2-\d+)\)/.test(tried) && !algorithms.pubkey.includes('ssh-rsa')
          ? '; an RSA key signed with SHA-2 only: a server that accepts only ssh-rsa (SHA-1) signatures needs legacyAlgorithms: true on the appliance, or "PubkeyAcceptedAlgorithms +ssh-rsa" in ~/.ssh/config'
          : '';
        return fail(new SshError('auth', `authentication failed for ${label} (tried ${tried})${sha1}`));
      }
      if (err.level === 'client-timeout' || /timed out/i.test(err.message)) {
        const secs = `${Math.round(readyTimeout / 100) / 10} s`;
        return fail(new SshError('timeout', tcp
          ? `${label}: TCP connected, but no SSH handshake within ${secs} (the port accepts connections and the SSH server does not answer)`
          : `${label}: no TCP connection within ${secs} (nothing answered: the host is down, or a firewall drops the packets)`));
      }
      if (/Handshake failed: no matching/i.test(err.message)) {
        const kind = /key exchange/i.test(err.message) ? 'kex' : /host key/i.test(err.message) ? 'serverHostKey' : /cipher/i.test(err.message) ? 'cipher' : 'hmac';
        return fail(new SshError('connect', `${label}: ${describeNoMatch(err.message, algorithms, theirs[kind], { appliance: endpoint.appliance, host: r.alias, legacy })}`));
      }
      fail(new SshError('connect', `${label}: ${err.message}`));
    });
    client.on('close', () => fail(keyRefusal ?? authState.failure ?? new SshError('closed', `${label}: connection closed during setup`)));

    client.connect({
      host: sock ? undefined : r.hostName,
      port: sock ? undefined : r.port,
      sock,
      username: r.user,
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        decideHostKey(key, {
          name: r.hostKeyName, port: r.port, appliance: endpoint.appliance, jump: hop.jump,
          pin: hop.jump ? undefined : endpoint.hostKey, knownHosts,
          confirm: opts.confirmHostKey, confirmChanged: opts.confirmChangedHostKey, onRefused: opts.onHostKeyRefused,
        }).then((d: HostKeyDecision) => {
          if (!d.ok) keyRefusal = d.error;
          verify(d.ok);
        }, (err: Error) => {
          keyRefusal = new SshError('config', `${label}: cannot check host key: ${err.message}`);
          verify(false);
        });
      },
      authHandler: authHandler({ appliance: endpoint.appliance, host: destination(r.hostName, r.port), username: r.user, steps, secrets: opts.secrets, askSecret: opts.askSecret, answerPrompts: opts.answerPrompts, label, rsa }, authState),
      algorithms: ssh2Algorithms(algorithms) as never,
      debug: trace,
      keepaliveInterval: opts.keepaliveIntervalMs ?? (r.serverAliveIntervalS ? r.serverAliveIntervalS * 1000 : 15_000),
      keepaliveCountMax: opts.keepaliveCountMax ?? r.serverAliveCountMax ?? 3,
      readyTimeout,
    });
    rsa.attach(client);
  });
}

function forward(client: Client, host: string, port: number): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
      if (err) reject(new SshError('connect', `jump to ${host}:${port} refused: ${err.message}`));
      else resolve(stream);
    });
  });
}

/** An open, authenticated connection to one appliance (through its jump hosts, if any). */
export class SshConnection {
  private sftpPromise?: Promise<SFTPWrapper>;
  private closed = false;
  private readonly closeWaiters = new Set<(err: Error) => void>();

  constructor(readonly client: Client, private readonly jumps: Client[], readonly label: string, readonly resolved: ResolvedHost) {
    client.on('close', () => {
      this.closed = true;
      for (const w of this.closeWaiters) w(new SshError('closed', `${label}: connection lost`));
      for (const j of this.jumps) j.end();
    });
    client.on('error', () => undefined);
  }

  get isClosed(): boolean { return this.closed; }

  /** `p`, but rejected as soon as the connection drops (SFTP requests may otherwise never answer). */
  guard<T>(p: Promise<T>): Promise<T> {
    p.catch(() => undefined); // a late rejection after the drop was already reported is expected
    if (this.closed) return Promise.reject(new SshError('closed', `${this.label}: connection lost`));
    return new Promise<T>((resolve, reject) => {
      const onLost = (e: Error) => reject(e);
      this.closeWaiters.add(onLost);
      p.then(
        (v) => { this.closeWaiters.delete(onLost); resolve(v); },
        (e: unknown) => { this.closeWaiters.delete(onLost); reject(e); },
      );
    });
  }

  /** Runs a command; resolves with its exit status and output (bounded), rejects if the connection drops. */
  exec(command: string, opts: { stdin?: string | Buffer; timeoutMs?: number } = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new SshError('closed', `${this.label}: connection lost`));
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = '';
      let timer: NodeJS.Timeout | undefined;
      const onLost = (e: Error) => { clearTimeout(timer); reject(e); };
      this.closeWaiters.add(onLost);
      this.client.exec(command, (e, stream) => {
        if (e) {
          this.closeWaiters.delete(onLost);
          return reject(new SshError(this.closed ? 'closed' : 'connect', `${this.label}: cannot run a command: ${e.message}`));
        }
        if (opts.timeoutMs) {
          timer = setTimeout(() => {
            this.closeWaiters.delete(onLost);
            stream.signal('KILL');
            stream.close();
            reject(new SshError('timeout', `${this.label}: command did not finish within ${Math.round(opts.timeoutMs! / 1000)}s`));
          }, opts.timeoutMs);
        }
        stream.on('data', (d: Buffer) => {
          if (outBytes < MAX_OUTPUT) { out.push(d); outBytes += d.length; }
        });
        stream.stderr.on('data', (d: Buffer) => { if (err.length < MAX_OUTPUT) err += d.toString('utf8'); });
        stream.on('close', (code: number | null | undefined, signal?: string) => {
          clearTimeout(timer);
          this.closeWaiters.delete(onLost);
          if (code === undefined && signal === undefined && this.closed) return reject(new SshError('closed', `${this.label}: connection lost`));
          const raw = Buffer.concat(out);
          resolve({ code: code ?? null, signal: signal ?? undefined, stdout: raw.toString('utf8'), stderr: err, raw });
        });
        stream.end(opts.stdin ?? '');
      });
    });
  }

  /** A raw exec channel, for commands that live as long as the channel (the push lock). */
  channel(command: string): Promise<ClientChannel> {
    return this.guard(new Promise((resolve, reject) => {
      this.client.exec(command, (e, stream) => (e ? reject(new SshError('connect', `${this.label}: cannot run a command: ${e.message}`)) : resolve(stream)));
    }));
  }

  /** The SFTP subsystem, opened once; rejects when the server has none. */
  sftp(): Promise<SFTPWrapper> {
    this.sftpPromise ??= this.guard(new Promise<SFTPWrapper>((resolve, reject) => {
      this.client.sftp((e, sftp) => (e ? reject(new SshError('connect', `${this.label}: no SFTP: ${e.message}`)) : resolve(sftp)));
    }));
    return this.sftpPromise;
  }

  close(): void {
    this.client.end();
    for (const j of [...this.jumps].reverse()) j.end();
  }

  /** Cuts the connection at once (tests use it to cut at random points). */
  destroy(): void {
    this.client.destroy();
    for (const j of this.jumps) j.destroy();
  }
}

export async function connectSsh(endpoint: SshEndpoint, opts: SshOptions = {}): Promise<SshConnection> {
  const config = await loadSshConfig(opts);
  const hops = planHops(endpoint, config);
  const target = hops[hops.length - 1]!.resolved;
  const knownHosts = await loadKnownHosts(opts, target);
  const clients: Client[] = [];
  try {
    let sock: Duplex | undefined;
    for (let i = 0; i < hops.length; i++) {
      const hop = hops[i]!;
      if (i > 0) sock = await forward(clients[i - 1]!, hop.resolved.hostName, hop.resolved.port);
      clients.push(await connectHop(hop, endpoint, opts, knownHosts, sock));
    }
  } catch (err) {
    for (const c of clients.reverse()) c.end();
    throw err;
  }
  const client = clients.pop()!;
  return new SshConnection(client, clients, hopLabel(target), target);
}
