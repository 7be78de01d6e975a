// NetScaler running config -> workspace: each `add server` a server, each lb vserver bound to a
// service group a service with that group (members = the group's server binds, weights as
// written, the first monitor its check); everything else stays on the box, each line named in
// the report with why.
import { isIpAddress } from '../../../../shared/model/address';
import { legalName, NameSpace } from '../../import/names';
import { ImportError, type GroupInput, type ImportResult, type ReportItem, type ServerInput, type ServiceInput } from '../../import/types';
import { DEFAULT_LB_METHOD, nsOptions, parseNs, type NsConfig, type NsGroup, type NsLine } from './parse';

export interface NsImportOptions {
  taken?: { servers?: Iterable<string> };
  existingServers?: { name: string; address: string }[];
}

const METHODS: Record<string, { algorithm: ServiceInput['algorithm']; note?: string }> = {
  ROUNDROBIN: { algorithm: 'round-robin' },
  LEASTCONNECTION: { algorithm: 'least-connections' },
  SOURCEIPHASH: { algorithm: 'source-hash' },
  LEASTRESPONSETIME: { algorithm: 'least-connections', note: 'lbMethod LEASTRESPONSETIME: least connections in the lab' },
};

export function methodAlgorithm(m: string | undefined): { algorithm: ServiceInput['algorithm']; note?: string } {
  const word = (m ?? DEFAULT_LB_METHOD).toUpperCase();
  return METHODS[word] ?? { algorithm: 'least-connections', note: `lbMethod ${word}: not modelled, least connections in the lab` };
}

/** Protocols a NetScaler service group or vserver carries over UDP. */
const UDP = new Set(['UDP', 'DNS', 'RADIUS', 'SYSLOGUDP', 'RTSP_UDP', 'SIP_UDP']);

