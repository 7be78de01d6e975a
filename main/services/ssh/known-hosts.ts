// known_hosts in OpenSSH's format: plain and hashed (|1|salt|hmac) host patterns, [host]:port,
// wildcards and negation, @revoked lines. Read from several files, appended to the first.
import { createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { keyTypeOf } from './fingerprint';

export interface KnownHostLine {
  file: string;
  line: number;
  marker?: 'revoked' | 'cert-authority';
  patterns: string;
  keyType: string;
  key: Buffer;
}

export type KnownStatus =
  | { status: 'known'; from: string }
  | { status: 'changed'; from: string; key: Buffer }
  | { status: 'revoked'; from: string }
  | { status: 'unknown'; otherTypes: string[] };

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function hostLookupName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** OpenSSH's `HashKnownHosts` form of a host name. */
export function hashHostName(name: string, salt: Buffer = randomBytes(20)): string {
  const mac = createHmac('sha1', salt).update(name).digest();
  return `|1|${salt.toString('base64')}|${mac.toString('base64')}`;
}

function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return re.test(text);
}

/** Whether a host-pattern field (comma list, or one hashed entry) matches the lookup name. */
export function patternsMatch(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) {
    const [, , salt, mac] = patterns.split('|');
    if (!salt || !mac) return false;
    return hashHostName(name, Buffer.from(salt, 'base64')) === patterns;
  }
  let matched = false;
  for (const raw of patterns.split(',')) {
    const negate = raw.startsWith('!');
    const pat = negate ? raw.slice(1) : raw;
    if (!pat || !globMatch(pat, name)) continue;
    if (negate) return false;
    matched = true;
  }
  return matched;
}

export function parseKnownHosts(text: string, file: string): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const parts = line.split(/\s+/);
    let marker: KnownHostLine['marker'];
    if (parts[0] === '@revoked' || parts[0] === '@cert-authority') {
      marker = parts[0] === '@revoked' ? 'revoked' : 'cert-authority';
      parts.shift();
    }
    const [patterns, keyType, b64] = parts;
    if (!patterns || !keyType || !b64) return;
    const key = Buffer.from(b64, 'base64');
    if (key.length === 0) return;
    out.push({ file, line: i + 1, marker, patterns, keyType, key });
  });
  return out;
}

/** RSA keys appear as `ssh-rsa` whatever signature algorithm was negotiated. */
function family(type: string): string {
  return type === 'rsa-sha2-256' || type === 'rsa-sha2-512' ? 'ssh-rsa' : type;
}

const appendQueue = new Map<string, Promise<unknown>>();

export class KnownHosts {
  private constructor(readonly files: string[], private readonly lines: KnownHostLine[]) {}

  /** Reads every existing file of `files`; the first is the one new keys are added to. */
  static async load(files: string[]): Promise<KnownHosts> {
    const lines: KnownHostLine[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return '';
        throw new Error(`cannot read known hosts file ${file}: ${err.code ?? err.message}`);
      });
      lines.push(...parseKnownHosts(text, file));
    }
    return new KnownHosts(files, lines);
  }

  /** Lines (other than CA lines) whose patterns match the host. */
  linesFor(host: string, port: number): KnownHostLine[] {
    const name = hostLookupName(host, port);
    return this.lines.filter((l) => l.marker !== 'cert-authority' && patternsMatch(l.patterns, name));
  }

  check(host: string, port: number, key: Buffer): KnownStatus {
    const lines = this.linesFor(host, port);
    const type = family(keyTypeOf(key));
    const where = (l: KnownHostLine) => `${l.file}:${l.line}`;
    const revoked = lines.find((l) => l.marker === 'revoked' && l.key.equals(key));
    if (revoked) return { status: 'revoked', from: where(revoked) };
    const plain = lines.filter((l) => !l.marker);
    const same = plain.find((l) => l.key.equals(key));
    if (same) return { status: 'known', from: where(same) };
    const changed = plain.find((l) => family(l.keyType) === type);
    if (changed) return { status: 'changed', from: where(changed), key: changed.key };
    return { status: 'unknown', otherTypes: [...new Set(plain.map((l) => family(l.keyType)))] };
  }

  /**
   * The user replaced a changed key (after comparing it on the box): the host's lines of that key
   * family leave every file that holds them, then the new key is added. A file that cannot be
   * written (a system-wide known_hosts) fails the replacement with its name.
   */
  async replace(host: string, port: number, key: Buffer): Promise<void> {
    const type = family(keyTypeOf(key));
    const old = this.linesFor(host, port).filter((l) => !l.marker && family(l.keyType) === type);
    for (const file of new Set(old.map((l) => l.file))) {
      const drop = new Set(old.filter((l) => l.file === file).map((l) => l.line));
      const text = await readFile(file, 'utf8');
      const kept = text.split('\n').filter((_, i) => !drop.has(i + 1)).join('\n');
      await writeFile(file, kept, { mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
        throw new Error(`cannot remove the old key from ${file}: ${err.code ?? err.message}`);
      });
      const fresh = parseKnownHosts(kept, file);
      for (let i = this.lines.length - 1; i >= 0; i--) if (this.lines[i]!.file === file) this.lines.splice(i, 1);
      this.lines.push(...fresh);
    }
    await this.add(host, port, key);
  }

  /** Appends `host keytype base64` (hashed by default, like Debian's HashKnownHosts yes). */
  async add(host: string, port: number, key: Buffer, opts: { hash?: boolean } = {}): Promise<void> {
    const file = this.files[0];
    if (!file) throw new Error('no known hosts file to write to');
    const name = hostLookupName(host, port);
    const pattern = opts.hash === false ? name : hashHostName(name);
    const entry = `${pattern} ${keyTypeOf(key)} ${key.toString('base64')}\n`;
    const prev = appendQueue.get(file) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(async () => {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const size = await stat(file).then((s) => s.size, () => 0);
      const tail = size > 0 ? (await readFile(file)).subarray(-1).toString() : '\n';
      await appendFile(file, (tail === '\n' ? '' : '\n') + entry, { mode: 0o600 });
      return (await readFile(file, 'utf8')).split('\n').length - 1;
    });
    appendQueue.set(file, next);
    const line = await next;
    this.lines.push(...parseKnownHosts(entry, file).map((l) => ({ ...l, line })));
  }
}
