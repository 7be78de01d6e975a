// ~/.ssh/config resolution the way OpenSSH does it (Host aliases, HostName, Port, User,
// IdentityFile, ProxyJump, HostKeyAlias, keepalives), parsed by the `ssh-config` package.
// Include directives are expanded here; the package only parses.
import { readFile, readdir } from 'node:fs/promises';
import { homedir, hostname, userInfo } from 'node:os';
import { dirname, isAbsolute, join, basename } from 'node:path';
import SSHConfig from 'ssh-config';
import type { AlgoConfig } from './algorithms';

export interface JumpSpec { host: string; port?: number; user?: string }

export interface ResolvedHost {
  /** What was asked for (the workspace `host`, possibly an alias). */
  alias: string;
  /** What is dialled. */
  hostName: string;
  port: number;
  user: string;
  /** Expanded IdentityFile entries from the config, in order (may not exist). */
  identityFiles: string[];
  /** IdentityAgent: a socket path, or `none`. */
  identityAgent?: string;
  proxyJump: JumpSpec[];
  proxyCommand?: string;
  /** The name known_hosts is consulted under (HostKeyAlias, else HostName). */
  hostKeyName: string;
  userKnownHostsFiles?: string[];
  globalKnownHostsFiles?: string[];
  serverAliveIntervalS?: number;
  serverAliveCountMax?: number;
  connectTimeoutS?: number;
  /** KexAlgorithms, HostKeyAlgorithms, Ciphers, MACs, PubkeyAcceptedAlgorithms as written (see algorithms.ts). */
  algorithms: AlgoConfig;
}

type Computed = Record<string, string | string[]>;
const MAX_INCLUDE_DEPTH = 16;

function localUser(): string {
  try { return userInfo().username; } catch { return process.env.USER ?? 'root'; }
}

/** `~` and OpenSSH's % tokens. */
export function expandTokens(value: string, t: { host: string; alias: string; port: number; user: string }): string {
  const home = homedir();
  const out = value.replace(/%([%hprunldiLC])/g, (_m, c: string) => {
    switch (c) {
      case '%': return '%';
      case 'h': return t.host;
      case 'n': return t.alias;
      case 'p': return String(t.port);
      case 'r': return t.user;
      case 'u': return localUser();
      case 'd': return home;
      case 'l': return hostname();
      case 'L': return hostname().split('.')[0] ?? '';
      case 'i': return String(process.getuid?.() ?? 0);
      default: return `%${c}`;
    }
  });
  return out.startsWith('~/') || out === '~' ? join(home, out.slice(1)) : out;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function toInt(v: string | string[] | undefined): number | undefined {
  const s = first(v);
  if (s === undefined || !/^\d+$/.test(s)) return undefined;
  return Number(s);
}

/** `[user@]host[:port]` or `ssh://[user@]host[:port]`, comma separated; `none` is none. */
export function parseProxyJump(value: string | undefined): JumpSpec[] {
  if (!value || value.toLowerCase() === 'none') return [];
  return value.split(',').map((raw) => {
    let s = raw.trim().replace(/^ssh:\/\//, '');
    let user: string | undefined;
    const at = s.lastIndexOf('@');
    if (at >= 0) { user = s.slice(0, at); s = s.slice(at + 1); }
    let host = s;
    let port: number | undefined;
    const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
    if (bracket) { host = bracket[1]!; port = bracket[2] ? Number(bracket[2]) : undefined; }
    else if (/^[^:]+:\d+$/.test(s)) { const i = s.lastIndexOf(':'); host = s.slice(0, i); port = Number(s.slice(i + 1)); }
    if (!host) throw new Error(`ProxyJump "${value}": empty host`);
    return { host, port, user };
  });
}

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
}

async function expandGlob(pattern: string): Promise<string[]> {
  const dir = dirname(pattern);
  const base = basename(pattern);
  if (!/[*?]/.test(base)) return [pattern];
  const names = await readdir(dir).catch(() => [] as string[]);
  const re = wildcard(base);
  return names.filter((n) => re.test(n)).sort().map((n) => join(dir, n));
}

/** Parses a file and splices in its Include directives (relative paths are relative to `relTo`). */
async function parseWithIncludes(file: string, relTo: string, depth: number): Promise<SSHConfig> {
  const text = await readFile(file, 'utf8');
  let config: SSHConfig;
  try { config = SSHConfig.parse(text); } catch (err) {
    throw new Error(`${file}: cannot parse ssh config: ${(err as Error).message}`);
  }
  const expand = async (lines: SSHConfig): Promise<void> => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.type !== SSHConfig.DIRECTIVE) continue;
      if ('config' in line) { await expand(line.config); continue; }
      if (!/^include$/i.test(line.param)) continue;
      if (depth >= MAX_INCLUDE_DEPTH) throw new Error(`${file}: Include nested too deeply`);
      const values = Array.isArray(line.value) ? line.value.map((v) => v.val) : [line.value];
      const spliced: SSHConfig[number][] = [];
      for (const v of values) {
        const expanded = v.startsWith('~') ? join(homedir(), v.slice(1)) : v;
        const path = isAbsolute(expanded) ? expanded : join(relTo, expanded);
        for (const f of await expandGlob(path)) {
          const inc = await parseWithIncludes(f, relTo, depth + 1).catch((err: NodeJS.ErrnoException) => {
            if (err.code === 'ENOENT') return undefined;
            throw err;
          });
          if (inc) spliced.push(...inc);
        }
      }
      lines.splice(i, 1, ...spliced);
      i += spliced.length - 1;
    }
  };
  await expand(config);
  return config;
}

