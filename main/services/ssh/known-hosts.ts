// known_hosts in OpenSSH's format: plain and hashed (|1|salt|hmac) host patterns, [host]:port,
// wildcards and negation, @revoked lines. Read from several files, appended to the first.
import { createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
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
  | { status: 'changed'; from: string }
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
    if (changed) return { status: 'changed', from: where(changed) };
    return { status: 'unknown', otherTypes: [...new Set(plain.map((l) => family(l.keyType)))] };
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
