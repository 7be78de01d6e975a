// The charts' series: traffic per pool and member from the engine's stats, and check results per
// member, bounded; first from events as the lab sends them, then from a real lab with real traffic.
import { describe, expect, it } from 'vitest';
import { createServer, connect, type Server } from 'node:net';
import { flushPromises } from '@vue/test-utils';
import { withDemo } from '../helpers/renderer/mount';
import { freePort, labWorkspace } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import { CHECK_ROWS, MAX_MEMBER_SERIES, TRAFFIC_ROWS, useSeries } from '../../renderer/src/stores/series';
import { NumRing } from '../../renderer/src/lib/ring';
import { bytesRate } from '../../renderer/src/lib/series';
import { bytesChart, checkChart, connectionChart, MIN_SPAN_MS, xRange } from '../../renderer/src/lib/chartSeries';
import type { EngineStats, PoolStats, ServerStats } from '../../shared/api/engine';

const server = (key: string, c: Partial<ServerStats> = {}): ServerStats => ({
  key, server: key, address: '127.0.0.21', port: 8081, weight: 100, state: 'available', score: 10, draining: false, connectMs: [],
  active: 0, total: 0, bytesIn: 0, bytesOut: 0, errors: 0, ...c,
});
const pool = (servers: ServerStats[], c: Partial<PoolStats> = {}): PoolStats => ({
  kind: 'service', service: 'web', name: 'web', algorithm: 'roundRobin', refused: 0, redispatched: 0, servers,
  active: 0, total: 0, bytesIn: 0, bytesOut: 0, errors: 0, ...c,
});
const stats = (at: number, pools: PoolStats[], uptimeMs = at): EngineStats => ({ at, uptimeMs, threadId: 1, io: 'uv', listeners: [], pools });

describe('ring of numbers', () => {
  it('grows on demand, then keeps the newest rows in order', () => {
    const r = new NumRing(2, 5, 2);
    for (let i = 0; i < 4; i++) r.push([i, i * 10]);
    expect(r.length).toBe(4);
    expect([0, 1, 2, 3].map((i) => r.get(i, 1))).toEqual([0, 10, 20, 30]);
    for (let i = 4; i < 12; i++) r.push([i, i * 10]);
    expect(r.length).toBe(5);
    expect([0, 1, 2, 3, 4].map((i) => r.get(i, 0))).toEqual([7, 8, 9, 10, 11]);
    expect(r.last(1)).toBe(110);
    r.clear();
    expect(r.length).toBe(0);
    expect(r.last(0)).toBeUndefined();
  });

  it('says byte rates in readable units', () => {
    expect([0, 999, 1500, 12_345_678].map(bytesRate)).toEqual(['0 B/s', '999 B/s', '1.5 kB/s', '12.3 MB/s']);
  });
});

