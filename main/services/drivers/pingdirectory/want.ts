// The workspace's LDAP tier as PingDirectoryProxy objects: for each service whose group checks
// ldap, a Search LDAP Health Check, one LDAP external server per member, a load-balancing
// algorithm over them, a proxying request processor and (with a base DN) a subtree view added to
// the default client connection policy. Every property is named as the configuration reference
// names it; what the proxy does differently from the lab is a warning.
import type { Appliance, Group, HealthCheck, Service, Workspace } from '../../../../shared/model/schema';
import { resolveTimers } from '../../../../shared/model/resolve';
import { selectIncluded } from '../include';
import type { DriverProblem } from '../types';
import { formatDuration, type Kind } from './batch';

export interface WantObject {
  kind: Kind;
  name: string;
  type?: string;
  /** Properties in the order written; a multi-valued property has several values. */
  props: [string, string[]][];
}

export interface Want {
  objects: WantObject[];
  /** Subtree views to add to the default client connection policy. */
  views: string[];
  errors: DriverProblem[];
  warnings: DriverProblem[];
}

/** The lab's LDAP search scope -> the Search LDAP Health Check's `scope`. */
export const SCOPES: Record<'base' | 'one' | 'sub', string> = { base: 'base-object', one: 'single-level', sub: 'whole-subtree' };
/** lbdesk algorithm -> load-balancing-algorithm type (and what differs). */
const ALGORITHMS: Record<Service['algorithm'], { type: string; note?: string } | undefined> = {
  'health-weighted': { type: 'health-weighted' },
  'least-connections': { type: 'fewest-operations', note: 'least-connections is fewest-operations on the proxy (operations in progress from this proxy, not connections)' },
  'round-robin': { type: 'fewest-operations', note: 'round-robin: the proxy has no round-robin load-balancing algorithm; fewest-operations sends each request to the server with the fewest operations in progress' },
  'weighted-round-robin': { type: 'fewest-operations', note: 'weighted-round-robin: member weights are not written (the proxy\'s weighted algorithm weighs server sets, not servers); fewest-operations instead' },
  'source-hash': undefined,
};
/** The Location every rendered server is in: the proxy prefers servers in its own location. */
export const LOCATION = 'lbdesk';

export const isLdapGroup = (g: Group | undefined): g is Group => g !== undefined && (g.healthCheck.type === 'ldap' || (g.healthCheck.type === 'auto' && g.healthCheck.protocol === 'ldap'));
export const externalServerName = (server: string, port: number) => `${server}:${port}`;

