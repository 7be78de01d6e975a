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
const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function haproxyMs(text: string): number | undefined {
  const m = /^(\d+)(us|ms|s|m|h|d)?$/.exec(text);
  if (!m) return undefined;
  return Math.ceil(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!);
}

const CHECK_OPTIONS = new Set(['httpchk', 'smtpchk', 'ldap-check', 'tcp-check', 'ssl-hello-chk', 'mysql-check', 'pgsql-check', 'redis-check', 'spop-check']);

/** True for a line that belongs to the backend's health check. */
export function isCheckLine(line: CfgLine): boolean {
  const first = line.first;
  if (first === 'option') return CHECK_OPTIONS.has(line.words[1]?.text ?? '');
  return first === 'http-check' || first === 'tcp-check';
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
    // Word texts are read in place: a 20,000-server file has as many lines, each read here.
    const first = line.first;
    if (first === undefined || first === 'server') continue;
    if (first === 'timeout') {
      const [, what, value] = line.words;
      const ms = what && value ? haproxyMs(value.text) : undefined;
      if (ms !== undefined) s.timeouts.set(what!.text, ms);
    } else if (first === 'balance') s.balance = line;
    else if (first === 'hash-type') s.hashType = line;
    else if (first === 'mode') {
      if (line.words[1]) s.mode = line.words[1].text;
    }
    else if (first === 'default-server') s.defaultServer.push(line.words.slice(1).map((x) => x.text));
    else if (first === 'default_backend') s.defaultBackend = line;
    else if (isCheckLine(line)) {
      // A section's own check method replaces the inherited one.
      if (!ownChecks && (first === 'option')) {
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
