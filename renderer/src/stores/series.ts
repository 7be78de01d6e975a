// What the charts draw over the lab session: traffic per pool and per member from the engine's
// stats (lab.status, every second) and each member's check results, in bounded rings. The rings
// are plain (not reactive); a counter per series tells a chart that its series grew.
import { defineStore } from 'pinia';
import { onScopeDispose, ref, shallowReactive } from 'vue';
import type { EngineStats } from '../../../shared/api/engine';
import type { CheckResult } from '../../../shared/api/types';
import { useApi } from '../api/inject';
import { NumRing } from '../lib/ring';
import { CHECK_FIELDS, TRAFFIC_FIELDS, checkPoints, checkRow, memberSeriesId, poolId, trafficPoints, type CheckPoint, type TrafficPoint } from '../lib/series';

/** Traffic rows per series: 30 min at the lab's one stats snapshot a second. */
export const TRAFFIC_ROWS = 1800;
/** Check results per member (30 min at a 3 s interval; the health checker's own history is shorter). */
export const CHECK_ROWS = 600;
/**
 * Members with a traffic series of their own, and members with a check series: a 10,000-member
 * lab must not grow without bound (a pool's series is always kept).
 */
export const MAX_MEMBER_SERIES = 500;
export const MAX_CHECK_SERIES = 2000;

/** An engine this young started in this session: its counters were 0 when it started. */
const FRESH_MS = 10_000;

export interface PoolSeries { id: string; label: string }

export const useSeries = defineStore('series', () => {
  const api = useApi();
  const traffic = new Map<string, NumRing>();
  const checks = new Map<string, NumRing>();
  /** Pools seen this session, in the order the engine lists them. */
  const pools = ref<PoolSeries[]>([]);
  /** Bumped when a stats snapshot was recorded (every traffic series grows together). */
  const trafficVersion = ref(0);
  /** Per member key: bumped when a check result was recorded (a chart follows its member only). */
  const checkVersion = shallowReactive(new Map<string, number>());
  /** Some members got no traffic series of their own: the limit was reached. */
  const full = ref(false);
  let lastAt = 0;
  let lastUptime = 0;
  let memberSeries = 0;

  function reset(): void {
    traffic.clear();
    checks.clear();
    checkVersion.clear();
    pools.value = [];
    full.value = false;
    memberSeries = 0;
    lastAt = 0;
    lastUptime = 0;
    trafficVersion.value += 1;
  }

  function row(s: { active: number; total: number; bytesIn: number; bytesOut: number; errors: number }, at: number): number[] {
    return [at, s.active, s.total, s.bytesIn, s.bytesOut, s.errors];
  }

  /**
   * When a new series' counters were last 0: the snapshot before (it was quiet, or not there yet),
   * else the engine's start when that was in this session (a window that looked late cannot know).
   */
  function zeroAt(stats: EngineStats): number | undefined {
    if (lastAt > 0) return lastAt;
    return stats.uptimeMs <= FRESH_MS ? stats.at - stats.uptimeMs : undefined;
  }

  function recordStats(stats: EngineStats): void {
    // The same snapshot can come twice (a call's answer and the event); an engine started again counts from 0.
    if (stats.uptimeMs < lastUptime) reset();
    if (stats.at <= lastAt) return;
    for (const p of stats.pools) {
      const id = poolId(p);
      let ring = traffic.get(id);
      if (!ring) {
        ring = new NumRing(TRAFFIC_FIELDS.length, TRAFFIC_ROWS);
        traffic.set(id, ring);
        const from = zeroAt(stats);
        if (from !== undefined) ring.push([from, 0, 0, 0, 0, 0]);
        pools.value = [...pools.value, { id, label: p.kind === 'service' ? `service ${p.name}` : `target set ${p.name}` }];
      }
      ring.push(row(p, stats.at));
      for (const s of p.servers) {
        const mid = memberSeriesId(id, s.key);
        let mine = traffic.get(mid);
        if (!mine) {
          // Quiet members have nothing to draw: a series starts with the member's first traffic.
          if (!s.active && !s.total && !s.bytesIn && !s.bytesOut) continue;
          if (memberSeries >= MAX_MEMBER_SERIES) {
            full.value = true;
            continue;
          }
          memberSeries += 1;
          mine = new NumRing(TRAFFIC_FIELDS.length, TRAFFIC_ROWS, 8);
          const from = zeroAt(stats);
          if (from !== undefined) mine.push([from, 0, 0, 0, 0, 0]);
          traffic.set(mid, mine);
        }
        mine.push(row(s, stats.at));
      }
    }
    lastAt = stats.at;
    lastUptime = stats.uptimeMs;
    trafficVersion.value += 1;
  }

  function recordResult(key: string, result: CheckResult): void {
    let ring = checks.get(key);
    if (!ring) {
      if (checks.size >= MAX_CHECK_SERIES) return;
      ring = new NumRing(CHECK_FIELDS.length, CHECK_ROWS, 8);
      checks.set(key, ring);
    }
    if (ring.length && result.at <= ring.last(0)!) return;
    ring.push(checkRow(result));
    checkVersion.set(key, (checkVersion.get(key) ?? 0) + 1);
  }

  /** Traffic of a pool (`svc:web-vip`) or of a member in it; empty when none was seen. */
  function trafficOf(pool: string, memberKey?: string): TrafficPoint[] {
    void trafficVersion.value;
    const ring = traffic.get(memberKey === undefined ? pool : memberSeriesId(pool, memberKey));
    return ring ? trafficPoints(ring) : [];
  }

  function checksOf(key: string): CheckPoint[] {
    void checkVersion.get(key);
    const ring = checks.get(key);
    return ring ? checkPoints(ring) : [];
  }

  const offs = [
    api.on('lab.status', (s) => {
      if (s.stats) recordStats(s.stats);
    }),
    api.on('lab.member', (e) => {
      if (e.result) recordResult(e.member.key, e.result);
    }),
  ];
  onScopeDispose(() => offs.forEach((f) => f()));

  return { pools, trafficVersion, full, reset, recordStats, recordResult, trafficOf, checksOf };
});
