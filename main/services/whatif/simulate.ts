// Shares and moves measured with the forwarding engine's own Pool (its tier, algorithms and
// persistence), never a second model of them: every member left is taken as available (score
// 10) and carries the connections it is given (they stay open), so least connections and IPFE
// least load see load in proportion to what they chose — equal load per unit of weight.
// Clients are documentation addresses: labels in a calculation, never dialled.
import { Pool, type Client } from '../engine/pool';
import type { PoolConfig } from '../engine/config';
import type { WhatIfMoves } from '../../../shared/api/whatif';

/** New connections simulated per pool (shares) and distinct clients (moves). */
export const CONNECTIONS = 6000;
export const CLIENTS = 750;

const RANGES = ['192.0.2.', '198.51.100.', '203.0.113.'];

/** Client i: one of 750 documentation addresses, from a port of its own. */
export function simulatedClient(i: number): Client {
  const n = i % CLIENTS;
  return { address: `${RANGES[n % 3]}${1 + Math.floor(n / 3)}`, port: 1024 + (i % 60000) };
}

function poolWith(cfg: PoolConfig, failed: ReadonlySet<string>): Pool {
  const pool = new Pool(cfg);
  setFailed(pool, failed);
  return pool;
}

function setFailed(pool: Pool, failed: ReadonlySet<string>): void {
  for (const m of pool.members) pool.setHealth(m, failed.has(m.key) ? 'unavailable' : 'available', failed.has(m.key) ? 1 : 10);
}

/** Keys usable for new connections with `failed` out. */
export function usableKeys(cfg: PoolConfig, failed: ReadonlySet<string>): Set<string> {
  return new Set(poolWith(cfg, failed).usable().map((m) => m.key));
}

/**
 * Each member's share of `CONNECTIONS` new connections, each from a new client: no persistence
 * entry yet, and (IPFE peer node awareness) a peer with no connections yet, which filters nothing.
 */
export function shares(cfg: PoolConfig, failed: ReadonlySet<string>): Map<string, number> {
  // The window asks again at every pick: a pool the picks do not touch is the same question.
  const key = JSON.stringify([cfg, cfg.members.filter((m) => failed.has(m.key)).map((m) => m.key)]);
  const known = cache.get(key);
  if (known) return known;
  const out = simulateShares(cfg, failed);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, out);
  return out;
}

const CACHE_SIZE = 2000;
const cache = new Map<string, Map<string, number>>();

function simulateShares(cfg: PoolConfig, failed: ReadonlySet<string>): Map<string, number> {
  const { peerThreshold: _peers, ...rest } = cfg;
  const pool = poolWith({ ...rest, persistence: { type: 'none', timeoutMs: 0 } }, failed);
  const counts = new Map<string, number>();
  for (let i = 0; i < CONNECTIONS; i++) {
    const client = simulatedClient(i);
    const now = i; // one new connection per ms: the least-load rate term stays what a steady stream makes
    const m = pool.choose(client, now);
    if (!m) break;
    pool.begin(m, client, now);
    counts.set(m.key, (counts.get(m.key) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return new Map([...counts].map(([k, n]) => [k, total ? n / total : 0]));
}

/** Why a client keeps its member, or undefined when it does not. */
export function stickiness(cfg: PoolConfig): string | undefined {
  if (cfg.persistence.type === 'client-ip') return 'client-ip persistence';
  if (cfg.algorithm === 'source-hash' || cfg.algorithm === 'hash') return 'source hash';
  return undefined;
}

/**
 * Clients that had a member with nothing failed, then connect again with `failed` out: those
 * whose member failed are re-pinned (persistence) or rehashed; how many, and where to.
 */
export function moves(cfg: PoolConfig, failed: ReadonlySet<string>, nameOf: (key: string) => string): WhatIfMoves | undefined {
  const by = stickiness(cfg);
  if (!by) return undefined;
  const pool = poolWith(cfg, new Set());
  const first: (string | undefined)[] = [];
  for (let i = 0; i < CLIENTS; i++) first.push(pool.choose(simulatedClient(i), 0)?.key);
  setFailed(pool, failed);
  const to: Record<string, number> = {};
  let moved = 0;
  for (let i = 0; i < CLIENTS; i++) {
    const was = first[i];
    if (was === undefined || !failed.has(was)) continue;
    moved += 1;
    const now = pool.choose(simulatedClient(i), 1)?.key;
    const where = now === undefined ? '(none)' : nameOf(now);
    to[where] = (to[where] ?? 0) + 1;
  }
  return { by, moved, clients: CLIENTS, to };
}
