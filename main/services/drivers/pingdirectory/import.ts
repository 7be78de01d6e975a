// dsconfig batch file (or `config-diff` output) -> workspace: each LDAP external server at an IP
// address a server, each Search LDAP Health Check the check of the groups using it, each
// load-balancing algorithm over backend servers a group. Everything else stays on the proxy,
// each command named in the report with why.
import { isIpAddress } from '../../../../shared/model/address';
import { formatDuration } from '../../../../shared/model/duration';
import { NameSpace } from '../../import/names';
import { ImportError, type GroupInput, type ImportResult, type ReportItem, type ServerInput } from '../../import/types';
import { objectsOf, parseBatch, parseDsDuration, type DsObject } from './batch';
import { SCOPES } from './want';

const SERVER_TYPES = new Set(['ldap', 'ping-identity-ds', 'ping-identity-proxy-server', 'active-directory', 'nokia-ds', 'nokia-proxy-server', 'sun-ds', 'openldap', 'oracle-unified-directory', 'red-hat-ds']);
const ALGORITHM_TYPES = new Set(['health-weighted', 'fewest-operations', 'failover', 'single-server']);
const SCOPE_OF = Object.fromEntries(Object.entries(SCOPES).map(([k, v]) => [v, k])) as Record<string, 'base' | 'one' | 'sub'>;
const one = (o: DsObject, p: string) => o.props.get(p)?.[0];

