// Every checked member of a workspace: group members (group check, server > group > global
// timers) and target-set servers (the set's check, else TCP L4 on its first port, else ping).
import { memberKey, type MemberKey } from '../../../shared/api/types';
import { groupTransport, resolveCheck, resolveTimers, type ResolvedCheck, type ResolvedTimers } from '../../../shared/model/resolve';
import type { HealthCheck, Workspace } from '../../../shared/model/schema';
import { DEFAULT_PORTS, secretsNamed, secretsSent } from '../../../shared/model/checks';
import { secretName } from '../secrets/types';
import { destination } from '../secrets/bound';

export interface MemberSpec {
  key: MemberKey;
  group?: string;
  targetSet?: number;
  server: string;
  address: string;
  port?: number;
  check: ResolvedCheck;
  /** The check's settings (http, tls, ldap, dns, radius, degradedAbove, availableBelow). */
  settings: HealthCheck;
  timers: ResolvedTimers;
  /** Set when the member is out of service by configuration: why, in words. */
  disabled?: string;
  /** Set when the member cannot be checked at all (e.g. an undefined server). */
  problem?: string;
  /** Changes when anything the probe depends on changes (address, port, check, settings). */
  probeId: string;
  /** Changes when the timers change. */
  timerId: string;
}

const DEFAULT_TS_CHECK: HealthCheck = { type: 'auto' };

type Where = Pick<MemberSpec, 'key' | 'group' | 'targetSet' | 'server' | 'address' | 'port'>;

/**
 * Which member: key, group or target set, server, address, port, copied by assignment. Objects
 * made by spreading conditional parts each get a hidden class of their own from V8 (40,000 of
 * them for 20,000 members); assigned in a fixed order, members of one kind share one.
 */
export function copyWhere<T extends Where>(from: Where, to: T): T {
  to.key = from.key;
  if (from.group !== undefined) to.group = from.group;
  if (from.targetSet !== undefined) to.targetSet = from.targetSet;
  to.server = from.server;
  to.address = from.address;
  if (from.port !== undefined) to.port = from.port;
  return to;
}

function finish(m: Omit<MemberSpec, 'probeId' | 'timerId'>): MemberSpec {
  const probeId = JSON.stringify([m.address, m.port, m.check.type, m.settings, m.disabled ?? '', m.problem ?? '']);
  const { source: _s, ...values } = m.timers;
  // Built by assignment so that specs share hidden classes (see copyWhere).
  const spec = copyWhere(m, {} as MemberSpec);
  spec.check = m.check;
  spec.settings = m.settings;
  spec.timers = m.timers;
  if (m.disabled !== undefined) spec.disabled = m.disabled;
  if (m.problem !== undefined) spec.problem = m.problem;
  spec.probeId = probeId;
  spec.timerId = JSON.stringify(values);
  return spec;
}

/**
 * The backend a member's check goes to (address and port): seed 002 allows one health check
 * in progress at a time against a backend server, so members that share one (the same server
 * and port in two groups) take turns.
 */
export function targetOf(spec: MemberSpec): string {
  return `${spec.address}#${spec.port ?? DEFAULT_PORTS[spec.check.type] ?? ''}`;
}

/** `held`: members taken out of checks at run time (`maint` on the daemon's control channel), with the reason shown. */
export function membersOf(workspace: Workspace, held?: (key: string) => string | undefined): MemberSpec[] {
  const out: MemberSpec[] = [];
  const servers = new Map(workspace.servers.map((s) => [s.name, s]));
  for (const g of workspace.groups) {
    const transport = groupTransport(workspace, g.name);
    for (const m of g.members) {
      const s = servers.get(m.server);
      const check = resolveCheck(g.healthCheck, m.port, transport);
      const timers = resolveTimers({ server: s?.healthTimers, group: g.healthTimers, global: workspace.healthTimers });
      const key = memberKey({ group: g.name, server: m.server, port: m.port });
      const off = s && !s.enabled ? 'disabled' : held?.(key);
      out.push(finish({
        key,
        group: g.name,
        server: m.server,
        address: s?.address ?? '',
        port: m.port,
        check,
        settings: g.healthCheck,
        timers,
        ...(off ? { disabled: off } : {}),
        ...(!s ? { problem: `server "${m.server}" is not defined` } : {}),
      }));
    }
  }
  for (const ts of workspace.targetSets) {
    const port = ts.ports[0];
    const settings = ts.healthCheck ?? DEFAULT_TS_CHECK;
    // Without a check of its own a target set gets TCP Layer 4 on its first port (ping without ports).
    const check: ResolvedCheck = ts.healthCheck
      ? resolveCheck(ts.healthCheck, port, 'tcp')
      : port === undefined
        ? { type: 'ping', layer: 4, why: 'target set without ports: ping' }
        : { type: 'tcp', layer: 4, why: `target set: TCP Layer 4 on its first port ${port}` };
    const timers = resolveTimers({ group: ts.healthTimers, global: workspace.healthTimers });
    for (const s of ts.servers) {
      out.push(finish({
        key: memberKey({ targetSet: ts.number, address: s.address }),
        targetSet: ts.number,
        server: s.address,
        address: s.address,
        port: check.type === 'ping' ? undefined : port,
        check,
        settings,
        timers,
        ...(ts.disabled ? { disabled: `target set ${ts.number} is disabled` } : {}),
      }));
    }
  }
  return out;
}

/**
 * The hosts each named secret is sent to by this workspace's checks (an LDAP bind password, a
 * RADIUS shared secret): what a secret not yet bound to hosts is bound to at its first use.
 */
export function secretHosts(workspace: Workspace): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  // Most sites send no secret: skip building every member (the lab builds them again anyway).
  const checks = [...workspace.groups.map((g) => g.healthCheck), ...workspace.targetSets.map((t) => t.healthCheck)];
  if (!checks.some((c) => secretsNamed(c).some(Boolean))) return out;
  for (const m of membersOf(workspace)) {
    if (!m.address || m.disabled !== undefined) continue;
    // The place the probe sends it to: the member's port, else the check's well-known one.
    const port = m.port ?? DEFAULT_PORTS[m.check.type];
    if (port === undefined) continue;
    for (const name of secretsSent(m.check.type, m.settings)) {
      const key = secretName.named(name);
      (out.get(key) ?? out.set(key, new Set()).get(key)!).add(destination(m.address, port));
    }
  }
  return out;
}

/**
 * Which members a `--group` (or check.run group) names: a server group by name, else `tsN`
 * for target set N (how `check` lists target-set members); undefined when it names neither.
 */
export function memberSelector(workspace: Workspace, group: string): ((m: Pick<MemberSpec, 'group' | 'targetSet'>) => boolean) | undefined {
  if (workspace.groups.some((g) => g.name === group)) return (m) => m.group === group;
  const ts = /^ts(\d+)$/.exec(group);
  if (ts && workspace.targetSets.some((t) => t.number === Number(ts[1]))) return (m) => m.targetSet === Number(ts[1]);
  return undefined;
}

