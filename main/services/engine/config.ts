// A workspace as the forwarding engine sees it: pools of servers and the listeners that feed
// them. Plain data (it crosses to the worker thread); built here, pure and unit-tested.
import * as ipaddr from 'ipaddr.js';
import { memberKey } from '../../../shared/api/types';
import type { Algorithm, Workspace } from '../../../shared/model/schema';
import { resolveTimers } from '../../../shared/model/resolve';

export type PoolAlgorithm = Algorithm | 'hash' | 'least-load';

/** Capacities assumed for IPFE least load when neither the workspace nor a heartbeat gives them. */
export const DEFAULT_CAPACITY = { mps: 1000, connections: 1000 } as const;

export interface MemberConfig {
  key: string;
  /** Server name (groups) or address (target sets). */
  server: string;
  address: string;
  /** Target sets: the address the secondary TSA forwards to. */
  secondaryAddress?: string;
  /** Backend port; undefined = the port the connection arrived on (target sets). */
  port?: number;
  weight: number;
  /** false = out of service by configuration (server `enabled: false`): drained. */
  enabled: boolean;
  connectTimeoutMs: number;
  capacity: { mps: number; connections: number };
}

export interface PoolConfig {
  id: string;
  kind: 'service' | 'targetSet';
  name: string;
  service?: string;
  targetSet?: number;
  protocol: 'tcp' | 'udp';
  algorithm: PoolAlgorithm;
  persistence: { type: 'none' | 'client-ip'; timeoutMs: number };
  /** Idle connections (or UDP flows) are closed after this long (target sets: delete age). */
  idleTimeoutMs: number;
  leastLoad?: { fm: number; fc: number; deviation: number };
  /** Peer node aware spreading threshold D (least-load only; absent = off). */
  peerThreshold?: number;
  heartbeat?: { address: string; port: number; ttlMs: number };
  members: MemberConfig[];
}

export interface ListenerConfig {
  /** `tcp:127.0.0.10:8080`: unchanged ids keep their sockets across reloads. */
  id: string;
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  pool: string;
  /** The target set's secondary address: forward to each server's secondary address. */
  secondary: boolean;
  service?: string;
  targetSet?: number;
}

export interface Notice {
  message: string;
  service?: string;
  targetSet?: number;
}

export interface EngineConfig {
  pools: PoolConfig[];
  listeners: ListenerConfig[];
  notices: Notice[];
  /** Problems that make the workspace impossible to run (apply fails, the old config stays). */
  problems: string[];
}

/** One spelling per address, so `::1` and `0:0::1` are the same listener. */
export function normaliseAddress(address: string): string {
  try {
    return ipaddr.process(address).toString();
  } catch {
    return address;
  }
}

export function listenerId(protocol: 'tcp' | 'udp', address: string, port: number): string {
  return `${protocol}:${normaliseAddress(address)}:${port}`;
}

/** A socket the engine opens for a config: a listener, or a target set's heartbeat socket. */
export interface Binding {
  address: string;
  port: number;
  protocol: 'tcp' | 'udp';
  service?: string;
  targetSet?: number;
  /** The target set's secondary address. */
  secondary: boolean;
}

/** Every address a config makes the engine bind: the one list the lab's loopback rule checks. */
export function bindings(config: EngineConfig): Binding[] {
  const out: Binding[] = config.listeners.map((l) => ({
    address: l.address, port: l.port, protocol: l.protocol, secondary: l.secondary,
    ...(l.service !== undefined ? { service: l.service } : {}), ...(l.targetSet !== undefined ? { targetSet: l.targetSet } : {}),
  }));
  for (const p of config.pools) {
    if (p.heartbeat) out.push({ address: p.heartbeat.address, port: p.heartbeat.port, protocol: 'udp', secondary: false, ...(p.targetSet !== undefined ? { targetSet: p.targetSet } : {}) });
  }
  return out;
}