describe('series store', () => {
  const t = withDemo();

  it('turns each stats snapshot into rates per pool and per member that had traffic', async () => {
    const series = useSeries();
    const emit = (s: EngineStats) => t.real.services.events.send('lab.status', { running: true, listening: [], notes: [], stats: s });
    emit(stats(1000, [pool([server('a'), server('b')])]));
    emit(stats(2000, [pool([server('a', { active: 2, total: 4, bytesIn: 400, bytesOut: 4000 }), server('b')], { active: 2, total: 4, bytesIn: 400, bytesOut: 4000 })]));
    // The same snapshot again (a call's answer and the event): recorded once.
    emit(stats(2000, [pool([server('a', { active: 2, total: 4, bytesIn: 400, bytesOut: 4000 }), server('b')], { active: 2, total: 4, bytesIn: 400, bytesOut: 4000 })]));
    emit(stats(4000, [pool([server('a', { active: 1, total: 6, bytesIn: 600, bytesOut: 10_000 }), server('b')], { active: 1, total: 6, bytesIn: 600, bytesOut: 10_000 })]));
    await flushPromises();

    const web = series.trafficOf('svc:web');
    // From the engine's start (uptime before the first snapshot), when its counters were 0.
    expect(web.map((p) => p.at)).toEqual([0, 1000, 2000, 4000]);
    expect(web[0]!.connPerSec).toBeUndefined();
    expect(web[1]).toMatchObject({ active: 0, connPerSec: 0 });
    expect(web[2]).toMatchObject({ active: 2, connPerSec: 4, inPerSec: 400, outPerSec: 4000 });
    expect(web[3]).toMatchObject({ active: 1, connPerSec: 1, inPerSec: 100, outPerSec: 3000 });
    // Member a starts at zero the snapshot before its first traffic; quiet b has no series.
    expect(series.trafficOf('svc:web', 'a').map((p) => [p.at, p.active])).toEqual([[1000, 0], [2000, 2], [4000, 1]]);
    expect(series.trafficOf('svc:web', 'b')).toEqual([]);
    expect(series.pools).toEqual([{ id: 'svc:web', label: 'service web' }]);
  });

  it('keeps the last TRAFFIC_ROWS snapshots and starts again with a new engine', async () => {
    const series = useSeries();
    const n = TRAFFIC_ROWS + 50;
    for (let i = 1; i <= n; i++) series.recordStats(stats(i * 1000, [pool([], { total: i * 3, bytesOut: i * 100 })]));
    const web = series.trafficOf('svc:web');
    expect(web).toHaveLength(TRAFFIC_ROWS);
    expect(web[0]!.at).toBe(51_000);
    expect(web.at(-1)).toMatchObject({ at: n * 1000, connPerSec: 3, outPerSec: 100 });
    // A restarted engine counts from zero again (uptime went back): the old session is gone.
    series.recordStats(stats(n * 1000 + 500, [pool([], { total: 1 })], 10));
    expect(series.trafficOf('svc:web').map((p) => p.at)).toEqual([n * 1000 + 490, n * 1000 + 500]);
  });

  it('bounds the members with a series of their own', () => {
    const series = useSeries();
    const busy = Array.from({ length: MAX_MEMBER_SERIES + 3 }, (_, i) => server(`m${i}`, { total: 1 }));
    series.recordStats(stats(1000, [pool(busy)]));
    expect(series.full).toBe(true);
    expect(series.trafficOf('svc:web', `m${MAX_MEMBER_SERIES - 1}`).map((p) => p.active)).toEqual([0, 0]);
    expect(series.trafficOf('svc:web', `m${MAX_MEMBER_SERIES}`)).toEqual([]);
  });

  it('keeps each member its check results: passed, degraded and failed, bounded, in order', async () => {
    const series = useSeries();
    const member = { key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, check: 'http' as const, layer: 7 as const, state: 'available' as const, score: 10, reason: '', since: 1, consecutiveFailures: 0, consecutivePasses: 1 };
    const emit = (at: number, r: { ok: boolean; rttMs?: number; degraded?: boolean }) => t.real.services.events.send('lab.member', { member, result: { ...r, reason: 'x', evidence: {}, at } });
    emit(1, { ok: true, rttMs: 2.5 });
    emit(2, { ok: true, rttMs: 250, degraded: true });
    emit(3, { ok: false });
    emit(3, { ok: false }); // the same result twice
    await flushPromises();
    expect(series.checksOf(member.key)).toEqual([
      { at: 1, rttMs: 2.5, ok: true, degraded: false },
      { at: 2, rttMs: 250, ok: true, degraded: true },
      { at: 3, ok: false, degraded: false },
    ]);
    for (let i = 0; i < CHECK_ROWS + 10; i++) series.recordResult(member.key, { ok: true, rttMs: i, reason: 'x', evidence: {}, at: 10 + i });
    const kept = series.checksOf(member.key);
    expect(kept).toHaveLength(CHECK_ROWS);
    expect(kept.at(-1)!.rttMs).toBe(CHECK_ROWS + 9);
  });

  it('records a real lab: connections and bytes through the engine, and the member checks', async () => {
    const host = '127.0.0.68';
    const backendPort = await freePort(host);
    const vipPort = await freePort(host);
    // An echo server as the real backend: bytes go both ways through the engine.
    const backend: Server = createServer((s) => {
      s.on('error', () => undefined); // the TCP check connects and resets
      s.pipe(s);
    });
    await new Promise<void>((r) => backend.listen(backendPort, host, () => r()));
    try {
      const workspaceStore = useWorkspace();
      const lab = useLab();
      const series = useSeries();
      await workspaceStore.open(await labWorkspace(t.real.dataDir, { backendPort, vipPort, host }));
      expect(await lab.start()).toBe(true);
      const key = `g:g/b1:${backendPort}`;
      await expect.poll(() => lab.members.get(key)?.state, { timeout: 10_000 }).toBe('available');
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          const c = connect(vipPort, host, () => c.write('x'.repeat(1000)));
          c.on('data', () => c.end());
          c.on('close', () => resolve());
          c.on('error', reject);
        });
      }
      await expect.poll(() => lastTotal(series.trafficOf('svc:vip')), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      const member = series.trafficOf('svc:vip', key);
      expect(member.length).toBeGreaterThanOrEqual(2);
      const inBytes = member.reduce((s, p, i) => s + (i ? (p.inPerSec ?? 0) * (p.at - member[i - 1]!.at) / 1000 : 0), 0);
      expect(Math.round(inBytes)).toBeGreaterThanOrEqual(3000);
      expect(series.checksOf(key).length).toBeGreaterThanOrEqual(1);
      expect(series.checksOf(key).every((p) => p.ok)).toBe(true);
      expect(await lab.stop()).toBe(true);
    } finally {
      await new Promise((r) => backend.close(r));
    }
  });
});

