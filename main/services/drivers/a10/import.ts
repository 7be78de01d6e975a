// A10 running config -> workspace: each `slb server` a server, each service group a group (its
// members, its health monitor as the check), each virtual port with a service group a service.
// Everything else stays on the box, each statement named in the report with why.
import { isIpAddress } from '../../../../shared/model/address';
import { NameSpace } from '../../import/names';
import { ImportError, type GroupInput, type ImportResult, type ReportItem, type ServerInput, type ServiceInput } from '../../import/types';
import { parseA10, type A10Config, type A10Group, type A10Line, type A10Monitor, type A10Server } from './parse';

export interface A10ImportOptions {
  taken?: { servers?: Iterable<string> };
  existingServers?: { name: string; address: string }[];
}

/** ACOS `method` -> lbdesk algorithm; a service group without one is round robin. */
const METHODS: Record<string, ServiceInput['algorithm']> = {
  'round-robin': 'round-robin',
  'round-robin-strict': 'round-robin',
  'weighted-rr': 'weighted-round-robin',
  'least-connection': 'least-connections',
  'weighted-least-connection': 'least-connections',
  'service-least-connection': 'least-connections',
  'src-ip-hash': 'source-hash',
  'src-ip-only-hash': 'source-hash',
};
export const DEFAULT_METHOD = 'round-robin';

export function methodAlgorithm(m: string | undefined): { algorithm: ServiceInput['algorithm']; note?: string } {
  const word = m ?? DEFAULT_METHOD;
  const a = METHODS[word];
  if (a) return { algorithm: a, ...(word === 'weighted-least-connection' ? { note: 'method weighted-least-connection: least connections without weights in the lab' } : {}) };
  return { algorithm: 'least-connections', note: `method ${word}: not modelled, least connections in the lab` };
}

/** A server's weight as lbdesk's member weight: `weight N`; none (the box's 1) = lbdesk's 100. */
export function serverWeight(s: A10Server | undefined): number {
  return s?.weight ?? 100;
}

/** The ACOS default timers (interval 5 s, timeout 5 s, retry 3, up-retry 1) when a monitor says none. */
export function checkOf(m: A10Monitor | undefined, g: A10Group, notes: string[]): Pick<GroupInput, 'healthCheck' | 'healthTimers'> {
  if (g.checkOff) return { healthCheck: { type: 'none' } };
  if (!g.healthCheck) return { healthCheck: { type: 'auto' } };
  if (!m) { notes.push(`health-check ${g.healthCheck}: no such health monitor in the config; lbdesk's own check in the lab`); return { healthCheck: { type: 'auto' } }; }
  const t = m.timers;
  const healthTimers = {
    ...(t.interval !== undefined ? { interval: `${t.interval}s` } : {}),
    ...(t.timeout !== undefined ? { timeout: `${t.timeout}s` } : {}),
    ...(t.retry !== undefined ? { failAfter: Math.max(1, t.retry) } : {}),
    ...(t.upRetry !== undefined ? { restoreAfter: Math.max(1, t.upRetry) } : {}),
  };
  if (t.retry !== undefined) notes.push(`monitor ${m.name} retry ${t.retry}: down after ${Math.max(1, t.retry)} failed checks (ACOS counts retries after the first failure: approximate)`);
  const timers = Object.keys(healthTimers).length ? { healthTimers } : {};
  const type = m.method?.type;
  if (type === 'tcp') return { healthCheck: { type: 'tcp', layer: 4 }, ...timers };
  if (type === 'http' || type === 'https') return { healthCheck: { type, ...(m.method?.path?.startsWith('/') ? { http: { path: m.method.path } } : {}) }, ...timers };
  if (type === 'icmp') return { healthCheck: { type: 'ping' }, ...timers };
  if (type === 'udp') return { healthCheck: { type: 'udp', layer: 4 }, ...timers };
  notes.push(`monitor ${m.name} method ${type ?? '(none: ICMP)'}: ${type ? 'not modelled, lbdesk\'s own check in the lab' : 'ping'}`);
  return { healthCheck: { type: type ? 'auto' : 'ping' }, ...timers };
}

