// Algorithm offers: modern by default (like OpenSSH 8.8+: no SHA-1 signatures or kex, no CBC);
// `legacyAlgorithms: true` on an appliance adds the old ones for old firmware; the user's ssh
// config (KexAlgorithms, HostKeyAlgorithms, Ciphers, MACs, PubkeyAcceptedAlgorithms) changes
// the lists with OpenSSH's forms: `+` appends, `-` removes (wildcards), `^` puts first, else replaces.
import { createRequire } from 'node:module';

/** What the SSH library (ssh2) can speak at all. */
const SUPPORTED = (createRequire(__filename)('ssh2/lib/protocol/constants.js')) as Record<'SUPPORTED_KEX' | 'SUPPORTED_SERVER_HOST_KEY' | 'SUPPORTED_CIPHER' | 'SUPPORTED_MAC' | 'DEFAULT_KEX' | 'DEFAULT_CIPHER' | 'DEFAULT_MAC', string[]>;

const HOST_KEYS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'];
const LEGACY_HOST_KEYS = ['ssh-rsa', 'ssh-dss'];
const LEGACY_KEX = ['diffie-hellman-group14-sha1', 'diffie-hellman-group-exchange-sha1', 'diffie-hellman-group1-sha1'];
const LEGACY_CIPHERS = ['aes128-cbc', 'aes192-cbc', 'aes256-cbc', '3des-cbc'];
const LEGACY_MACS = ['hmac-md5'];
/** Signature algorithms for a user's RSA key: SHA-2, and SHA-1 (`ssh-rsa`) only when legacy. */
const RSA_SIGS = ['rsa-sha2-512', 'rsa-sha2-256'];
const LEGACY_RSA_SIGS = ['ssh-rsa'];
const RSA_SIG_ALL = [...RSA_SIGS, ...LEGACY_RSA_SIGS];

export type AlgoKind = 'kex' | 'serverHostKey' | 'cipher' | 'hmac' | 'pubkey';

/** The ssh config directive for each list (what a user would add a line for). */
export const DIRECTIVE: Record<AlgoKind, string> = {
  kex: 'KexAlgorithms', serverHostKey: 'HostKeyAlgorithms', cipher: 'Ciphers', hmac: 'MACs', pubkey: 'PubkeyAcceptedAlgorithms',
};

/** Raw ssh config values (as written, `+…`, `-…`, `^…` or a list). */
export type AlgoConfig = Partial<Record<AlgoKind, string>>;

export interface Algorithms { serverHostKey: string[]; kex: string[]; cipher: string[]; hmac: string[]; pubkey: string[] }

function base(legacy: boolean): Algorithms {
  const modern = (list: string[], drop: string[]) => list.filter((a) => !drop.includes(a));
  return {
    kex: [...modern(SUPPORTED.DEFAULT_KEX, LEGACY_KEX), ...(legacy ? LEGACY_KEX : [])],
    serverHostKey: [...HOST_KEYS, ...(legacy ? LEGACY_HOST_KEYS : [])],
    cipher: [...modern(SUPPORTED.DEFAULT_CIPHER, LEGACY_CIPHERS), ...(legacy ? LEGACY_CIPHERS : [])],
    hmac: [...modern(SUPPORTED.DEFAULT_MAC, LEGACY_MACS), ...(legacy ? LEGACY_MACS : [])],
    pubkey: [...RSA_SIGS, ...(legacy ? LEGACY_RSA_SIGS : [])],
  };
}

export function supported(kind: AlgoKind): string[] {
  switch (kind) {
    case 'kex': return SUPPORTED.SUPPORTED_KEX;
    case 'serverHostKey': return SUPPORTED.SUPPORTED_SERVER_HOST_KEY;
    case 'cipher': return SUPPORTED.SUPPORTED_CIPHER;
    case 'hmac': return SUPPORTED.SUPPORTED_MAC;
    case 'pubkey': return RSA_SIG_ALL;
  }
}

const pattern = (p: string) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

