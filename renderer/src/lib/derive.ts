// Figures the UI derives from the document as typed: resolved timers and their source, the check
// a member gets, weight shares, check load. The rules themselves come from shared/model.
import { memberKey } from '../../../shared/api/types';
import { detectionTimes, parseDuration, resolveCheck, resolveTimers, TIMER_NAMES, type DetectionTimes, type ResolvedTimers, type TimerName } from './model';
import type { Path } from './tree';

type Obj = Record<string, unknown>;
export const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]).map((x) => (x && typeof x === 'object' ? x : {})) : []);
export const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const COUNT_TIMERS = new Set<TimerName>(['failAfter', 'restoreAfter']);

/** Timer values in ms/counts as typed at one level; unparseable values count as not set. */
export function timerLayer(v: unknown): Partial<Record<TimerName, number>> | undefined {
  const o = obj(v);
  const out: Partial<Record<TimerName, number>> = {};
  let any = false;
  for (const n of TIMER_NAMES) {
    const x = o[n];
    if (x === undefined) continue;
    const val = COUNT_TIMERS.has(n) ? num(x) : parseDuration(x);
    if (val !== undefined) {
      out[n] = val;
      any = true;
    }
  }
  return any ? out : undefined;
}

export interface TimerView { resolved: ResolvedTimers; detection: DetectionTimes }

/** Timers for a member (server in a group), a group, or the global level. */
export function timersFor(raw: Obj, opts: { group?: Obj; server?: Obj }): TimerView {
  const resolved = resolveTimers({ server: timerLayer(opts.server?.healthTimers), group: timerLayer(opts.group?.healthTimers), global: timerLayer(raw.healthTimers) });
  return { resolved, detection: detectionTimes(resolved) };
}

export function serverByName(raw: Obj): Map<string, { server: Obj; index: number }> {
  const m = new Map<string, { server: Obj; index: number }>();
  list(raw.servers).forEach((s, index) => m.set(str(s.name), { server: s, index }));
  return m;
}

/** TCP unless every service using the group is UDP (the rule of shared/model's groupTransport). */
export function transportOf(raw: Obj, group: string): 'tcp' | 'udp' {
  const protos = list(raw.services).filter((s) => s.group === group).map((s) => (s.protocol === 'udp' ? 'udp' : 'tcp'));
  return protos.length > 0 && protos.every((p) => p === 'udp') ? 'udp' : 'tcp';
}

export function checkOf(raw: Obj, group: Obj, port: number | undefined) {
  const hc = obj(group.healthCheck);
  const type = (typeof hc.type === 'string' ? hc.type : 'auto') as Parameters<typeof resolveCheck>[0]['type'];
  const protocol = typeof hc.protocol === 'string' ? (hc.protocol as Parameters<typeof resolveCheck>[0]['protocol']) : undefined;
  const layer = hc.layer === 4 || hc.layer === 7 ? hc.layer : undefined;
  try {
    return resolveCheck({ type, protocol, layer }, port, transportOf(raw, str(group.name)));
  } catch {
    return undefined;
  }
}

export interface TopoMember {
  key: string;
  label: string;
  address: string;
  port?: number;
  weight: number;
  /** Share of new connections its weight promises among enabled members, percent. */
  share: number;
  enabled: boolean;
  /** Where to edit it. */
  path: Path;
  serverIndex?: number;
}
export interface TopoEntry {
  kind: 'service' | 'targetSet' | 'group';
  id: string;
  /** The forwarding engine's pool for it (`svc:<name>`, `ts:<n>`); none for an unused group. */
  pool?: string;
  title: string;
  endpoint: string;
  detail: string;
  group?: string;
  groupIndex?: number;
  path: Path;
  members: TopoMember[];
  disabled: boolean;
  /** Client-IP persistence: one test client stays on one member, whatever the weights. */
  sticky?: boolean;
  /** The persistence timeout as written (`300s`), when sticky. */
  stickyFor?: string;
}

/**
 * Promised shares of new connections over the members that take traffic: weight / sum of
 * weights × 100 (the IPFE formula), or equal shares for plain round-robin, which takes turns
 * whatever the weights (weight 0 still means no new connections, for every algorithm).
 */
export function shares(weights: number[], enabled: boolean[], algorithm?: string): number[] {
  if (algorithm === 'round-robin') {
    const takers = weights.filter((w, i) => enabled[i] && w > 0).length;
    return weights.map((w, i) => (enabled[i] && w > 0 && takers > 0 ? 100 / takers : 0));
  }
  const total = weights.reduce((a, w, i) => a + (enabled[i] ? w : 0), 0);
  return weights.map((w, i) => (enabled[i] && total > 0 ? (w / total) * 100 : 0));
}

function groupMembers(raw: Obj, g: Obj, gi: number, servers: Map<string, { server: Obj; index: number }>, algorithm?: string): TopoMember[] {
  const ms = list(g.members);
  const rows = ms.map((m, mi) => {
    const name = str(m.server);
    const s = servers.get(name);
    const port = num(m.port);
    return {
      key: memberKey({ group: str(g.name), server: name, port }),
      label: name,
      address: str(s?.server.address),
      port,
      weight: num(m.weight) ?? 100,
      share: 0,
      enabled: s ? s.server.enabled !== false : false,
      path: ['groups', gi, 'members', mi] as Path,
      serverIndex: s?.index,
    };
  });
  const sh = shares(rows.map((r) => r.weight), rows.map((r) => r.enabled), algorithm);
  rows.forEach((r, i) => (r.share = sh[i]!));
  return rows;
}

