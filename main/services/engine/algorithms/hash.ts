// Source hashing by weighted rendezvous (highest random weight) hashing: each server scores
// -weight / ln(u) with u a uniform hash of (client, server); the highest score wins. Shares
// follow the weights, and when a server leaves only the clients it had move (to the others in
// proportion to their weights); everyone else keeps their server.
import type { Candidate } from './types';

/** 32-bit FNV-1a over a string's UTF-16 code units, finished with the murmur3 mixer. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's finaliser: every input bit affects every output bit. */
export function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The hash of a client as IPFE hashes it: originating address and port. */
export function clientHash(address: string, port: number): number {
  return hash32(`${address}|${port}`);
}

/** The rendezvous score of one server for one client hash (higher wins). */
export function rendezvousScore(client: number, serverHash: number, weight: number): number {
  // u in (0, 1): never 0 or 1, so the log is finite and negative.
  const u = (fmix32(client ^ fmix32(serverHash + 0x9e3779b9)) + 0.5) / 4294967296;
  return -weight / Math.log(u);
}

export function rendezvous<T extends Candidate>(cands: readonly T[], client: number, serverHash: (c: T) => number = (c) => hash32(c.key)): T | undefined {
  let best: T | undefined;
  let bestScore = -Infinity;
  for (const c of cands) {
    if (c.weight <= 0) continue;
    const s = rendezvousScore(client, serverHash(c), c.weight);
    if (s > bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best;
}