/** OpenSSH's list forms on `current`; names lbdesk cannot speak are left out (the config is OpenSSH's too). */
export function applyForm(current: string[], value: string, known: string[]): string[] {
  const v = value.trim();
  const items = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const speakable = (s: string) => items(s).filter((a) => known.includes(a));
  if (v.startsWith('+')) return [...current, ...speakable(v.slice(1)).filter((a) => !current.includes(a))];
  if (v.startsWith('^')) { const first = speakable(v.slice(1)); return [...first, ...current.filter((a) => !first.includes(a))]; }
  if (v.startsWith('-')) { const drop = items(v.slice(1)).map(pattern); return current.filter((a) => !drop.some((re) => re.test(a))); }
  return speakable(v);
}

/**
 * The offer for one connection. Host key algorithms for key types already known for the host
 * come first, so a host that has several keys is asked for the one we can check (OpenSSH's
 * order_hostkeyalgs).
 */
export function algorithmsFor(legacy: boolean, knownTypes: string[] = [], config: AlgoConfig = {}): Algorithms {
  const out = base(legacy);
  for (const kind of Object.keys(DIRECTIVE) as AlgoKind[]) {
    const value = config[kind];
    if (value) out[kind] = applyForm(out[kind], value, supported(kind));
  }
  const wanted = new Set(knownTypes.flatMap((t) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t])));
  out.serverHostKey = [...out.serverHostKey.filter((a) => wanted.has(a)), ...out.serverHostKey.filter((a) => !wanted.has(a))];
  return out;
}

/** ssh2's algorithms option (it takes no user-signature list: see rsaSignatures in auth.ts). */
export function ssh2Algorithms(a: Algorithms): { kex: string[]; serverHostKey: string[]; cipher: string[]; hmac: string[] } {
  return { kex: a.kex, serverHostKey: a.serverHostKey, cipher: a.cipher, hmac: a.hmac };
}

const KIND_OF_FAILURE: [RegExp, AlgoKind, string][] = [
  [/key exchange/i, 'kex', 'key exchange algorithm'],
  [/host key/i, 'serverHostKey', 'host key algorithm'],
  [/cipher/i, 'cipher', 'cipher'],
  [/MAC/, 'hmac', 'MAC'],
];

/**
 * A handshake failure in OpenSSH's words — what the server offered and what lbdesk did — and
 * what would allow one of theirs: `legacyAlgorithms: true` on the appliance, or a line for the
 * ssh config. `theirs` is the server's list for that step (from the handshake).
 */
export function describeNoMatch(message: string, ours: Algorithms, theirs: string[] | undefined, ctx: { appliance: string; host: string; legacy: boolean }): string {
  const hit = KIND_OF_FAILURE.find(([re]) => re.test(message));
  if (!hit) return message;
  const [, kind, what] = hit;
  // Markers of protocol extensions, not algorithms one could allow.
  theirs = theirs?.filter((a) => !/^(ext-info-|kex-strict-)/.test(a));
  const offered = theirs?.length ? theirs.join(',') : 'unknown';
  const head = `no matching ${what} found. Their offer: ${offered}. lbdesk offered: ${ours[kind].join(',') || 'nothing'}`;
  if (!theirs?.length) return `${head}.`;
  const speakable = theirs.filter((a) => supported(kind).includes(a));
  if (!speakable.length) return `${head}. lbdesk's SSH library speaks none of theirs: the appliance needs newer algorithms enabled.`;
  const legacyOnly = speakable.filter((a) => base(true)[kind].includes(a) && !base(false)[kind].includes(a));
  const fixes: string[] = [];
  if (legacyOnly.length && !ctx.legacy) fixes.push(`legacyAlgorithms: true on appliance ${ctx.appliance} allows ${legacyOnly[0]}`);
  fixes.push(`or the line "${DIRECTIVE[kind]} +${speakable[0]}" under "Host ${ctx.host}" in ~/.ssh/config`);
  if (fixes.length === 1) fixes[0] = fixes[0]!.replace(/^or /, '');
  return `${head}. To allow it (old, weaker algorithms: only for firmware that has nothing better): ${fixes.join(', ')}.`;
}