export function buildConfig(workspace: Workspace): EngineConfig {
  const pools: PoolConfig[] = [];
  const listeners: ListenerConfig[] = [];
  const notices: Notice[] = [];
  const problems: string[] = [];
  const servers = new Map(workspace.servers.map((s) => [s.name, s]));
  const groups = new Map(workspace.groups.map((g) => [g.name, g]));
  const owner = new Map<string, string>();
  const claim = (l: ListenerConfig, who: string) => {
    const other = owner.get(l.id);
    if (other) problems.push(`${who} and ${other} both listen on ${l.address}:${l.port}/${l.protocol}`);
    else {
      owner.set(l.id, who);
      listeners.push(l);
    }
  };

  for (const svc of workspace.services) {
    if (!svc.enabled) {
      notices.push({ service: svc.name, message: `service ${svc.name} is disabled: not listening` });
      continue;
    }
    const group = groups.get(svc.group);
    if (!group) notices.push({ service: svc.name, message: `service ${svc.name}: group "${svc.group}" is not defined; every connection is refused` });
    const members: MemberConfig[] = [];
    for (const m of group?.members ?? []) {
      const s = servers.get(m.server);
      if (!s) {
        notices.push({ service: svc.name, message: `group ${svc.group}: server "${m.server}" is not defined; skipped` });
        continue;
      }
      const timers = resolveTimers({ server: s.healthTimers, group: group!.healthTimers, global: workspace.healthTimers });
      members.push({
        key: memberKey({ group: svc.group, server: m.server, port: m.port }),
        server: m.server,
        address: s.address,
        port: m.port ?? svc.port,
        weight: m.weight,
        enabled: s.enabled,
        connectTimeoutMs: timers.timeout,
        capacity: { ...DEFAULT_CAPACITY },
      });
    }
    const id = `svc:${svc.name}`;
    pools.push({
      id,
      kind: 'service',
      name: svc.name,
      service: svc.name,
      protocol: svc.protocol,
      algorithm: svc.algorithm,
      persistence: { type: svc.persistence.type, timeoutMs: svc.persistence.timeout },
      idleTimeoutMs: svc.idleTimeout,
      members,
    });
    claim({ id: listenerId(svc.protocol, svc.address, svc.port), protocol: svc.protocol, address: svc.address, port: svc.port, pool: id, secondary: false, service: svc.name }, `service ${svc.name}`);
  }

  for (const ts of workspace.targetSets) {
    const who = `target set ${ts.number}`;
    if (ts.disabled) {
      notices.push({ targetSet: ts.number, message: `${who} is disabled: defined but not in use` });
      continue;
    }
    if (ts.protocols !== 'tcp') {
      notices.push({
        targetSet: ts.number,
        message: ts.protocols === 'sctp'
          ? `${who} is SCTP only: kept in the config but not forwarded locally`
          : `${who}: TCP is forwarded; SCTP is kept in the config but not forwarded locally`,
      });
    }
    if (ts.protocols === 'sctp') continue;
    if (ts.ports.length === 0) notices.push({ targetSet: ts.number, message: `${who} has no ports: nothing to forward` });
    const timers = resolveTimers({ group: ts.healthTimers, global: workspace.healthTimers });
    const id = `ts:${ts.number}`;
    pools.push({
      id,
      kind: 'targetSet',
      name: who,
      targetSet: ts.number,
      protocol: 'tcp',
      algorithm: ts.algorithm,
      persistence: { type: 'none', timeoutMs: 0 },
      idleTimeoutMs: ts.deleteAge * 1000,
      leastLoad: { fm: ts.leastLoad.mpsFactor, fc: ts.leastLoad.connectionFactor, deviation: ts.leastLoad.allowedDeviation },
      ...(ts.algorithm === 'least-load' && ts.peerNodeAware.enabled ? { peerThreshold: ts.peerNodeAware.threshold } : {}),
      ...(ts.heartbeat ? { heartbeat: { address: ts.address, port: ts.heartbeat.port, ttlMs: ts.heartbeat.ttl } } : {}),
      members: ts.servers.map((s) => ({
        key: memberKey({ targetSet: ts.number, address: s.address }),
        server: s.address,
        address: s.address,
        ...(s.secondaryAddress ? { secondaryAddress: s.secondaryAddress } : {}),
        weight: s.weight,
        enabled: true,
        connectTimeoutMs: timers.timeout,
        capacity: { mps: s.capacity?.mps ?? DEFAULT_CAPACITY.mps, connections: s.capacity?.connections ?? DEFAULT_CAPACITY.connections },
      })),
    });
    for (const port of ts.ports) {
      claim({ id: listenerId('tcp', ts.address, port), protocol: 'tcp', address: ts.address, port, pool: id, secondary: false, targetSet: ts.number }, who);
      if (ts.secondaryAddress) {
        claim({ id: listenerId('tcp', ts.secondaryAddress, port), protocol: 'tcp', address: ts.secondaryAddress, port, pool: id, secondary: true, targetSet: ts.number }, `${who} (secondary)`);
      }
    }
    if (ts.heartbeat) {
      const hbId = listenerId('udp', ts.address, ts.heartbeat.port);
      if (owner.has(hbId)) problems.push(`${who} heartbeat port ${ts.heartbeat.port}/udp is also used by ${owner.get(hbId)}`);
      else owner.set(hbId, `${who} heartbeat`);
    }
  }
  return { pools, listeners, notices, problems };
}
