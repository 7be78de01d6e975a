// Series of the lab session as the charts read them: traffic rows (the engine's counters) turned
// into rates, and check results turned into points. Pure: the store keeps the rings.
import type { CheckResult } from '../../../shared/api/types';
import type { PoolRef } from '../../../shared/api/engine';
import type { NumRing } from './ring';

/** `svc:<name>` or `ts:<number>`: how the UI names a pool of the forwarding engine. */
export function poolId(p: PoolRef): string {
  return p.service !== undefined ? `svc:${p.service}` : `ts:${p.targetSet ?? '?'}`;
}

/** A member of a pool: the same server can serve several services. */
export function memberSeriesId(pool: string, key: string): string {
  return `${pool}|${key}`;
}

/** Fields of a traffic row: the engine's counters at one stats snapshot. */
export const TRAFFIC_FIELDS = ['at', 'active', 'total', 'bytesIn', 'bytesOut', 'errors'] as const;
/** Fields of a check row; `code` is 0 passed, 1 passed but degraded, 2 failed. */
export const CHECK_FIELDS = ['at', 'rttMs', 'code'] as const;

export interface TrafficPoint {
  at: number;
  /** Connections (flows) open at that moment. */
  active: number;
  /** New connections per second since the row before (undefined on the first row). */
  connPerSec?: number;
  /** Bytes per second from clients / to clients since the row before. */
  inPerSec?: number;
  outPerSec?: number;
}

export interface CheckPoint { at: number; rttMs?: number; ok: boolean; degraded: boolean }

/** Counters only grow while one engine runs; a smaller value means it started again from 0. */
const grew = (now: number, before: number) => (now >= before ? now - before : now);

export function trafficPoints(ring: NumRing): TrafficPoint[] {
  const out: TrafficPoint[] = [];
  for (let i = 0; i < ring.length; i++) {
    const at = ring.get(i, 0);
    const p: TrafficPoint = { at, active: ring.get(i, 1) };
    const dt = i > 0 ? (at - ring.get(i - 1, 0)) / 1000 : 0;
    if (dt > 0) {
      p.connPerSec = grew(ring.get(i, 2), ring.get(i - 1, 2)) / dt;
      p.inPerSec = grew(ring.get(i, 3), ring.get(i - 1, 3)) / dt;
      p.outPerSec = grew(ring.get(i, 4), ring.get(i - 1, 4)) / dt;
    }
    out.push(p);
  }
  return out;
}

export function checkRow(r: CheckResult): number[] {
  return [r.at, r.ok && r.rttMs !== undefined ? r.rttMs : Number.NaN, !r.ok ? 2 : r.degraded ? 1 : 0];
}

export function checkPoints(ring: NumRing): CheckPoint[] {
  const out: CheckPoint[] = [];
  for (let i = 0; i < ring.length; i++) {
    const rtt = ring.get(i, 1);
    const code = ring.get(i, 2);
    out.push({ at: ring.get(i, 0), ...(Number.isNaN(rtt) ? {} : { rttMs: rtt }), ok: code !== 2, degraded: code === 1 });
  }
  return out;
}

/** Check points from two sources (the health checker's history, what arrived live), one per time, in order. */
export function mergeChecks(a: readonly CheckPoint[], b: readonly CheckPoint[]): CheckPoint[] {
  const seen = new Set(a.map((p) => p.at));
  return [...a, ...b.filter((p) => !seen.has(p.at))].sort((x, y) => x.at - y.at);
}

export function toCheckPoint(r: CheckResult): CheckPoint {
  return { at: r.at, ...(r.ok && r.rttMs !== undefined ? { rttMs: r.rttMs } : {}), ok: r.ok, degraded: r.ok && !!r.degraded };
}

/** `1.2 kB/s`-style rate of bytes. */
export function bytesRate(v: number): string {
  const units = ['B/s', 'kB/s', 'MB/s', 'GB/s'];
  let x = v;
  let u = 0;
  while (x >= 1000 && u < units.length - 1) {
    x /= 1000;
    u += 1;
  }
  return `${x >= 100 || u === 0 ? Math.round(x) : x.toFixed(1)} ${units[u]}`;
}
