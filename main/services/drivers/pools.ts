// What both proxy drivers need of a service or a target-set port: its members, each with the
// check and timers the local health checker would use (shared/model/resolve), and its problems.
import type { Group, HealthCheck, Service, TargetSet, Workspace } from '../../../shared/model/schema';
import { groupTransport, resolveCheck, resolveTimers, type ResolvedCheck, type ResolvedTimers } from '../../../shared/model/resolve';
import type { DriverProblem } from './types';

export interface PoolMember {
  /** Server name for group members, address for target-set servers. */
  name: string;
  address: string;
  /** Undefined: reached on the port the client connected to. */
  port?: number;
  weight: number;
  enabled: boolean;
  description?: string;
  timers: ResolvedTimers;
  check: ResolvedCheck;
}

export interface ServicePool {
  service: Service;
  group: Group;
  healthCheck: HealthCheck;
  members: PoolMember[];
}

export const serviceSubject = (s: Service): string => `service ${s.name}`;
export const targetSetSubject = (t: TargetSet): string => `target set ${t.number}`;

/**
 * Members of a service's group. `served` is every service the appliance serves: a group's
 * members are checked over UDP only when all of those using it are UDP (groupTransport).
 */
export function servicePool(workspace: Workspace, served: Service[], service: Service): { pool?: ServicePool; errors: DriverProblem[] } {
  const subject = serviceSubject(service);
  const group = workspace.groups.find((g) => g.name === service.group);
  if (!group) return { errors: [{ subject, message: `group "${service.group}" does not exist` }] };
  const transport = groupTransport({ services: served }, group.name);
  const errors: DriverProblem[] = [];
  const members: PoolMember[] = [];
  for (const m of group.members) {
    const server = workspace.servers.find((s) => s.name === m.server);
    if (!server) {
      errors.push({ subject, message: `group ${group.name}: member server "${m.server}" does not exist` });
      continue;
    }
    members.push({
      name: server.name,
      address: server.address,
      port: m.port,
      weight: m.weight,
      enabled: server.enabled,
      description: server.description,
      timers: resolveTimers({ server: server.healthTimers, group: group.healthTimers, global: workspace.healthTimers }),
      check: resolveCheck(group.healthCheck, m.port, transport),
    });
  }
  return { pool: { service, group, healthCheck: group.healthCheck, members }, errors };
}

const AUTO_CHECK: HealthCheck = { type: 'auto' } as HealthCheck;

/** The health check of a target set: its own, or `auto` (TCP port check on a non-well-known port). */
export function targetSetCheck(t: TargetSet): HealthCheck {
  return t.healthCheck ?? AUTO_CHECK;
}

/** Servers of a target set at one port; `secondary` picks their secondary addresses. */
export function targetSetMembers(workspace: Workspace, t: TargetSet, port: number, secondary: boolean): PoolMember[] {
  const timers = resolveTimers({ group: t.healthTimers, global: workspace.healthTimers });
  const check = resolveCheck(targetSetCheck(t), port, 'tcp');
  return t.servers.map((s) => {
    const address = secondary ? (s.secondaryAddress ?? s.address) : s.address;
    return { name: address, address, port, weight: s.weight, enabled: true, description: s.description, timers, check };
  });
}

/** Target-set servers without a secondary address, when the set has one (they stay on the primary). */
export function missingSecondaries(t: TargetSet): string[] {
  return t.secondaryAddress ? t.servers.filter((s) => !s.secondaryAddress).map((s) => s.address) : [];
}

/** The warning every driver without a degraded state gives for response-time thresholds. */
export function degradedWarning(subject: string, check: HealthCheck, tool: string): DriverProblem | undefined {
  if (check.degradedAbove === undefined && check.availableBelow === undefined) return undefined;
  return {
    subject,
    message: `${tool} has no degraded state: response-time thresholds (degradedAbove/availableBelow) are dropped, slow servers stay in service`,
  };
}