export function wantOf(workspace: Workspace, appliance: Appliance): Want {
  const included = selectIncluded(workspace, appliance);
  const errors: DriverProblem[] = [...included.errors];
  const warnings: DriverProblem[] = [];
  const objects: WantObject[] = [];
  const views: string[] = [];
  const servers = new Map<string, WantObject>();
  const add = (o: WantObject) => { objects.push(o); return o; };
  let located = false;
  for (const service of included.services) {
    const subject = `service ${service.name}`;
    const group = workspace.groups.find((g) => g.name === service.group);
    if (!isLdapGroup(group)) { warnings.push({ subject, message: `group ${service.group} does not check ldap: not rendered (the pingdirectory driver renders LDAP groups only)` }); continue; }
    const algo = ALGORITHMS[service.algorithm];
    if (!algo) { errors.push({ subject, message: 'algorithm source-hash: no PingDirectoryProxy load-balancing algorithm hashes the client address' }); continue; }
    if (algo.note) warnings.push({ subject, message: algo.note });
    if (!located) { add({ kind: 'location', name: LOCATION, props: [] }); located = true; }
    const check = group.healthCheck;
    const timers = resolveTimers({ group: group.healthTimers, global: workspace.healthTimers });
    const checkName = `${group.name}-search`;
    if (!objects.some((o) => o.kind === 'ldap-health-check' && o.name === checkName)) add(searchCheck(checkName, check, timers.timeout, `group ${group.name}`, warnings));
    if (timers.failAfter > 1) warnings.push({ subject: `group ${group.name}`, message: `failAfter ${timers.failAfter}: the proxy marks a server unavailable on the first failed or too slow search (the lab after ${timers.failAfter})` });
    if (timers.restoreAfter > 1) warnings.push({ subject: `group ${group.name}`, message: `restoreAfter ${timers.restoreAfter}: the proxy restores a server on the first good search (the lab after ${timers.restoreAfter})` });
    const backends: string[] = [];
    const weights = new Set(group.members.map((m) => m.weight));
    if (weights.size > 1) warnings.push({ subject, message: 'members have different weights: not written (no PingDirectoryProxy algorithm takes a per-server weight)' });
    for (const m of group.members) {
      const server = workspace.servers.find((s) => s.name === m.server);
      if (!server) continue;
      const port = m.port ?? service.port;
      const name = externalServerName(server.name, port);
      const t = resolveTimers({ server: server.healthTimers, group: group.healthTimers, global: workspace.healthTimers });
      if (!servers.has(name)) {
        const props: [string, string[]][] = [
          ['server-host-name', [server.address]],
          ['server-port', [String(port)]],
          ['location', [LOCATION]],
          ['health-check', [checkName]],
          ['health-check-frequency', [formatDuration(t.interval)]],
        ];
        if (check.ldap?.bindDn) props.push(['bind-dn', [check.ldap.bindDn]]);
        servers.set(name, add({ kind: 'external-server', name, type: 'ldap', props }));
        if (check.ldap?.bindSecret) warnings.push({ subject: `server ${server.name}`, message: `bind password (secret ${check.ldap.bindSecret}) is not written: set it on the proxy (dsconfig set-external-server-prop --server-name ${name} --set password<FILE)` });
        if (t.retryInterval !== t.interval) warnings.push({ subject: `server ${server.name}`, message: `retryInterval ${formatDuration(t.retryInterval)}: the proxy checks at one health-check-frequency, ${formatDuration(t.interval)}, whatever the state` });
      } else {
        const hc = servers.get(name)!.props.find(([p]) => p === 'health-check')!;
        if (!hc[1].includes(checkName)) hc[1].push(checkName);
      }
      if (!server.enabled) { warnings.push({ subject: `server ${server.name}`, message: 'disabled: created, but not a backend-server of the algorithm' }); continue; }
      backends.push(name);
    }
    if (!backends.length) { errors.push({ subject, message: 'no enabled member: a load-balancing algorithm needs at least one backend-server' }); continue; }
    // One member stays fewest-operations (or health-weighted): the single-server algorithm's
    // properties are not confirmed from the reference, so it is not written.
    add({ kind: 'load-balancing-algorithm', name: service.name, type: algo.type, props: [['enabled', ['true']], ['backend-server', backends]] });
    add({ kind: 'request-processor', name: service.name, type: 'proxying', props: [['load-balancing-algorithm', [service.name]]] });
    const baseDn = check.ldap?.baseDn ?? '';
    if (baseDn) {
      add({ kind: 'subtree-view', name: service.name, props: [['base-dn', [baseDn]], ['request-processor', [service.name]]] });
      views.push(service.name);
    } else {
      warnings.push({ subject, message: 'the check has no base DN: no subtree view is written (a subtree view needs the base DN it serves); route to request processor ' + service.name + ' yourself' });
    }
    warnings.push({ subject, message: `listens where the proxy's LDAP connection handler listens: ${service.address}:${service.port} is not written` });
    if (service.persistence.type !== 'none') warnings.push({ subject, message: 'client-ip persistence: not written (the proxy\'s server affinity providers are not rendered)' });
    if (!service.enabled) warnings.push({ subject, message: 'disabled in the workspace: rendered enabled (lbdesk does not disable a request processor)' });
  }
  if (located) warnings.push({ subject: `appliance ${appliance.name}`, message: `every server is in location ${LOCATION}: set the proxy's own location to it (dsconfig set-global-configuration-prop --set location:${LOCATION}) or the proxy counts them as nonlocal` });
  return { objects, views, errors, warnings };
}

function searchCheck(name: string, check: HealthCheck, timeout: number, subject: string, warnings: DriverProblem[]): WantObject {
  const ldap = check.ldap ?? { baseDn: '', scope: 'base' as const, filter: '(objectClass=*)' };
  // The seed's hysteresis: degraded above degradedAbove, available again below availableBelow;
  // between the two the proxy keeps the state it has. Slower than the timeout: unavailable.
  let degraded = check.degradedAbove ?? timeout;
  if (degraded > timeout) { warnings.push({ subject, message: `degradedAbove ${formatDuration(degraded)} is above the timeout ${formatDuration(timeout)}: the proxy's degraded threshold is the timeout` }); degraded = timeout; }
  const available = Math.min(check.availableBelow ?? degraded, degraded);
  const props: [string, string[]][] = [
    ['enabled', ['true']],
    ['base-dn', [ldap.baseDn]],
    ['scope', [SCOPES[ldap.scope]]],
    ['filter', [ldap.filter]],
    ['maximum-local-available-response-time', [formatDuration(available)]],
    ['minimum-local-degraded-response-time', [formatDuration(degraded)]],
    ['maximum-local-degraded-response-time', [formatDuration(timeout)]],
    ['minimum-local-unavailable-response-time', [formatDuration(timeout)]],
  ];
  if (ldap.baseDn === '') warnings.push({ subject, message: 'base DN "" (the root DSE): the proxy\'s Search LDAP Health Check searches it as well, but base-dn "" may need quoting on a real proxy' });
  const expect = Object.entries(ldap.expect ?? {});
  if (expect.length) {
    const all = expect.map(([a, v]) => `(${a}=${escapeFilter(v)})`).join('');
    props.push(['unavailable-filter', [`(!${expect.length > 1 ? `(&${all})` : all})`]]);
    warnings.push({ subject, message: 'expect: an unavailable-filter on the returned entries (the proxy matches with each attribute\'s equality rule; the lab compares the value as written)' });
  }
  if (check.degradedAbove === undefined) warnings.push({ subject, message: `no degradedAbove: the degraded thresholds are the timeout ${formatDuration(timeout)}, so the proxy only degrades what the lab fails` });
  warnings.push({ subject, message: 'score: the proxy scores servers its own way (the lab\'s score formula, docs/health.md, is not the proxy\'s)' });
  return { kind: 'ldap-health-check', name, type: 'search', props };
}

/** RFC 4515 escapes for a value inside a filter. */
function escapeFilter(v: string): string {
  return v.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
