// What the lab's charts draw, from the series (pure): datasets with their colour by CSS variable,
// and one sentence that says what the chart shows.
import { bytesRate, type CheckPoint, type TrafficPoint } from './series';
import { rtt } from './format';

export interface ChartSeries {
  label: string;
  /** A CSS variable of the theme (`--accent`). */
  colour: string;
  points: readonly { x: number; y: number }[];
  /** A line (default), points only (failed checks), or a threshold drawn across. */
  kind?: 'line' | 'points' | 'threshold';
  dashed?: boolean;
  /** A line whose every point is marked (checks are events: a first check alone still shows). */
  dots?: boolean;
}

/** The least time an x axis covers: a first point gets room beside it, not an axis of days. */
export const MIN_SPAN_MS = 10_000;

/** The x axis over the series' own points (thresholds follow it), at least MIN_SPAN_MS wide. */
export function xRange(series: readonly ChartSeries[]): { min: number; max: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (const s of series) {
    if (s.kind === 'threshold') continue;
    for (const p of s.points) {
      if (p.x < min) min = p.x;
      if (p.x > max) max = p.x;
    }
  }
  return min > max ? undefined : { min, max: Math.max(max, min + MIN_SPAN_MS) };
}

export interface Thresholds { degradedAboveMs?: number; availableBelowMs?: number }

/** Response time of passing checks, failed checks as marks on the axis, the group's thresholds across. */
export function checkChart(points: readonly CheckPoint[], t: Thresholds): { series: ChartSeries[]; summary: string; yMax: number } {
  const slow = points.filter((p) => p.degraded && p.rttMs !== undefined).map((p) => ({ x: p.at, y: p.rttMs! }));
  const failed = points.filter((p) => !p.ok).map((p) => ({ x: p.at, y: 0 }));
  const timed = points.filter((p) => p.rttMs !== undefined).map((p) => ({ x: p.at, y: p.rttMs! }));
  const series: ChartSeries[] = [{ label: 'response time', colour: '--accent', points: timed, dots: true }];
  if (slow.length) series.push({ label: 'degraded', colour: '--warn', points: slow, kind: 'points' });
  if (failed.length) series.push({ label: 'failed', colour: '--bad', points: failed, kind: 'points' });
  const range = xRange(series);
  const across = (y: number) => (range ? [{ x: range.min, y }, { x: range.max, y }] : []);
  if (t.degradedAboveMs !== undefined) series.push({ label: `degraded above ${rtt(t.degradedAboveMs)}`, colour: '--warn', points: across(t.degradedAboveMs), kind: 'threshold' });
  if (t.availableBelowMs !== undefined) series.push({ label: `available below ${rtt(t.availableBelowMs)}`, colour: '--ok', points: across(t.availableBelowMs), kind: 'threshold' });
  const peak = Math.max(0, ...timed.map((p) => p.y));
  const yMax = Math.max(1, peak, (t.degradedAboveMs ?? 0) * 1.1);
  if (!points.length) return { series, summary: 'Response time: no checks yet.', yMax };
  const lastRtt = [...points].reverse().find((p) => p.rttMs !== undefined)?.rttMs;
  const parts = [`${points.length} ${points.length === 1 ? 'check' : 'checks'}`, `last ${rtt(lastRtt)}`, `peak ${rtt(timed.length ? peak : undefined)}`];
  if (failed.length) parts.push(`${failed.length} failed`);
  if (slow.length) parts.push(`${slow.length} degraded`);
  return { series, summary: `Response time: ${parts.join(', ')}.`, yMax };
}

/** Connections open and new per second. */
export function connectionChart(points: readonly TrafficPoint[]): { series: ChartSeries[]; summary: string } {
  const open = points.map((p) => ({ x: p.at, y: p.active }));
  const rate = points.filter((p) => p.connPerSec !== undefined).map((p) => ({ x: p.at, y: round(p.connPerSec!) }));
  const series: ChartSeries[] = [
    { label: 'open', colour: '--accent', points: open },
    { label: 'new per second', colour: '--ok', points: rate, dashed: true },
  ];
  if (!points.length) return { series, summary: 'Connections: none seen yet.' };
  const peak = Math.max(...points.map((p) => p.active));
  const added = points.reduce((n, p, i) => n + (i && p.connPerSec !== undefined ? p.connPerSec * (p.at - points[i - 1]!.at) / 1000 : 0), 0);
  return { series, summary: `Connections: ${points.at(-1)!.active} open now, peak ${peak} open, ${Math.round(added)} new over the chart.` };
}

/** Bytes per second from clients and to clients. */
export function bytesChart(points: readonly TrafficPoint[]): { series: ChartSeries[]; summary: string } {
  const inb = points.filter((p) => p.inPerSec !== undefined).map((p) => ({ x: p.at, y: round(p.inPerSec!) }));
  const outb = points.filter((p) => p.outPerSec !== undefined).map((p) => ({ x: p.at, y: round(p.outPerSec!) }));
  const series: ChartSeries[] = [
    { label: 'from clients', colour: '--accent', points: inb },
    { label: 'to clients', colour: '--ok', points: outb, dashed: true },
  ];
  if (!inb.length) return { series, summary: 'Bytes: none seen yet.' };
  const peak = Math.max(...inb.map((p) => p.y), ...outb.map((p) => p.y));
  return { series, summary: `Bytes: ${bytesRate(inb.at(-1)!.y)} from clients and ${bytesRate(outb.at(-1)?.y ?? 0)} to clients now, peak ${bytesRate(peak)}.` };
}

const round = (v: number) => Math.round(v * 100) / 100;
