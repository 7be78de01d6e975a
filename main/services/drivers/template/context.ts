// What a CLI template sees: the appliance's services, their groups, members and real servers,
// with checks and timers already resolved exactly as the local health checker resolves them.
import type { Appliance, HealthCheck, Service, TargetSet, Workspace } from '../../../../shared/model/schema';
import { groupTransport, resolveCheck, resolveTimers, type ResolvedCheck, type ResolvedTimers } from '../../../../shared/model/resolve';
import { selectIncluded } from '../include';
import { servicePool, type PoolMember } from '../pools';
import type { DriverProblem } from '../types';

export interface MemberView extends PoolMember {
  /** The member's port, or the service's when the member has none. */
  port: number;
  /** Server name (same as `name`). */
  server: string;
}

export interface ServiceView extends Omit<Service, 'group'> {
  group: string;
  members: MemberView[];
  /** The check of the first member (what a per-service vendor setting can carry). */
  check?: ResolvedCheck;
}

export interface GroupView {
  name: string;
  description?: string;
  healthCheck: HealthCheck;
  /** The check resolved for the group's first member port (ADX: L4 or L7; the protocol override). */
  check: ResolvedCheck;
  /** Group-level timers: group > global > default (a server may override them). */
  timers: ResolvedTimers;
  members: { server: string; address: string; port?: number; weight: number; enabled: boolean; check: ResolvedCheck; timers: ResolvedTimers }[];
  /** Services using this group on this appliance. */
  services: string[];
}

export interface RealServerView {
  name: string;
  address: string;
  enabled: boolean;
  description?: string;
  /** Ports the appliance reaches this server on (members of the included groups), ascending. */
  ports: number[];
  /** The server's own timer overrides, in milliseconds (only those it sets). */
  healthTimers: Partial<Record<'interval' | 'retryInterval' | 'failAfter' | 'restoreAfter' | 'timeout', number>>;
}

/** One application port (ADX: health checks are configured per port, seed 000). */
export interface PortView {
  port: number;
  transport: 'tcp' | 'udp';
  /** The check of the first group using the port. */
  check: ResolvedCheck;
  /** That group's health check as written (http path, expect, ldap base…). */
  healthCheck: HealthCheck;
  timers: ResolvedTimers;
  /** Groups with members on this port, workspace order. */
  groups: string[];
  /** Groups on this port whose resolved check differs from `check` (a per-port vendor cannot hold both). */
  conflicts: string[];
}

export interface TemplateContext {
  workspace: { name: string; description?: string };
  appliance: { name: string; host: string; port: number; user?: string; template?: string };
  /** `lbdesk: workspace "...", appliance "...", driver cli`, for a comment line. */
  lbdesk: { header: string };
  /** Global timers (global > default). */
  timers: ResolvedTimers;
  services: ServiceView[];
  groups: GroupView[];
  realServers: RealServerView[];
  /** Application ports of the included groups, ascending. */
  ports: PortView[];
  targetSets: TargetSet[];
}

export function templateContext(workspace: Workspace, appliance: Appliance, errors: DriverProblem[]): TemplateContext {
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const services: ServiceView[] = [];
  const usedGroups = new Map<string, string[]>();
  for (const s of included.services) {
    const { pool, errors: e } = servicePool(workspace, included.services, s);
    errors.push(...e);
    if (!pool) continue;
    usedGroups.set(pool.group.name, [...(usedGroups.get(pool.group.name) ?? []), s.name]);
    const members = pool.members.map((m) => ({ ...m, port: m.port ?? s.port, server: m.name }));
    services.push({ ...s, members, ...(members[0] ? { check: members[0].check } : {}) });
  }
  const groups: GroupView[] = [];
  const serverPorts = new Map<string, Set<number>>();
  for (const g of workspace.groups) {
    const users = usedGroups.get(g.name);
    if (!users) continue;
    const transport = groupTransport({ services: included.services }, g.name);
    const firstPort = g.members.find((m) => m.port !== undefined)?.port ?? included.services.find((s) => s.group === g.name)?.port;
    const members: GroupView['members'] = [];
    for (const m of g.members) {
      const server = workspace.servers.find((s) => s.name === m.server);
      if (!server) continue; // reported by servicePool
      if (m.port !== undefined) (serverPorts.get(server.name) ?? serverPorts.set(server.name, new Set()).get(server.name)!).add(m.port);
      members.push({
        server: server.name, address: server.address, port: m.port, weight: m.weight, enabled: server.enabled,
        check: resolveCheck(g.healthCheck, m.port, transport),
        timers: resolveTimers({ server: server.healthTimers, group: g.healthTimers, global: workspace.healthTimers }),
      });
    }
    groups.push({
      name: g.name,
      ...(g.description !== undefined ? { description: g.description } : {}),
      healthCheck: g.healthCheck,
      check: resolveCheck(g.healthCheck, firstPort, transport),
      timers: resolveTimers({ group: g.healthTimers, global: workspace.healthTimers }),
      members,
      services: users,
    });
  }
  const inGroups = new Set(groups.flatMap((g) => g.members.map((m) => m.server)));
  const realServers: RealServerView[] = workspace.servers
    .filter((s) => inGroups.has(s.name))
    .map((s) => ({
      name: s.name, address: s.address, enabled: s.enabled,
      ...(s.description !== undefined ? { description: s.description } : {}),
      ports: [...(serverPorts.get(s.name) ?? [])].sort((a, b) => a - b),
      healthTimers: { ...(s.healthTimers ?? {}) },
    }));
  const ports = new Map<string, PortView>();
  for (const g of groups) {
    const transport = groupTransport({ services: included.services }, g.name);
    for (const m of g.members) {
      if (m.port === undefined) continue;
      const key = `${transport}/${m.port}`;
      const seen = ports.get(key);
      if (!seen) {
        ports.set(key, { port: m.port, transport, check: m.check, healthCheck: g.healthCheck, timers: g.timers, groups: [g.name], conflicts: [] });
      } else if (!seen.groups.includes(g.name)) {
        seen.groups.push(g.name);
        if (seen.check.type !== m.check.type || seen.check.layer !== m.check.layer) seen.conflicts.push(g.name);
      }
    }
  }
  return {
    workspace: { name: workspace.name, ...(workspace.description !== undefined ? { description: workspace.description } : {}) },
    appliance: { name: appliance.name, host: appliance.host, port: appliance.port, ...(appliance.user ? { user: appliance.user } : {}), ...(appliance.template ? { template: appliance.template } : {}) },
    lbdesk: { header: `lbdesk: workspace ${JSON.stringify(workspace.name)}, appliance ${JSON.stringify(appliance.name)}, driver cli` },
    timers: resolveTimers({ global: workspace.healthTimers }),
    services,
    groups,
    realServers,
    ports: [...ports.values()].sort((a, b) => a.port - b.port || a.transport.localeCompare(b.transport)),
    targetSets: included.targetSets,
  };
}
