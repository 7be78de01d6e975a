// Address comparisons that do not depend on spelling (::1 = 0:0:0:0:0:0:0:1).
import * as ipaddr from 'ipaddr.js';

export type Family = 'ipv4' | 'ipv6';

/** Dotted-quad IPv4 without leading zeros: the only IPv4 spelling a workspace accepts. */
export const IPV4_RE = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

interface Info {
  family: Family;
  key: string;
  wildcard: boolean;
}

// Big sites repeat the same few thousand addresses; parsing IPv6 is the slow part.
const cache = new Map<string, Info | null>();

function info(address: string): Info | undefined {
  if (IPV4_RE.test(address)) return { family: 'ipv4', key: `ipv4:${address}`, wildcard: address === '0.0.0.0' };
  let hit = cache.get(address);
  if (hit === undefined) {
    try {
      const a = ipaddr.parse(address);
      hit = { family: a.kind() === 'ipv4' ? 'ipv4' : 'ipv6', key: `${a.kind()}:${a.toNormalizedString()}`, wildcard: a.range() === 'unspecified' };
    } catch {
      hit = null;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(address, hit);
  }
  return hit ?? undefined;
}

/** True for the IPv4 and IPv6 literals a workspace accepts (no IPv4 shorthand like 127.1). */
export function isIpAddress(s: string): boolean {
  if (IPV4_RE.test(s)) return true;
  return s.includes(':') && ipaddr.IPv6.isValid(s);
}

export function familyOf(address: string): Family | undefined {
  return info(address)?.family;
}

/** One spelling per address, for equality (IPv6 zone ids kept). */
export function normalAddress(address: string): string {
  return info(address)?.key ?? address;
}

/** 0.0.0.0 or :: — a listener there takes the port on every address of its family. */
export function isWildcard(address: string): boolean {
  return info(address)?.wildcard ?? false;
}

export function sameAddress(a: string, b: string): boolean {
  return a === b || normalAddress(a) === normalAddress(b);
}