/** `keptUse`: per group, what of a box's own file uses it (manage: sections), said instead of "no virtual service". */
export function topology(raw: Obj, keptUse?: Map<string, string>): TopoEntry[] {
  const servers = serverByName(raw);
  const groups = list(raw.groups);
  const groupIndex = new Map(groups.map((g, i) => [str(g.name), i]));
  const out: TopoEntry[] = [];
  const used = new Set<string>();
  list(raw.services).forEach((s, si) => {
    const gname = str(s.group);
    used.add(gname);
    const gi = groupIndex.get(gname);
    const g = gi === undefined ? undefined : groups[gi];
    out.push({
      kind: 'service',
      id: `svc:${str(s.name)}:${si}`,
      pool: `svc:${str(s.name)}`,
      title: str(s.name) || `(service ${si + 1})`,
      endpoint: `${str(s.address)}:${str(s.port)}/${s.protocol === 'udp' ? 'udp' : 'tcp'}`,
      detail: str(s.algorithm) || 'round-robin',
      group: gname,
      groupIndex: gi,
      path: ['services', si],
      members: g && gi !== undefined ? groupMembers(raw, g, gi, servers, str(s.algorithm) || 'round-robin') : [],
      disabled: s.enabled === false,
      sticky: obj(s.persistence).type === 'client-ip',
      stickyFor: str(obj(s.persistence).timeout) || undefined,
    });
  });
  list(raw.targetSets).forEach((t, ti) => {
    const n = num(t.number);
    const ts = list(t.servers);
    const rows: TopoMember[] = ts.map((x, xi) => ({
      key: memberKey({ targetSet: n ?? 0, address: str(x.address) }),
      label: str(x.description) || str(x.address),
      address: str(x.address),
      weight: num(x.weight) ?? 100,
      share: 0,
      enabled: true,
      path: ['targetSets', ti, 'servers', xi],
    }));
    const sh = shares(rows.map((r) => r.weight), rows.map(() => true));
    rows.forEach((r, i) => (r.share = sh[i]!));
    const ports = Array.isArray(t.ports) ? (t.ports as unknown[]).join(', ') : '';
    out.push({
      kind: 'targetSet',
      id: `ts:${n ?? ti}`,
      pool: `ts:${n ?? '?'}`,
      title: `Target set ${n ?? '?'}`,
      endpoint: `${str(t.address)}${ports ? ` : ${ports}` : ''}`,
      detail: `${str(t.algorithm) || 'least-load'}, active ${str(t.activeIpfe) || 'A1'}`,
      path: ['targetSets', ti],
      members: rows,
      disabled: t.disabled === true,
    });
  });
  groups.forEach((g, gi) => {
    if (used.has(str(g.name))) return;
    out.push({
      kind: 'group',
      id: `grp:${str(g.name)}:${gi}`,
      title: str(g.name),
      endpoint: keptUse?.get(str(g.name)) ?? 'no virtual service uses this group',
      detail: '',
      group: str(g.name),
      groupIndex: gi,
      path: ['groups', gi],
      members: groupMembers(raw, g, gi, servers),
      disabled: false,
    });
  });
  return out;
}

export interface CheckLoad {
  /** Checks per minute from one checker while every member is up (interval), and while down (retryInterval). */
  upPerMin: number;
  downPerMin: number;
  members: { group: string; port?: number; check?: string; interval: number; retryInterval: number }[];
  /** Appliances whose config includes a service of one of these groups: each runs its own checks. */
  appliances: string[];
}

/** The check load one real server will receive, from each checker and from every appliance. */
export function checkLoad(raw: Obj, serverName: string): CheckLoad {
  const servers = serverByName(raw);
  const s = servers.get(serverName)?.server;
  const out: CheckLoad = { upPerMin: 0, downPerMin: 0, members: [], appliances: [] };
  const groupsUsed = new Set<string>();
  for (const g of list(raw.groups)) {
    for (const m of list(g.members)) {
      if (m.server !== serverName) continue;
      const { resolved } = timersFor(raw, { group: g, server: s });
      const port = num(m.port);
      const check = checkOf(raw, g, port);
      if (check?.type === 'none') continue;
      out.upPerMin += 60_000 / resolved.interval;
      out.downPerMin += 60_000 / resolved.retryInterval;
      out.members.push({ group: str(g.name), port, check: check?.type, interval: resolved.interval, retryInterval: resolved.retryInterval });
      groupsUsed.add(str(g.name));
    }
  }
  const services = list(raw.services).filter((x) => groupsUsed.has(str(x.group))).map((x) => str(x.name));
  for (const a of list(raw.appliances)) {
    const inc = Array.isArray(a.include) ? (a.include as unknown[]).map(str) : undefined;
    if (services.some((n) => !inc || inc.includes(n))) out.appliances.push(str(a.name));
  }
  return out;
}

/**
 * The lab's notes worth a banner: "SCTP is not forwarded locally" only for a target set whose
 * `protocols` the workspace sets (sctp or both), not one that merely has the default.
 */
export function labNotes(notes: readonly string[], raw: Obj): string[] {
  const chosen = new Set(list(raw.targetSets).filter((t) => t.protocols === 'sctp' || t.protocols === 'both').map((t) => num(t.number)));
  return notes.filter((n) => {
    const m = /^target set (\d+)\b.*SCTP/.exec(n);
    return !m || chosen.has(Number(m[1]));
  });
}
