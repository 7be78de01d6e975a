// BIG-IP running config -> workspace: each node a server, each virtual server with a default
// pool a service, each such pool a group (its members the pool members, ratio as weight, its
// first monitor as the check); everything else stays on the box, each object named with why.
import { isIpAddress } from '../../../../shared/model/address';
import { NameSpace } from '../../import/names';
import { ImportError, type GroupInput, type ImportResult, type ReportItem, type ServerInput, type ServiceInput } from '../../import/types';
import { fullName, parseF5, type F5Config, type F5Entry, type F5Pool } from './parse';

export interface F5ImportOptions {
  taken?: { servers?: Iterable<string> };
  existingServers?: { name: string; address: string }[];
}

/** `/Common/web1` -> `web1`; another partition keeps its path (`/Tenant/app/web1` -> `Tenant-app-web1`). */
export function localName(full: string): string {
  return full.startsWith('/Common/') ? full.slice('/Common/'.length) : full.replace(/^\//, '');
}

/** Pool load-balancing mode -> lbdesk algorithm; no line is round-robin. */
const MODES: Record<string, { algorithm: ServiceInput['algorithm']; note?: string }> = {
  'round-robin': { algorithm: 'round-robin' },
  'ratio-member': { algorithm: 'weighted-round-robin' },
  'ratio-node': { algorithm: 'weighted-round-robin', note: 'ratio-node: weighted round robin by member ratio in the lab' },
  'least-connections-member': { algorithm: 'least-connections' },
  'least-connections-node': { algorithm: 'least-connections', note: 'least-connections-node counts per node; the lab per member' },
  'ratio-least-connections-member': { algorithm: 'least-connections', note: 'ratio-least-connections-member: least connections without ratios in the lab' },
  'observed-member': { algorithm: 'least-connections', note: 'observed-member: least connections in the lab' },
  'predictive-member': { algorithm: 'least-connections', note: 'predictive-member: least connections in the lab' },
  'fastest-node': { algorithm: 'least-connections', note: 'fastest-node: least connections in the lab' },
};

export function modeAlgorithm(mode: string | undefined): { algorithm: ServiceInput['algorithm']; note?: string } {
  const word = mode ?? 'round-robin';
  return MODES[word] ?? { algorithm: 'least-connections', note: `load-balancing-mode ${word}: not modelled, least connections in the lab` };
}

/** Built-in monitors by name (`/Common/http`), as lbdesk check types. */
const BUILTIN: Record<string, NonNullable<GroupInput['healthCheck']>> = {
  http: { type: 'http' }, https: { type: 'https' }, http_head_f5: { type: 'http' }, https_head_f5: { type: 'https' },
  tcp: { type: 'tcp' }, tcp_half_open: { type: 'tcp', layer: 4 }, udp: { type: 'udp' },
  gateway_icmp: { type: 'ping' }, icmp: { type: 'ping' }, none: { type: 'none' },
};
const TYPES: Record<string, string> = { http: 'http', https: 'https', tcp: 'tcp', 'tcp-half-open': 'tcp', udp: 'udp', 'gateway-icmp': 'ping', icmp: 'ping' };

export function importF5(text: string, file: string, opts: F5ImportOptions = {}): ImportResult {
  const cfg = parseF5(text);
  if (!cfg.nodes.length && !cfg.pools.length && !cfg.virtuals.length) {
    throw new ImportError(file, (cfg.objects[0]?.head ?? cfg.stray[0] ?? 0) + 1, 'no "ltm node", "ltm pool" or "ltm virtual" object: not a BIG-IP running config');
  }
  const items: ReportItem[] = [];
  const item = (n: number, section: string, outcome: ReportItem['outcome'], detail: string) => items.push({ file, line: n + 1, section, outcome, detail });
  const keptLines = (section: string, entries: F5Entry[]) => {
    for (const e of entries) item(e.n, section, 'kept', `"${e.words.join(' ')}${e.children ? ' { … }' : ''}" is not modelled: kept on the box as written`);
  };

  const servers: ServerInput[] = [];
  const serverNames = new NameSpace([...(opts.taken?.servers ?? []), ...(opts.existingServers ?? []).map((e) => e.name)]);
  const serverOf = new Map<string, string>();
  for (const n of cfg.nodes) {
    const section = `ltm node ${n.obj.name}`;
    if (!n.address || !isIpAddress(n.address)) { item(n.obj.head, section, 'kept', `${n.address ? `address ${n.address} is not an IP address` : 'no address (an FQDN node)'}: not modelled, kept on the box`); continue; }
    const name = serverNames.take(localName(n.obj.name));
    serverOf.set(fullName(n.obj.name), name);
    const description = n.other.find((e) => e.words[0] === 'description' && !e.children);
    servers.push({ name, address: n.address, ...(n.disabled ? { enabled: false } : {}), ...(description ? { description: description.words.slice(1).join(' ').replace(/^"|"$/g, '') } : {}) });
    const pools = cfg.pools.filter((p) => p.members.some((m) => fullName(m.node) === fullName(n.obj.name))).map((p) => p.obj.name);
    item(n.obj.head, section, 'imported', `server ${name} ${n.address}${n.disabled ? ', disabled (session user-disabled)' : ''}${pools.length ? `, member of ${pools.join(', ')}` : '; in no pool: a server of the workspace, in no group (lbdesk changes it only once a group has it)'}`);
    keptLines(section, n.other.filter((e) => e !== description));
  }

  const groups: GroupInput[] = [];
  const services: ServiceInput[] = [];
  const names = new NameSpace();
  const groupOf = new Map<string, string>();
  for (const v of cfg.virtuals) {
    const section = `ltm virtual ${v.obj.name}`;
    const pool = v.pool ? cfg.pools.find((p) => fullName(p.obj.name) === fullName(v.pool!)) : undefined;
    const port = v.port === undefined || v.port === 'any' ? 0 : Number(v.port);
    const why = !v.address || !isIpAddress(v.address) || v.address === '0.0.0.0' || v.address === '::' ? `destination ${v.address ?? '(none)'} is not one address: a forwarding or wildcard virtual`
      : !port ? 'listens on every port: not modelled'
        : !v.pool ? 'has no default pool (its iRules or policies choose one): nothing lbdesk balances'
          : !pool ? `its pool ${v.pool} is not in this config` : undefined;
    if (why) { item(v.obj.head, section, 'kept', `${why}; kept on the box`); continue; }
    const notes: string[] = [];
    const group = groupOf.get(pool!.obj.name) ?? poolGroup(pool!, cfg, notes);
    if (!groupOf.has(pool!.obj.name)) groupOf.set(pool!.obj.name, group);
    const name = names.take(localName(v.obj.name));
    const algo = modeAlgorithm(pool!.mode);
    if (algo.note) notes.push(algo.note);
    const persistence = persistenceOf(v.persist, cfg, notes);
    services.push({ name, address: v.address!, port, protocol: v.protocol === 'udp' ? 'udp' : 'tcp', group, algorithm: algo.algorithm, ...(persistence ? { persistence } : {}) });
    if (v.protocol && v.protocol !== 'tcp' && v.protocol !== 'udp') notes.push(`ip-protocol ${v.protocol}: TCP in the lab`);
    item(v.obj.head, section, notes.length ? 'approximated' : 'imported', `service ${name} ${v.address}:${port} -> group ${group} (${pool!.mode ?? 'round-robin (default)'} as ${algo.algorithm})${notes.length ? `; ${[...new Set(notes)].join('; ')}` : ''}`);
    keptLines(section, v.other.filter((e) => e.words[0] !== 'persist'));
  }

  function poolGroup(pool: F5Pool, c: F5Config, notes: string[]): string {
    const name = names.take(localName(pool.obj.name));
    const section = `ltm pool ${pool.obj.name}`;
    const members: NonNullable<GroupInput['members']> = [];
    for (const m of pool.members) {
      const server = serverOf.get(fullName(m.node));
      const port = Number(m.port);
      if (!server || !port) { item(m.entry.n, section, 'kept', `member ${m.name}: ${!server ? 'its node is not an imported server' : 'port any is not modelled'}; left on the box`); continue; }
      members.push({ server, port, weight: m.ratio });
      const said: string[] = [];
      if (m.disabled) said.push('session user-disabled on the box (lbdesk keeps it; the lab serves it)');
      if (m.down) said.push('state user-down on the box (lbdesk keeps it; the lab serves it)');
      item(m.entry.n, section, said.length ? 'approximated' : 'imported', `member ${server}:${port} ratio ${m.ratio}${said.length ? `; ${said.join('; ')}` : ''}`);
      keptLines(section, m.other);
    }
    const check = checkOf(pool, c, notes);
    groups.push({ name, members, healthCheck: check.check, ...(check.timers ? { healthTimers: check.timers } : {}) });
    item(pool.obj.head, section, 'imported', `group ${name}: ${members.length} member${members.length === 1 ? '' : 's'}${pool.monitor ? `, check from ${pool.monitor[0]}` : ', no monitor'}`);
    keptLines(section, pool.other);
    return name;
  }

  for (const p of cfg.pools) if (!groupOf.has(p.obj.name)) item(p.obj.head, `ltm pool ${p.obj.name}`, 'kept', 'the default pool of no virtual server lbdesk imports: kept on the box as written');
  for (const m of cfg.monitors) {
    const used = cfg.pools.some((p) => groupOf.has(p.obj.name) && p.monitor?.[0] !== undefined && fullName(p.monitor[0]) === fullName(m.obj.name));
    item(m.obj.head, `${m.obj.kind} ${m.obj.name}`, used ? 'approximated' : 'kept', used ? 'read as the check of the pools naming it first (type, send path, interval and timeout); the monitor itself stays on the box' : 'no imported pool checks with it first: kept on the box as written');
  }
  for (const r of cfg.reentered) item(r.line, `${r.kind} ${r.name}`, 'kept', 'defined again: the first definition is imported, this one kept as written');
  for (const o of cfg.others) item(o.head, `${o.kind}${o.name ? ` ${o.name}` : ''}`, 'kept', `"${o.kind}" is not modelled (lbdesk models nodes, pools, virtual servers and their monitors): kept on the box as written`);
  for (const n of cfg.stray) item(n, cfg.lines[n]!.trim(), 'kept', 'a line outside every object: kept as written');
  items.sort((a, b) => a.line - b.line);
  return { driver: 'f5', workspace: { lbdesk: 1, name: 'imported', servers, groups, services }, items, sections: [] };
}

function persistenceOf(persist: string[], cfg: F5Config, notes: string[]): ServiceInput['persistence'] | undefined {
  const p = persist[0];
  if (!p) return undefined;
  const profile = cfg.others.find((o) => o.kind.startsWith('ltm persistence ') && fullName(o.name) === fullName(p));
  const type = profile ? profile.kind.slice('ltm persistence '.length) : localName(p);
  if (type === 'source-addr' || type === 'source_addr') {
    const t = profile?.body.find((e) => e.words[0] === 'timeout')?.words[1];
    return { type: 'client-ip', ...(t && /^\d+$/.test(t) ? { timeout: `${t}s` } : {}) } as ServiceInput['persistence'];
  }
  notes.push(`persist ${p}: ${type} persistence is not modelled, none in the lab (the box keeps it)`);
  return undefined;
}

/** A pool's check as the importer reads it (plan.ts compares the group's check with it). */
export function checkOf(pool: F5Pool, cfg: F5Config, notes: string[]): { check: NonNullable<GroupInput['healthCheck']>; timers?: GroupInput['healthTimers'] } {
  const first = pool.monitor?.[0];
  if (!first) return { check: { type: 'none' } };
  if ((pool.monitor?.length ?? 0) > 1) notes.push(`pool ${pool.obj.name} checks with ${pool.monitor!.join(' and ')}: lbdesk checks one way (${first})`);
  const full = fullName(first);
  const builtin = full.startsWith('/Common/') ? BUILTIN[full.slice('/Common/'.length)] : undefined;
  if (builtin) return { check: { ...builtin } };
  const m = cfg.monitors.find((x) => fullName(x.obj.name) === full);
  if (!m) { notes.push(`monitor ${first} is not in this config: TCP check in the lab`); return { check: { type: 'tcp' } }; }
  const type = TYPES[m.type];
  if (!type) { notes.push(`monitor type ${m.type} is not modelled: TCP check in the lab`); return { check: { type: 'tcp' } }; }
  const check: NonNullable<GroupInput['healthCheck']> = { type: type as 'tcp' };
  if (m.type === 'tcp-half-open') check.layer = 4;
  const send = m.props.get('send');
  const path = send && /^(?:GET|HEAD) (\/[^\s\\]*)/.exec(send)?.[1];
  if ((type === 'http' || type === 'https') && path) check.http = { path };
  if (m.props.get('recv') && m.props.get('recv') !== 'none') notes.push(`monitor ${first} expects "${m.props.get('recv')}": the lab checks the status only`);
  const interval = Number(m.props.get('interval') ?? 5);
  const timeout = Number(m.props.get('timeout') ?? 16);
  const up = Number(m.props.get('time-until-up') ?? 0);
  const timers: NonNullable<GroupInput['healthTimers']> = {
    interval: `${interval}s`,
    failAfter: Math.max(1, Math.min(255, Math.floor(timeout / Math.max(1, interval)))),
    restoreAfter: Math.max(1, Math.min(255, up ? Math.ceil(up / Math.max(1, interval)) : 1)),
    // The F5 timeout is how long a member may fail before it is down; each probe waits at most an interval.
    timeout: `${interval}s`,
  };
  notes.push(`monitor ${first} interval ${interval} timeout ${timeout}: checked every ${interval} s, down after ${timers.failAfter} failures (approximate)`);
  return { check, timers };
}
