// The settings of one HAProxy proxy section as HAProxy sees them: its own lines on top of its
// defaults section (named defaults and `from` chains followed).
import type { CfgLine, CfgSection } from './haproxy-parse';
import { fromName } from './haproxy-parse';

export interface ProxySettings {
  timeouts: Map<string, number>;
  balance?: CfgLine;
  hashType?: CfgLine;
  mode?: string;
  /** default-server options, defaults first. */
  defaultServer: string[][];
  /** Check directives (option httpchk/smtpchk/…, http-check, tcp-check), defaults first. */
  checks: CfgLine[];
  defaultBackend?: CfgLine;
}

/** HAProxy time: a number with us, ms (default), s, m, h or d; undefined when not one. */
export function haproxyMs(text: string): number | undefined {
  const m = /^(\d+)(us|ms|s|m|h|d)?$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const mult: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Math.ceil(n * mult[unit]!);
}

const CHECK_OPTIONS = new Set(['httpchk', 'smtpchk', 'ldap-check', 'tcp-check', 'ssl-hello-chk', 'mysql-check', 'pgsql-check', 'redis-check', 'spop-check']);

/** True for a line that belongs to the backend's health check. */
export function isCheckLine(line: CfgLine): boolean {
  const w = line.words.map((x) => x.text);
  if (w[0] === 'option' && CHECK_OPTIONS.has(w[1] ?? '')) return true;
  return w[0] === 'http-check' || w[0] === 'tcp-check';
}

function empty(): ProxySettings {
  return { timeouts: new Map(), defaultServer: [], checks: [] };
}

function copy(s: ProxySettings): ProxySettings {
  return { ...s, timeouts: new Map(s.timeouts), defaultServer: [...s.defaultServer], checks: [...s.checks] };
}

/** Applies a section's own lines on top of inherited settings. */
export function applyLines(base: ProxySettings, section: CfgSection): ProxySettings {
  const s = copy(base);
  let ownChecks = false;
  for (const line of section.body) {
    const w = line.words.map((x) => x.text);
    if (!w.length) continue;
    if (w[0] === 'timeout' && w[1] && w[2]) {
      const ms = haproxyMs(w[2]);
      if (ms !== undefined) s.timeouts.set(w[1], ms);
    } else if (w[0] === 'balance') s.balance = line;
    else if (w[0] === 'hash-type') s.hashType = line;
    else if (w[0] === 'mode' && w[1]) s.mode = w[1];
    else if (w[0] === 'default-server') s.defaultServer.push(w.slice(1));
    else if (w[0] === 'default_backend') s.defaultBackend = line;
    else if (isCheckLine(line)) {
      // A section's own check method replaces the inherited one.
      if (!ownChecks && (w[0] === 'option')) {
        s.checks = [];
        ownChecks = true;
      }
      s.checks.push(line);
    }
  }
  return s;
}

/** Resolves every defaults section; proxies use `from X` or the last defaults before them. */
export class DefaultsChain {
  private readonly named = new Map<string, ProxySettings>();
  private last: ProxySettings = empty();

  /** Feeds sections in file order; returns what the section inherits. */
  inherit(section: CfgSection): ProxySettings | { error: string } {
    const from = fromName(section);
    let base: ProxySettings = this.last;
    if (from !== undefined) {
      const found = this.named.get(from);
      if (!found) return { error: `"from ${from}": no defaults section of that name above` };
      base = found;
    }
    if (section.kind === 'defaults') {
      // A defaults section starts afresh unless it says `from`.
      const own = applyLines(from !== undefined ? base : empty(), section);
      this.last = own;
      if (section.name) this.named.set(section.name, own);
      return own;
    }
    return base;
  }
}