export function importNs(text: string, file: string, opts: NsImportOptions = {}): ImportResult {
  const cfg = parseNs(text);
  if (!cfg.servers.length && !cfg.vservers.length && !cfg.groups.length) {
    throw new ImportError(file, (cfg.others[0]?.n ?? 0) + 1, 'no "add server", "add serviceGroup" or "add lb vserver" line: not a NetScaler running config');
  }
  const items: ReportItem[] = [];
  const item = (l: NsLine, section: string, outcome: ReportItem['outcome'], detail: string) => items.push({ file, line: l.n + 1, section, outcome, detail });
  const servers: ServerInput[] = [];
  const serverNames = new NameSpace([...(opts.taken?.servers ?? []), ...(opts.existingServers ?? []).map((e) => e.name)]);
  const serverName = new Map<string, string>();
  for (const s of cfg.servers) {
    const section = `server ${s.name}`;
    if (!isIpAddress(s.address)) { item(s.line, section, 'kept', `"${s.address}" is not an IP address (a domain-based server): not modelled, kept on the box`); continue; }
    const name = serverNames.take(legalName(s.name));
    serverName.set(s.name, name);
    servers.push({ name, address: s.address, ...(s.disabled ? { enabled: false } : {}) });
    const bound = cfg.groups.some((g) => g.members.some((m) => m.server === s.name));
    if (s.implicit) { item(s.line, section, 'approximated', `${s.address}: no "add server" line, the member is bound by address (the box names such a server by its address)`); continue; }
    item(s.line, section, 'imported', `${s.address}${s.disabled ? ', disabled' : ''}${name !== s.name ? `, named ${name}` : ''}${bound ? '' : '; in no service group: a server of the workspace, in no group'}`);
    if (s.disabledBy) item(s.disabledBy, section, 'imported', 'disabled: the server is disabled in the workspace');
  }
  const groups: GroupInput[] = [];
  const services: ServiceInput[] = [];
  const groupName = new Map<string, string>();
  const groupNames = new NameSpace();
  const serviceNames = new NameSpace();
  for (const v of cfg.vservers) {
    const section = `lb vserver ${v.name}`;
    const bound = v.binds.map((b) => ({ b, g: cfg.groups.find((g) => g.name === b.name) }));
    const first = bound.find((x) => x.g);
    for (const x of bound) {
      if (x.g === first?.g) continue;
      item(x.b.line, section, 'kept', x.g ? `a second service group (${x.b.name}): lbdesk balances a service over one group; kept on the box` : `${x.b.name} is a service, not a service group: not modelled, kept on the box`);
    }
    if (!first?.g) { item(v.line, section, 'kept', 'no service group bound: nothing lbdesk balances, kept on the box'); continue; }
    if (!isIpAddress(v.address) || v.address === '0.0.0.0' || v.port < 1) { item(v.line, section, 'kept', `${v.address}:${v.port} is not one address and port: not modelled, kept on the box`); continue; }
    const g = group(first.g);
    const algo = methodAlgorithm(v.lbMethod);
    const notes: string[] = [];
    if (algo.note) notes.push(algo.note);
    const persist = v.persistence?.toUpperCase();
    if (persist && persist !== 'NONE' && persist !== 'SOURCEIP') notes.push(`-persistenceType ${persist}: not modelled, no persistence in the lab`);
    if (v.line.words.length > 7) notes.push('its other options stay on the box as written');
    const name = serviceNames.take(legalName(v.name));
    services.push({
      name, address: v.address, port: v.port, protocol: UDP.has(v.protocol.toUpperCase()) ? 'udp' : 'tcp', group: g, algorithm: algo.algorithm,
      ...(persist === 'SOURCEIP' ? { persistence: { type: 'client-ip' } } : {}),
    });
    item(v.line, section, notes.length ? 'approximated' : 'imported', `service ${name} ${v.address}:${v.port} (${v.protocol}) over group ${g}, lbMethod ${v.lbMethod ?? `${DEFAULT_LB_METHOD} (default)`} as ${algo.algorithm}${notes.length ? `; ${notes.join('; ')}` : ''}`);
    item(first.b.line, section, 'imported', `bound to service group ${first.g.name}: the service's group`);
  }
  for (const g of cfg.groups) if (!groupName.has(g.name)) item(g.line, `serviceGroup ${g.name}`, 'kept', 'bound to no lb vserver: nothing lbdesk balances, kept on the box with its binds');
  const used = new Set(cfg.groups.filter((g) => groupName.has(g.name)).map((g) => g.monitors[0]?.name));
  for (const m of cfg.monitors) item(m.line, `lb monitor ${m.name}`, used.has(m.name) ? 'imported' : 'kept', used.has(m.name) ? `${m.type}: the check of the groups it is bound to first` : `${m.type}: no imported group is checked by it first; kept on the box`);
  for (const l of cfg.again) item(l, l.words.slice(0, 3).join(' '), 'kept', 'added again under a name already added: the box refuses the second add; the first is what lbdesk reads');
  for (const l of cfg.others) {
    if (cfg.modelled.has(l.n)) continue;
    item(l, l.words.slice(0, 3).join(' '), 'kept', `"${l.words.slice(0, 3).join(' ')}" is not modelled (lbdesk models servers, service groups, lb vservers and their monitors): kept on the box as written`);
  }
  items.sort((a, b) => a.line - b.line);
  return { driver: 'netscaler', workspace: { lbdesk: 1, name: 'imported', servers, groups, services }, items, sections: [] };

  function group(g: NsGroup): string {
    const known = groupName.get(g.name);
    if (known) return known;
    const name = groupNames.take(legalName(g.name));
    groupName.set(g.name, name);
    const notes: string[] = [];
    const members: NonNullable<GroupInput['members']> = [];
    for (const m of g.members) {
      const server = serverName.get(m.server);
      if (!server) { item(m.line, `serviceGroup ${g.name}`, 'kept', `member ${m.server}: not an imported server; kept on the box`); continue; }
      members.push({ server, port: m.port, weight: m.weight });
      const { opts: o } = nsOptions(m.line.words);
      const other = [...o.keys()].filter((k) => k !== 'weight');
      const disabled = o.get('state')?.[0]?.toUpperCase() === 'DISABLED';
      const said = `member ${server} port ${m.port}, weight ${m.weight}${o.has('weight') ? '' : ' (the box\'s default)'}`;
      if (!other.length) item(m.line, `serviceGroup ${g.name}`, 'imported', said);
      else item(m.line, `serviceGroup ${g.name}`, 'approximated', `${said}; ${disabled ? 'disabled on the box (-state DISABLED): a member in the workspace, which has no per-member state; ' : ''}its options ${other.map((k) => `-${k}`).join(', ')} stay on the box as written`);
    }
    const check = checkOf(cfg, g, notes);
    for (const [i, mon] of g.monitors.entries()) {
      item(mon.line, `serviceGroup ${g.name}`, i === 0 && !notes.length ? 'imported' : 'approximated', i === 0 ? `monitor ${mon.name}: the group's check${notes.length ? `; ${notes.join('; ')}` : ''}` : `monitor ${mon.name}: lbdesk checks a group one way (the first monitor's); the bind stays on the box`);
    }
    const mon = g.monitors[0] && cfg.monitors.find((m) => m.name === g.monitors[0]!.name);
    const timers = Object.fromEntries(Object.entries(monitorTimers(mon?.opts)).map(([k, v]) => [k, k === 'failAfter' || k === 'restoreAfter' ? v : `${v}ms`]));
    groups.push({ name, members, healthCheck: check, ...(Object.keys(timers).length ? { healthTimers: timers } : {}) });
    item(g.line, `serviceGroup ${g.name}`, 'imported', `group ${name} (${g.protocol}): ${members.length} member${members.length === 1 ? '' : 's'}; its other options stay on the box as written`);
    return name;
  }
}