export function importPingDirectory(text: string, file: string, opts: { taken?: { servers?: Iterable<string> }; existingServers?: { name: string }[] } = {}): ImportResult {
  const cmds = parseBatch(text);
  if (!cmds.some((c) => !c.bad)) throw new ImportError(file, (cmds[0]?.line ?? 0) + 1, 'no dsconfig command: not a dsconfig batch file or config-diff output');
  const items: ReportItem[] = [];
  const item = (line: number, section: string, outcome: ReportItem['outcome'], detail: string) => items.push({ file, line: line + 1, section, outcome, detail });
  const objs = [...objectsOf(cmds).values()];
  const used = new Set<number>();
  const of = (kind: DsObject['kind']) => objs.filter((o) => o.kind === kind);
  const first = (o: DsObject) => { o.lines.forEach((l) => used.add(l)); return o.lines[0]!; };

  const checks = new Map<string, NonNullable<GroupInput['healthCheck']> & { timeout?: number }>();
  for (const o of of('ldap-health-check')) {
    const section = `ldap-health-check ${o.name}`;
    if (o.type !== 'search') { item(first(o), section, 'kept', `type ${o.type ?? '(not given)'}: lbdesk models the Search LDAP Health Check only; kept on the proxy`); continue; }
    const notes: string[] = [];
    const scope = one(o, 'scope') ?? 'base-object';
    const ldap = { baseDn: one(o, 'base-dn') ?? '', scope: SCOPE_OF[scope] ?? 'sub', filter: one(o, 'filter') ?? '(objectClass=*)' };
    if (!SCOPE_OF[scope]) notes.push(`scope ${scope}: whole subtree in the lab`);
    const ms = (p: string) => { const v = one(o, p); return v === undefined ? undefined : parseDsDuration(v); };
    const degraded = ms('minimum-local-degraded-response-time');
    const available = ms('maximum-local-available-response-time');
    const timeout = ms('minimum-local-unavailable-response-time') ?? ms('maximum-local-degraded-response-time');
    const check: NonNullable<GroupInput['healthCheck']> & { timeout?: number } = { type: 'ldap', ldap };
    // A degraded threshold at the timeout is lbdesk's "no degradedAbove" (how render writes it).
    if (degraded !== undefined && degraded !== timeout) check.degradedAbove = formatDuration(degraded);
    if (available !== undefined && degraded !== undefined && degraded !== timeout && available < degraded) check.availableBelow = formatDuration(available);
    if (timeout !== undefined) check.timeout = timeout;
    for (const p of o.props.keys()) {
      if (['enabled', 'base-dn', 'scope', 'filter', 'maximum-local-available-response-time', 'minimum-local-degraded-response-time', 'maximum-local-degraded-response-time', 'minimum-local-unavailable-response-time'].includes(p)) continue;
      notes.push(`${p} is not modelled (kept on the proxy)`);
    }
    if (one(o, 'enabled') === 'false') notes.push('disabled on the proxy; the lab checks');
    checks.set(o.name, check);
    item(first(o), section, notes.length ? 'approximated' : 'imported', `search ${ldap.baseDn || '(root DSE)'} scope ${ldap.scope} ${ldap.filter}${check.degradedAbove !== undefined ? `, degradedAbove ${check.degradedAbove}` : ''}${check.availableBelow !== undefined ? `, availableBelow ${check.availableBelow}` : ''}${timeout !== undefined ? `, timeout ${formatDuration(timeout)}` : ''}${notes.length ? `; ${notes.join('; ')}` : ''}`);
  }

  const servers: ServerInput[] = [];
  const names = new NameSpace([...(opts.taken?.servers ?? []), ...(opts.existingServers ?? []).map((e) => e.name)]);
  const serverOf = new Map<string, { name: string; port: number; checks: string[] }>();
  for (const o of of('external-server')) {
    const section = `external-server ${o.name}`;
    const host = one(o, 'server-host-name');
    if (!SERVER_TYPES.has(o.type ?? 'ldap')) { item(first(o), section, 'kept', `type ${o.type}: not an LDAP external server; kept on the proxy`); continue; }
    if (!host || !isIpAddress(host)) { item(first(o), section, 'kept', `server-host-name ${host ?? '(none)'} is not an IP address (lbdesk's servers are addresses): kept on the proxy`); continue; }
    const port = Number(one(o, 'server-port') ?? 389);
    const name = names.take(o.name.endsWith(`:${port}`) ? o.name.slice(0, -`:${port}`.length) : o.name);
    const freq = one(o, 'health-check-frequency');
    const interval = freq === undefined ? undefined : parseDsDuration(freq);
    servers.push({ name, address: host, ...(interval !== undefined ? { healthTimers: { interval: formatDuration(interval) } } : {}) });
    serverOf.set(o.name, { name, port, checks: o.props.get('health-check') ?? [] });
    const rest = [...o.props.keys()].filter((p) => !['server-host-name', 'server-port', 'health-check', 'health-check-frequency', 'location'].includes(p));
    item(first(o), section, rest.length ? 'approximated' : 'imported', `server ${name} ${host}, port ${port}${interval !== undefined ? `, interval ${formatDuration(interval)}` : ''}${rest.length ? `; ${rest.join(', ')} not modelled (kept on the proxy)` : ''}`);
  }

  const groups: GroupInput[] = [];
  const groupNames = new NameSpace();
  for (const o of of('load-balancing-algorithm')) {
    const section = `load-balancing-algorithm ${o.name}`;
    if (!ALGORITHM_TYPES.has(o.type ?? '')) { item(first(o), section, 'kept', `type ${o.type}: not modelled; kept on the proxy`); continue; }
    const backends = o.props.get('backend-server') ?? [];
    if (!backends.length) { item(first(o), section, 'kept', `no backend-server (${o.props.has('ldap-external-server-template') ? 'servers discovered from the topology registry' : 'none listed'}): kept on the proxy`); continue; }
    const members = backends.flatMap((b) => { const s = serverOf.get(b); return s ? [{ server: s.name, port: s.port }] : []; });
    const missing = backends.filter((b) => !serverOf.has(b));
    if (!members.length) { item(first(o), section, 'kept', `none of its backend servers (${backends.join(', ')}) is imported: kept on the proxy`); continue; }
    const checkName = serverOf.get(backends.find((b) => serverOf.has(b))!)!.checks.find((c) => checks.has(c));
    const { timeout, ...check } = checkName ? checks.get(checkName)! : { type: 'ldap' as const, timeout: undefined };
    // The check lbdesk renders for group G is `G-search`: G again, so a render of the import is
    // the configuration it came from (no new check, no server re-pointed); else the algorithm's name.
    const name = groupNames.take(checkName?.endsWith('-search') && checkName.length > 7 ? checkName.slice(0, -7) : o.name);
    groups.push({ name, members, healthCheck: check, ...(timeout !== undefined ? { healthTimers: { timeout: formatDuration(timeout) } } : {}) });
    const notes = [`no service: the proxy's listen address is not in dsconfig; a service over group ${name} with algorithm ${o.type === 'health-weighted' ? 'health-weighted' : 'least-connections'} renders it back`];
    if (o.type === 'failover' || o.type === 'single-server') notes.push(`${o.type}: the lab has no failover order`);
    if (missing.length) notes.push(`backend servers not imported: ${missing.join(', ')}`);
    item(first(o), section, 'approximated', `group ${name}: ${members.length} member${members.length === 1 ? '' : 's'}${checkName ? `, checked by ${checkName}` : ''}; ${notes.join('; ')}`);
  }
  for (const c of cmds) {
    if (used.has(c.line)) continue;
    const what = c.bad ? c.bad : `${c.verb}-${c.kind}${c.name !== undefined ? ` ${c.name}` : ''}`;
    item(c.line, c.bad ? c.text.replace(/\s+/g, ' ').slice(0, 60) : what, 'kept', `${what}: not modelled (lbdesk reads external servers, search health checks and load-balancing algorithms); kept on the proxy as written`);
  }
  items.sort((a, b) => a.line - b.line);
  return { driver: 'pingdirectory', workspace: { lbdesk: 1, name: 'imported', servers, groups, services: [] }, items, sections: [] };
}
