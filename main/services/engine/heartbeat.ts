// The heartbeat/agent load line protocol (docs/engine.md): one report per line,
//   load m=<mps> mtotal=<mps capacity> c=<connections> ctotal=<connection capacity> [server=<address>] [ttl=<duration>]
// Every field but the word `load` is optional; what a report leaves out comes from the engine's
// own counters and the configured capacities. Pure parsing; the socket lives in the worker.
import { parseDuration } from '../../../shared/model/duration';

export interface LoadReport {
  /** The server the report is about; default: the datagram's source address. */
  server?: string;
  m?: number;
  mtotal?: number;
  c?: number;
  ctotal?: number;
  /** How long the report counts (default: the target set's heartbeat ttl). */
  ttlMs?: number;
}

const NUMERIC = ['m', 'mtotal', 'c', 'ctotal'] as const;

/** One line: a report, `undefined` for a blank or comment line, or an error message. */
export function parseLoadLine(line: string): LoadReport | string | undefined {
  const text = line.replace(/#.*$/, '').trim();
  if (text === '') return undefined;
  const [word, ...fields] = text.split(/\s+/);
  if (word!.toLowerCase() !== 'load') return `expected "load", got "${word}"`;
  const out: LoadReport = {};
  for (const field of fields) {
    const eq = field.indexOf('=');
    if (eq <= 0) return `"${field}" is not name=value`;
    const name = field.slice(0, eq).toLowerCase();
    const value = field.slice(eq + 1);
    if ((NUMERIC as readonly string[]).includes(name)) {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0) return `${name}=${value} is not a number >= 0`;
      out[name as (typeof NUMERIC)[number]] = n;
    } else if (name === 'server') {
      if (value === '') return 'server= needs an address';
      out.server = value;
    } else if (name === 'ttl') {
      const ms = parseDuration(/^\d+(\.\d+)?$/.test(value) ? Number(value) : value);
      if (ms === undefined || ms <= 0) return `ttl=${value} is not a duration`;
      out.ttlMs = ms;
    } else {
      return `unknown field "${name}"`;
    }
  }
  if ((out.mtotal !== undefined && out.mtotal <= 0) || (out.ctotal !== undefined && out.ctotal <= 0)) return 'mtotal and ctotal must be > 0';
  return out;
}

/** Every report in a datagram (several lines allowed), and the errors of the lines that are not. */
export function parseLoadDatagram(text: string): { reports: LoadReport[]; errors: string[] } {
  const reports: LoadReport[] = [];
  const errors: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const r = parseLoadLine(line);
    if (typeof r === 'string') errors.push(r);
    else if (r) reports.push(r);
  }
  return { reports, errors };
}

/** Formats a report (what an agent sends); the inverse of parseLoadLine. */
export function formatLoadLine(r: LoadReport): string {
  const parts = ['load'];
  for (const k of NUMERIC) if (r[k] !== undefined) parts.push(`${k}=${r[k]}`);
  if (r.server) parts.push(`server=${r.server}`);
  if (r.ttlMs !== undefined) parts.push(`ttl=${r.ttlMs}ms`);
  return parts.join(' ');
}
