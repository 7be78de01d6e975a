// A member's recorded checks, from the lab's evidence exported as JSON (`lab.history`:
// { results: CheckResult[] } or the array alone) or from HAProxy's health-check log lines:
//   Health check for server web-vip/web1 failed, reason: Layer4 connection problem,
//   info: "Connection refused", check duration: 0ms, status: 0/2 DOWN.
// Log time stamps: ISO 8601, HAProxy's [02/Dec/2026:10:00:00.123], or syslog's "Dec  2 10:00:00"
// (no year or zone in it: the given year, UTC).
import { jsonErrorOffset } from './json-where';
import type { Sample } from './replay';

export class TraceError extends Error {}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const CHECK = /Health check for (?:backup )?server ([^\s/]+)\/(\S+) (failed|succeeded), reason: ([^,]*)(?:, code: (\d+))?(?:, info: "([^"]*)")?, check duration: (\d+)ms/;
const ISO = /\b(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)/;
const BRACKET = /\[(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?\]/;
const SYSLOG = /^(?:<\d+>)?([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\s/;

export interface Trace { samples: Sample[]; source: string }

/** `file` names the input in errors (file:line:col). */
export function parseTrace(text: string, file: string, pick: { backends: string[]; server: string }, year: number): Trace {
  const head = text.trimStart();
  if (head.startsWith('{') || head.startsWith('[')) return parseJson(text, file);
  return parseLog(text, file, pick, year);
}

function parseJson(text: string, file: string): Trace {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const at = lineCol(text, Math.max(0, jsonErrorOffset(text)));
    throw new TraceError(`${file}:${at.line}:${at.col}: not valid JSON: the lab's history is { "results": [...] }`);
  }
  const results = Array.isArray(data) ? data : (data as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new TraceError(`${file}:1:1: expected the lab's history { "results": [...] } or an array of check results`);
  const samples = results.map((r: unknown, i): Sample => {
    const x = r as Record<string, unknown> | null;
    if (typeof x?.at !== 'number' || typeof x.ok !== 'boolean') throw new TraceError(`${file}: results[${i}]: needs "at" (epoch ms) and "ok" (true or false)`);
    const evidence = (x.evidence ?? {}) as Record<string, unknown>;
    const ms = typeof evidence.ms === 'number' ? evidence.ms : undefined;
    const s: Sample = { at: x.at, ok: x.ok, reason: typeof x.reason === 'string' ? x.reason : x.ok ? 'passed' : 'failed' };
    if (typeof x.rttMs === 'number') s.rttMs = x.rttMs;
    if (x.degraded === true) s.degraded = true;
    if (ms !== undefined || s.rttMs !== undefined) s.durationMs = ms ?? s.rttMs;
    return s;
  });
  if (!samples.length) throw new TraceError(`${file}: the history has no check results`);
  return { samples, source: 'lab history (JSON)' };
}

function parseLog(text: string, file: string, pick: { backends: string[]; server: string }, year: number): Trace {
  const samples: Sample[] = [];
  let backend: string | undefined;
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    const m = CHECK.exec(line);
    if (!m) return;
    const [, be, srv, outcome, reason, code, info, ms] = m;
    seen.add(`${be}/${srv}`);
    if (srv !== pick.server || !pick.backends.includes(be!)) return;
    // One backend's checks: two services on one group are two HAProxy backends checking apart.
    backend ??= be;
    if (be !== backend) return;
    const at = timeOf(line, year);
    if (at === undefined) throw new TraceError(`${file}:${i + 1}:1: a health-check line without a time stamp (ISO 8601, [dd/Mon/yyyy:hh:mm:ss] or syslog's "Mon dd hh:mm:ss")`);
    const words = [reason, code ? `code ${code}` : '', info ? `"${info}"` : ''].filter(Boolean).join(', ');
    const ok = outcome === 'succeeded';
    samples.push({ at, ok, reason: words, durationMs: Number(ms), ...(ok ? { rttMs: Number(ms) } : {}) });
  });
  if (!samples.length) {
    const wanted = pick.backends.map((b) => `${b}/${pick.server}`).join(' or ');
    const found = seen.size ? ` (it has ${[...seen].slice(0, 5).join(', ')})` : ' (no HAProxy "Health check for server" lines, and not JSON)';
    throw new TraceError(`${file}: no health-check lines for ${wanted}${found}`);
  }
  return { samples, source: `HAProxy log, backend ${backend}` };
}

function timeOf(line: string, year: number): number | undefined {
  const iso = ISO.exec(line);
  if (iso) {
    const t = Date.parse(/[Zz]|[+-]\d{2}:?\d{2}$/.test(iso[1]!) ? iso[1]!.replace(' ', 'T') : `${iso[1]!.replace(' ', 'T')}Z`);
    if (Number.isFinite(t)) return t;
  }
  const b = BRACKET.exec(line);
  if (b) return utc(Number(b[3]), b[2]!, Number(b[1]), b[4]!, b[5]!, b[6]!, b[7]);
  const s = SYSLOG.exec(line);
  if (s) return utc(year, s[1]!, Number(s[2]), s[3]!, s[4]!, s[5]!, s[6]);
  return undefined;
}

function utc(year: number, mon: string, day: number, h: string, m: string, s: string, frac?: string): number | undefined {
  const month = MONTHS.indexOf(mon);
  if (month < 0) return undefined;
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  return Date.UTC(year, month, day, Number(h), Number(m), Number(s), ms);
}

function lineCol(text: string, pos: number): { line: number; col: number } {
  const before = text.slice(0, pos).split('\n');
  return { line: before.length, col: before.at(-1)!.length + 1 };
}