export class SshConfigSet {
  private constructor(private readonly config: SSHConfig) {}

  /**
   * Loads config files in precedence order (first value obtained wins, as in OpenSSH).
   * Default: ~/.ssh/config then /etc/ssh/ssh_config; an explicit list (like `ssh -F`) replaces both.
   */
  static async load(files?: string[]): Promise<SshConfigSet> {
    const list = files ?? [join(homedir(), '.ssh', 'config'), '/etc/ssh/ssh_config'];
    const merged = new SSHConfig();
    for (const file of list) {
      const relTo = file.startsWith('/etc/') ? '/etc/ssh' : join(homedir(), '.ssh');
      const parsed = await parseWithIncludes(file, relTo, 0).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && files === undefined) return undefined;
        if (err.code) throw new Error(`cannot read ssh config ${file}: ${err.code}`);
        throw err;
      });
      if (parsed) merged.push(...parsed);
    }
    return new SshConfigSet(merged);
  }

  static empty(): SshConfigSet {
    return new SshConfigSet(new SSHConfig());
  }

  /**
   * What OpenSSH would dial for `alias`. A workspace `user` wins like `ssh -l`; a workspace
   * `port` wins when given (undefined or 22 defers to the config's Port).
   */
  resolve(alias: string, overrides: { port?: number; user?: string } = {}): ResolvedHost {
    const c: Computed = this.config.compute(overrides.user ? { Host: alias, User: overrides.user } : { Host: alias }, { ignoreCase: true });
    const user = overrides.user ?? first(c.user) ?? localUser();
    const configPort = toInt(c.port);
    const port = overrides.port !== undefined && overrides.port !== 22 ? overrides.port : configPort ?? overrides.port ?? 22;
    const rawHostName = first(c.hostname);
    const hostName = rawHostName ? rawHostName.replace(/%h/g, alias).replace(/%%/g, '%') : alias;
    const tokens = { host: hostName, alias, port, user };
    const list = (v: string | string[] | undefined) => (v === undefined ? undefined : (Array.isArray(v) ? v : v.split(/\s+/)).filter(Boolean).map((x) => expandTokens(x, tokens)));
    const proxyCommand = first(c.proxycommand);
    const agent = first(c.identityagent);
    const alias2 = first(c.hostkeyalias);
    return {
      alias,
      hostName,
      port,
      user,
      identityFiles: list(c.identityfile) ?? [],
      identityAgent: agent === undefined ? undefined : agent === 'SSH_AUTH_SOCK' ? process.env.SSH_AUTH_SOCK : expandTokens(agent, tokens),
      proxyJump: parseProxyJump(first(c.proxyjump)),
      proxyCommand: proxyCommand && proxyCommand.toLowerCase() !== 'none' ? proxyCommand : undefined,
      hostKeyName: alias2 ?? hostName,
      userKnownHostsFiles: list(c.userknownhostsfile),
      globalKnownHostsFiles: list(c.globalknownhostsfile),
      serverAliveIntervalS: toInt(c.serveraliveinterval),
      serverAliveCountMax: toInt(c.serveralivecountmax),
      connectTimeoutS: toInt(c.connecttimeout),
      algorithms: Object.fromEntries(Object.entries({
        kex: first(c.kexalgorithms), serverHostKey: first(c.hostkeyalgorithms), cipher: first(c.ciphers), hmac: first(c.macs),
        pubkey: first(c.pubkeyacceptedalgorithms) ?? first(c.pubkeyacceptedkeytypes),
      }).filter(([, v]) => v !== undefined)) as AlgoConfig,
    };
  }
}