/** Connections since the start, from the rates (what the chart can tell). */
function lastTotal(points: { at: number; connPerSec?: number }[]): number {
  return Math.round(points.reduce((s, p, i) => s + (i ? (p.connPerSec ?? 0) * (p.at - points[i - 1]!.at) / 1000 : 0), 0));
}

describe('chart series', () => {
  it('draws a member\'s response time, its degraded and failed checks, and the thresholds across', () => {
    const c = checkChart([
      { at: 1000, rttMs: 2, ok: true, degraded: false },
      { at: 2000, rttMs: 250, ok: true, degraded: true },
      { at: 3000, ok: false, degraded: false },
      { at: 4000, rttMs: 3.5, ok: true, degraded: false },
    ], { degradedAboveMs: 200, availableBelowMs: 100 });
    expect(c.series.map((s) => [s.label, s.kind ?? 'line', s.points.length])).toEqual([
      ['response time', 'line', 3], ['degraded', 'points', 1], ['failed', 'points', 1],
      ['degraded above 200 ms', 'threshold', 2], ['available below 100 ms', 'threshold', 2],
    ]);
    // Across the whole axis, which spans at least MIN_SPAN_MS.
    expect(c.series[3]!.points).toEqual([{ x: 1000, y: 200 }, { x: 1000 + MIN_SPAN_MS, y: 200 }]);
    expect(c.summary).toBe('Response time: 4 checks, last 3.5 ms, peak 250 ms, 1 failed, 1 degraded.');
    expect(checkChart([], {}).summary).toBe('Response time: no checks yet.');
  });

  it('gives a first check an axis of seconds, its point marked and the thresholds across it', () => {
    const c = checkChart([{ at: 50_000, rttMs: 40, ok: true, degraded: false }], { degradedAboveMs: 1000 });
    expect(xRange(c.series)).toEqual({ min: 50_000, max: 50_000 + MIN_SPAN_MS });
    expect(c.series[0]!.dots).toBe(true);
    expect(c.series[1]!.points).toEqual([{ x: 50_000, y: 1000 }, { x: 60_000, y: 1000 }]);
    expect(c.summary).toBe('Response time: 1 check, last 40 ms, peak 40 ms.');
    // A long session keeps its own span.
    expect(xRange([{ label: 'a', colour: '--accent', points: [{ x: 0, y: 1 }, { x: 90_000, y: 2 }] }])).toEqual({ min: 0, max: 90_000 });
    expect(xRange([])).toBeUndefined();
  });

  it('sums the new connections a traffic chart covers and says the bytes now', () => {
    const pts = [{ at: 0, active: 0 }, { at: 1000, active: 2, connPerSec: 2, inPerSec: 100, outPerSec: 2000 }, { at: 3000, active: 0, connPerSec: 1.5, inPerSec: 50, outPerSec: 1500 }];
    expect(connectionChart(pts).summary).toBe('Connections: 0 open now, peak 2 open, 5 new over the chart.');
    expect(bytesChart(pts).summary).toBe('Bytes: 50 B/s from clients and 1.5 kB/s to clients now, peak 2.0 kB/s.');
  });
});