export function importA10(text: string, file: string, opts: A10ImportOptions = {}): ImportResult {
  const cfg = parseA10(text);
  if (!cfg.servers.length && !cfg.groups.length && !cfg.virtuals.length && !cfg.monitors.length) {
    throw new ImportError(file, (cfg.others[0]?.head.n ?? 0) + 1, 'no "slb server", "slb service-group", "slb virtual-server" or "health monitor" block: not an A10 running config');
  }
  const items: ReportItem[] = [];
  const item = (l: A10Line, section: string, outcome: ReportItem['outcome'], detail: string) => items.push({ file, line: l.n + 1, section, outcome, detail });
  const kept = (l: A10Line, section: string) => item(l, section, 'kept', `"${l.text.trim()}" is not modelled: kept on the box as written`);
  const servers: ServerInput[] = [];
  const serverNames = new NameSpace([...(opts.taken?.servers ?? []), ...(opts.existingServers ?? []).map((e) => e.name)]);
  const serverName = new Map<string, string>();
  for (const s of cfg.servers) {
    const section = `slb server ${s.name}`;
    if (!isIpAddress(s.address)) { item(s.head, section, 'kept', `"${s.address}" is not an IP address: not modelled, kept on the box`); continue; }
    const name = serverNames.take(s.name);
    serverName.set(s.name, name);
    servers.push({ name, address: s.address, ...(s.disabled ? { enabled: false } : {}) });
    const said = [`${s.address}`, s.ports.length ? `port ${s.ports.map((p) => `${p.port} ${p.proto}${p.disabled ? ' (disabled)' : ''}`).join(', ')}` : 'no port',
      s.weight !== undefined ? `weight ${s.weight}` : 'no weight (the box\'s 1, lbdesk\'s 100)', ...(s.disabled ? ['disabled'] : []),
      ...(s.healthCheck ? [`health-check ${s.healthCheck} (the server's own check: kept on the box)`] : []), ...(s.checkOff ? ['its own check off (kept on the box)'] : []),
      ...(name !== s.name ? [`named ${name}`] : [])];
    item(s.head, section, 'imported', said.join(', '));
    for (const l of s.unmodelled) kept(l, section);
  }
  const groups: GroupInput[] = [];
  const services: ServiceInput[] = [];
  const groupName = new Map<string, string>();
  const groupNames = new NameSpace();
  const used = new Set(cfg.virtuals.flatMap((v) => v.ports.map((p) => p.serviceGroup)));
  for (const g of cfg.groups) group(g, cfg);
  const names = new NameSpace();
  for (const v of cfg.virtuals) {
    const section = `slb virtual-server ${v.name}`;
    if (!isIpAddress(v.address)) { item(v.head, section, 'kept', `"${v.address}" is not an IP address: not modelled, kept on the box`); continue; }
    item(v.head, section, 'imported', `${v.address}: ${v.ports.length} port${v.ports.length === 1 ? '' : 's'} (${v.ports.map((p) => `${p.port} ${p.proto}`).join(', ')}), each with a service group a service below${v.disabled ? '; disabled on the box: the line stays, lbdesk does not disable it' : ''}`);
    for (const l of v.unmodelled) kept(l, section);
    const withGroup = v.ports.filter((p) => p.serviceGroup && p.range === undefined);
    for (const p of v.ports) {
      for (const l of p.unmodelled) kept(l, section);
      for (const e of p.entries.slice(1)) item(e[0]!, section, 'imported', `port ${p.port} ${p.proto} entered again: its lines are read as part of that port${p.range === undefined && /\brange\b/.test(p.line.text) ? ' (this head has no range: the range is gone, as on the box)' : ''}`);
      if (p.port < 1) { item(p.line, section, 'kept', `port ${p.port} ${p.proto}: a wildcard virtual port is not modelled; kept on the box`); continue; }
      if (p.range !== undefined) { item(p.line, section, 'kept', `port ${p.port} ${p.proto} range ${p.range}: a range of virtual ports is not modelled; kept on the box`); continue; }
      const g = p.serviceGroup ? groupName.get(p.serviceGroup) : undefined;
      if (!p.serviceGroup) { item(p.line, section, 'kept', `port ${p.port} ${p.proto}: no service-group; nothing to balance, kept on the box`); continue; }
      if (!g) { item(p.line, section, 'kept', `port ${p.port} ${p.proto}: service-group ${p.serviceGroup} is not in the config; kept on the box`); continue; }
      const box = cfg.groups.find((x) => x.name === p.serviceGroup)!;
      const algo = methodAlgorithm(box.method?.value);
      const protocol = p.proto === 'udp' || box.protocol === 'udp' ? 'udp' : 'tcp';
      const name = names.take(withGroup.length > 1 ? `${v.name}-${p.port}` : v.name);
      const notes = [...(algo.note ? [algo.note] : []), ...(!['tcp', 'udp'].includes(p.proto) ? [`port type ${p.proto}: balanced as ${protocol}; the box's ${p.proto} handling stays`] : [])];
      services.push({ name, address: v.address, port: p.port, protocol, group: g, algorithm: algo.algorithm });
      item(p.line, section, notes.length ? 'approximated' : 'imported', `service ${name} ${v.address}:${p.port}/${protocol}, group ${g}, method ${box.method?.value ?? `${DEFAULT_METHOD} (default)`} as ${algo.algorithm}${notes.length ? `; ${notes.join('; ')}` : ''}`);
    }
  }
  for (const m of cfg.monitors) {
    const section = `health monitor ${m.name}`;
    const users = cfg.groups.filter((g) => g.healthCheck === m.name).map((g) => g.name);
    const what = `method ${m.method?.words.slice(1).join(' ') ?? '(none: icmp)'}${Object.entries(m.timers).map(([k, x]) => `, ${k} ${x}`).join('')}`;
    item(m.head, section, users.length ? 'approximated' : 'kept', users.length ? `${what}: the check of group ${users.join(', ')} (see the group for how)` : `${what}: no service group names it, kept on the box`);
    for (const l of m.unmodelled) kept(l, section);
  }
  for (const r of cfg.reentered) {
    item({ n: r.line, text: '', words: [], indent: 0 }, `${r.kind === 'monitor' ? 'health monitor' : `slb ${r.kind}`} ${r.name}`, r.was ? 'approximated' : 'imported',
      `entered again: its lines are read as part of ${r.kind} ${r.name}${r.was ? `; its address changes from ${r.was}: the later one is imported (as the box applies it)` : ''}`);
  }
  for (const o of cfg.others) item(o.head, o.head.text.trim(), 'kept', `${o.head.words[0] === 'no' ? 'a "no" setting' : `"${o.head.words.slice(0, 2).join(' ')}"`} is not modelled (lbdesk models slb servers, service groups, virtual servers and health monitors): kept on the box as written`);
  items.sort((a, b) => a.line - b.line);
  return { driver: 'a10', workspace: { lbdesk: 1, name: 'imported', servers, groups, services }, items, sections: [] };

  function group(g: A10Group, c: A10Config): void {
    const section = `slb service-group ${g.name}`;
    const notes: string[] = [];
    if (!used.has(g.name)) notes.push('no virtual port uses it: a group of the workspace with no service (lbdesk changes it only once a service has it)');
    const members: NonNullable<GroupInput['members']> = [];
    for (const m of g.members) {
      const server = serverName.get(m.server);
      if (!server) { notes.push(`member ${m.server} ${m.port}: no such slb server; left on the box`); continue; }
      members.push({ server, port: m.port, weight: serverWeight(c.servers.find((s) => s.name === m.server)) });
      if (m.disabled) notes.push(`member ${m.server} ${m.port} is disabled on the box: a member in the lab, the line stays`);
      for (const l of m.lines.slice(1)) if (!['disable', 'enable'].includes(l.words.join(' '))) kept(l, section);
      if (m.form === 2) for (const w of memberRest(m.line.words)) notes.push(`member ${m.server}:${m.port} ${w} (ACOS 2.x form): not modelled, stays on the box`);
    }
    const name = groupNames.take(g.name);
    groupName.set(g.name, name);
    const check = checkOf(g.healthCheck ? c.monitors.find((m) => m.name === g.healthCheck) : undefined, g, notes);
    groups.push({ name, members, ...check });
    for (const l of g.unmodelled) kept(l, section);
    item(g.head, section, notes.length ? 'approximated' : 'imported', `group ${name}: ${members.length} member${members.length === 1 ? '' : 's'}, check ${check.healthCheck?.type}${g.healthCheck ? ` (health-check ${g.healthCheck})` : ''}${notes.length ? `; ${notes.join('; ')}` : ''}`);
  }
}

/** The settings after `member s1:80` on an ACOS 2.x line, other than disable/enable. */
function memberRest(w: string[]): string[] {
  const out: string[] = [];
  for (let i = 2; i < w.length; i++) {
    if (w[i] === 'disable' || w[i] === 'enable') continue;
    out.push(w[i + 1] !== undefined && /^\d+$/.test(w[i + 1]!) ? `${w[i]} ${w[++i]}` : w[i]!);
  }
  return out;
}
