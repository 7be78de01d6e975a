// Numbers, durations and times as the UI shows them.
import { formatDuration } from '../../../shared/model/duration';

/** `1.5 s`, `250 ms`, `2 min 30 s`: readable rather than exact. */
export function humanMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim(ms / 1000)} s`;
  if (ms < 3_600_000) {
    const m = Math.floor(ms / 60_000);
    const s = Math.round((ms % 60_000) / 1000);
    return s ? `${m} min ${s} s` : `${m} min`;
  }
  const h = Math.floor(ms / 3_600_000);
  const m = Math.round((ms % 3_600_000) / 60_000);
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** The workspace spelling (`30s`, `500ms`) for a duration in ms. */
export function specMs(ms: number | undefined): string {
  return ms === undefined ? '—' : formatDuration(ms);
}

export function rtt(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

export function percent(v: number | undefined, digits = 1): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  return `${trim(v, digits)} %`;
}

export function perMinute(v: number): string {
  return v >= 10 ? `${Math.round(v)}/min` : `${trim(v, 1)}/min`;
}

function trim(v: number, digits = 1): string {
  return Number(v.toFixed(digits)).toString();
}

// One time format in the UI: local time with seconds, 24 h (`13:48:03`), a date before it where
// the day matters (history); the exact instant in ISO in tooltips (title) and exports.
const pad = (n: number) => String(n).padStart(2, '0');

/** `13:48:03`, local. */
export function clockTime(at: number): string {
  const d = new Date(at);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `2026-12-01 13:48:03`, local. */
export function dateTime(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clockTime(at)}`;
}

/** The exact instant for a tooltip or an export: `2026-12-01T12:48:03.120Z`. */
export function isoTime(at: number): string {
  return new Date(at).toISOString();
}

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A message from main (push, confirm; the CLI prints them with ISO instants) in pieces, every ISO
 * instant as local time with its ISO kept for the tooltip: `[{ text }, { text: '13:48:03', iso }]`.
 */
export function timePieces(text: string): { text: string; iso?: string }[] {
  const out: { text: string; iso?: string }[] = [];
  let last = 0;
  for (const m of text.matchAll(ISO)) {
    const at = Date.parse(m[0]);
    if (Number.isNaN(at)) continue;
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ text: clockTime(at), iso: isoTime(at) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** `12 s ago`, `3 min ago`. */
export function ago(at: number, now = Date.now()): string {
  const d = Math.max(0, now - at);
  if (d < 1500) return 'just now';
  return `${humanMs(Math.round(d / 1000) * 1000)} ago`;
}

/** A file name from a path, either separator. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

export function dirName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i > 0 ? path.slice(0, i) : path.slice(0, i + 1);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
