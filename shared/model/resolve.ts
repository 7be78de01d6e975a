// Resolution rules in one place: timers precedence and the ADX `auto` check choice.
import type { CheckType, HealthCheck, Workspace } from './schema';
import { layerOf, UDP_PROTOCOLS, WELL_KNOWN_TCP, WELL_KNOWN_UDP } from './checks/tables';

export { layerOf };

export const DEFAULT_TIMERS = {
  interval: 30_000,
  retryInterval: 10_000,
  failAfter: 2,
  restoreAfter: 2,
  timeout: 5_000,
} as const;
export type TimerName = keyof typeof DEFAULT_TIMERS;
export const TIMER_NAMES = Object.keys(DEFAULT_TIMERS) as TimerName[];
export type TimerSource = 'server' | 'group' | 'global' | 'default';
type TimersLike = Partial<Record<TimerName, number>> | undefined;

export interface ResolvedTimers extends Record<TimerName, number> {
  /** Where each value came from, for the UI's "why this value". */
  source: Record<TimerName, TimerSource>;
}

/** Precedence: server > group (or target set) > global > built-in default (Px seed). */
export function resolveTimers(layers: { server?: TimersLike; group?: TimersLike; global?: TimersLike }): ResolvedTimers {
  const out = { source: {} } as ResolvedTimers;
  for (const name of TIMER_NAMES) {
    const pick: [TimerSource, number | undefined][] = [
      ['server', layers.server?.[name]],
      ['group', layers.group?.[name]],
      ['global', layers.global?.[name]],
      ['default', DEFAULT_TIMERS[name]],
    ];
    const [source, value] = pick.find(([, v]) => v !== undefined)!;
    out[name] = value!;
    out.source[name] = source;
  }
  return out;
}

export type Transport = 'tcp' | 'udp';
export interface ResolvedCheck {
  type: Exclude<CheckType, 'auto'>;
  layer: 4 | 7;
  /** Why this check, in words (shown in the UI and `check` output). */
  why: string;
}

/**
 * The check a member gets (ADX seed 000): explicit types stand; `auto` picks L7 for well-known
 * TCP ports or a named `protocol`, `layer: 4` forces TCP L4, UDP 53/1812 (or protocol dns/radius)
 * get L7, other UDP ports the L4 UDP check, and no port gives ping (the Px default).
 */
export function resolveCheck(check: Pick<HealthCheck, 'type' | 'protocol' | 'layer'>, port: number | undefined, transport: Transport): ResolvedCheck {
  if (check.type !== 'auto') return { type: check.type, layer: layerOf(check.type), why: `type ${check.type}` };
  if (port === undefined) return { type: 'ping', layer: 4, why: 'no port: ping' };
  if (transport === 'udp') {
    const proto = check.protocol && UDP_PROTOCOLS.has(check.protocol) ? check.protocol : WELL_KNOWN_UDP[port];
    if (proto) return { type: proto, layer: 7, why: check.protocol ? `protocol ${proto}` : `UDP ${port} is ${proto.toUpperCase()}` };
    return { type: 'udp', layer: 4, why: `UDP ${port} is not well known: Layer 4 UDP` };
  }
  if (check.layer === 4) return { type: 'tcp', layer: 4, why: 'layer 4 forced' };
  if (check.protocol && !UDP_PROTOCOLS.has(check.protocol)) {
    return { type: check.protocol, layer: 7, why: `protocol ${check.protocol}` };
  }
  const known = WELL_KNOWN_TCP[port];
  if (known) return { type: known, layer: 7, why: `TCP ${port} is ${known.toUpperCase()}` };
  return { type: 'tcp', layer: 4, why: `TCP ${port} is not well known: Layer 4 TCP` };
}

/** Transport a group's members are reached over: UDP only when every service using it is UDP. */
export function groupTransport(workspace: Pick<Workspace, 'services'>, group: string): Transport {
  const protos = workspace.services.filter((s) => s.group === group).map((s) => s.protocol);
  return protos.length > 0 && protos.every((p) => p === 'udp') ? 'udp' : 'tcp';
}
