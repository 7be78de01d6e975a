// The proxy's own view of each LDAP external server: its monitor entries under cn=monitor, one
// per server per load-balancing algorithm (object class ds-ldap-external-server-monitor-entry;
// attributes server-address, server-port, load-balancing-algorithm (the algorithm's config DN),
// health-check-state AVAILABLE / DEGRADED / UNAVAILABLE, health-check-score, health-check-message,
// health-check-update-time, as the UnboundID LDAP SDK's LDAPExternalServerMonitorEntry reads
// them). Pure: the entries in, each workspace member's state out.
import type { BoxHealth } from '../../../../shared/api/operate';

export const MONITOR_BASE = 'cn=monitor';
export const MONITOR_FILTER = '(objectClass=ds-ldap-external-server-monitor-entry)';
export const MONITOR_ATTRIBUTES = ['server-address', 'server-port', 'load-balancing-algorithm', 'health-check-state', 'health-check-score', 'health-check-message', 'health-check-update-time'];

export interface ServerMonitor {
  dn: string;
  address: string;
  port: number;
  /** The algorithm's name: the `cn` of its configuration DN. */
  algorithm: string;
  state: string;
  score?: number;
  messages: string[];
}

type Attrs = Record<string, string | string[] | Buffer | Buffer[] | undefined>;
const all = (v: Attrs[string]): string[] => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => x.toString()));
const first = (e: Attrs, a: string) => all(Object.entries(e).find(([k]) => k.toLowerCase() === a)?.[1])[0];
const allOf = (e: Attrs, a: string) => all(Object.entries(e).find(([k]) => k.toLowerCase() === a)?.[1]);

/** The entries as ldapts returns them (attribute names in any case); entries missing an address or port are skipped. */
export function parseMonitor(entries: (Attrs & { dn: string })[]): ServerMonitor[] {
  const out: ServerMonitor[] = [];
  for (const e of entries) {
    const address = first(e, 'server-address');
    const port = Number(first(e, 'server-port'));
    if (!address || !Number.isInteger(port)) continue;
    const algoDn = first(e, 'load-balancing-algorithm') ?? '';
    const algorithm = /^\s*cn=((?:[^,\\]|\\.)*)/i.exec(algoDn)?.[1]?.replace(/\\(.)/g, '$1') ?? '';
    const score = first(e, 'health-check-score');
    out.push({ dn: e.dn, address, port, algorithm, state: (first(e, 'health-check-state') ?? '').toUpperCase(), ...(score !== undefined && score !== '' ? { score: Number(score) } : {}), messages: allOf(e, 'health-check-message') });
  }
  return out;
}

const HEALTH: Record<string, BoxHealth> = { AVAILABLE: 'up', DEGRADED: 'up', UNAVAILABLE: 'down' };

export interface MonitoredMember {
  group: string;
  server: string;
  port?: number;
  address: string;
}

/**
 * Each member as the proxy reports it in the algorithms of the services over its group (named
 * after the service, as lbdesk renders them): AVAILABLE and DEGRADED serve (up; the check words
 * say which), UNAVAILABLE does not (down); no entry is unknown, with why.
 */
export function memberStates(members: MonitoredMember[], services: { name: string; group: string; port: number }[], seen: ServerMonitor[]) {
  return members.map((m) => {
    const base = { group: m.group, server: m.server, ...(m.port !== undefined ? { port: m.port } : {}) };
    const mine = services.filter((s) => s.group === m.group);
    const hits = mine.flatMap((s) => seen.filter((e) => e.algorithm === s.name && e.address === m.address && e.port === (m.port ?? s.port)));
    if (!hits.length) {
      const where = mine.map((s) => `${m.address}:${m.port ?? s.port} in load-balancing algorithm ${s.name}`).join(', ') || `${m.address}`;
      return { ...base, health: 'unknown' as BoxHealth, why: `the proxy publishes no LDAP external server monitor entry for ${where} (not a backend server of it on the proxy)` };
    }
    // The worst state among its algorithms: one unavailable is down.
    const worst = [...hits].sort((a, b) => rank(b.state) - rank(a.state))[0]!;
    const words = [`${worst.state || 'no state'}${worst.score !== undefined ? ` score ${worst.score}` : ''}`, ...worst.messages].join(': ');
    return { ...base, health: HEALTH[worst.state] ?? 'unknown', check: words, on: hits.map((h) => `load-balancing-algorithm ${h.algorithm}`) };
  });
}

const rank = (s: string) => ({ AVAILABLE: 0, DEGRADED: 1, UNAVAILABLE: 2 } as Record<string, number>)[s] ?? 3;

/** Drain, maintenance and ready are not runtime switches on the proxy: the one line that says so. */
export const NO_RUNTIME_SWITCH = 'PingDirectoryProxy has no runtime drain, maint or ready: a server is taken out by a configuration change (remove it from the workspace group, or disable it, and push), which lbdesk plans, applies and rolls back as dsconfig commands';