const UNIT_MS: Record<string, number> = { MSEC: 1, SEC: 1000, MIN: 60_000 };

/**
 * A monitor's timers as lbdesk's (in ms): `-interval` the probe interval, `-resptimeout` the
 * probe timeout, `-downTime` the interval while down, `-retries` / `-successRetries` the failures
 * and successes that change the state. Only what the monitor line sets; the box's defaults stay.
 */
export function monitorTimers(opts: Map<string, string[]> | undefined): { interval?: number; timeout?: number; retryInterval?: number; failAfter?: number; restoreAfter?: number } {
  const out: ReturnType<typeof monitorTimers> = {};
  if (!opts) return out;
  const ms = (k: string) => {
    const [n, unit] = opts.get(k) ?? [];
    const f = UNIT_MS[(unit ?? 'SEC').toUpperCase()];
    return n !== undefined && /^\d+$/.test(n) && f ? Number(n) * f : undefined;
  };
  const count = (k: string) => { const n = opts.get(k)?.[0]; return n !== undefined && /^\d+$/.test(n) && Number(n) >= 1 && Number(n) <= 255 ? Number(n) : undefined; };
  const set = <K extends keyof typeof out>(k: K, v: number | undefined) => { if (v !== undefined) out[k] = v; };
  set('interval', ms('interval'));
  set('timeout', ms('resptimeout'));
  set('retryInterval', ms('downtime'));
  set('failAfter', count('retries'));
  set('restoreAfter', count('successretries'));
  return out;
}

/** The group's first monitor as lbdesk's check; built-in `http`/`tcp`/`ping` by name. */
function checkOf(cfg: NsConfig, g: NsGroup, notes: string[]): NonNullable<GroupInput['healthCheck']> {
  const first = g.monitors[0];
  if (!first) return { type: 'auto' };
  const mon = cfg.monitors.find((m) => m.name === first.name);
  const type = (mon?.type ?? first.name).toUpperCase();
  if (type === 'TCP' || type === 'TCP-DEFAULT') return { type: 'tcp' };
  if (type === 'PING' || type === 'PING-DEFAULT') return { type: 'ping' };
  if (type === 'HTTP' || type === 'HTTP-ECV') {
    const req = mon?.opts.get('httprequest')?.[0] ?? mon?.opts.get('send')?.[0];
    const path = req?.split(/\s+/)[1];
    if (req && !/^GET\s/.test(req)) notes.push(`request "${req}": lbdesk's HTTP check asks GET ${path ?? '/'}; the box keeps its own`);
    return { type: 'http', ...(path?.startsWith('/') ? { http: { path } } : {}) };
  }
  notes.push(`monitor type ${type}: not modelled, the lab checks the port`);
  return { type: 'auto' };
}
