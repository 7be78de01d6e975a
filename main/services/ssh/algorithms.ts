// Algorithm offers: modern by default (like OpenSSH 8.8+, no SHA-1 signatures or kex, no CBC);
// `legacyAlgorithms: true` on an appliance adds the old ones for old firmware.
const HOST_KEYS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'];
const LEGACY_HOST_KEYS = ['ssh-rsa', 'ssh-dss'];
const LEGACY_KEX = ['diffie-hellman-group14-sha1', 'diffie-hellman-group-exchange-sha1', 'diffie-hellman-group1-sha1'];
const LEGACY_CIPHERS = ['aes128-cbc', 'aes192-cbc', 'aes256-cbc', '3des-cbc'];
const LEGACY_MACS = ['hmac-md5'];

type AlgoList = string[] | { append?: string[]; remove?: string[] };
export interface Algorithms { serverHostKey: string[]; kex: AlgoList; cipher: AlgoList; hmac: AlgoList }

/**
 * Host key algorithms for key types already known for the host come first, so a host that
 * has several keys is asked for the one we can check (OpenSSH's order_hostkeyalgs).
 */
export function algorithmsFor(legacy: boolean, knownTypes: string[] = []): Algorithms {
  const all = legacy ? [...HOST_KEYS, ...LEGACY_HOST_KEYS] : HOST_KEYS;
  const wanted = new Set(knownTypes.flatMap((t) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t])));
  const serverHostKey = [...all.filter((a) => wanted.has(a)), ...all.filter((a) => !wanted.has(a))];
  if (!legacy) return { serverHostKey, kex: { remove: LEGACY_KEX }, cipher: { remove: LEGACY_CIPHERS }, hmac: { remove: LEGACY_MACS } };
  return { serverHostKey, kex: { append: LEGACY_KEX }, cipher: { append: LEGACY_CIPHERS }, hmac: { append: LEGACY_MACS } };
}
