// Faults on the lab's path to a member (docs/cli.md, "Lab faults"). A faulted member gets a path
// of its own: an address in 127.254.0.0/16 listening on the member's ports and relaying to the
// real server through the fault (tcp-path, udp-path). The health checker and the forwarding
// engines dial it through `route`, so checks and forwarded traffic meet the same fault whichever
// data path forwards (the C one included), and the real server is never touched.
import type { EngineEvent, FaultMeasure, LabFault } from '../../../../shared/api/engine';
import type { MemberKey, MemberState } from '../../../../shared/api/types';
import { detectionTimes, detectionWays, type DetectionTimers } from '../../../../shared/model/detection';
import { groupTransport } from '../../../../shared/model/resolve';
import type { Workspace } from '../../../../shared/model/schema';
import { membersOf } from '../../health/members';
import { DEFAULT_PORTS, type ProbeType } from '../../health/probes';
import { TCP_FAULTS, UDP_FAULTS, type Fault } from './line';
import { TcpFaultPath } from './tcp-path';
import { UdpFaultPath } from './udp-path';

export { parseFaultLine, FAULT_USAGE, type Fault, type FaultLine } from './line';

/** Event-loop and scheduling slack allowed beside a bound before a transition is flagged. */
export const BOUND_SLACK_MS = 100;

export interface FaultTarget {
  key: MemberKey;
  /** `web/web1:8081`, `web/web1` (no port of its own), `ts1/127.0.0.5`. */
  name: string;
  address: string;
  ports: number[];
  protocol: 'tcp' | 'udp';
  timers: DetectionTimers;
}

interface Active {
  target: FaultTarget;
  path?: TcpFaultPath | UdpFaultPath;
  fault: Fault;
  /** When the path last started misbehaving / passing again (a flap flips both). */
  brokeAt?: number;
  healedAt?: number;
  measured: Set<string>;
}

export interface LabFaultsDeps {
  emit(e: EngineEvent): void;
  /** The forwarding engines dial the routes as they are now. */
  reroute(): Promise<void>;
  /** The health checker's jitter (its checks come up to this fraction early). */
  jitter: number;
}

export class LabFaults {
  private targets = new Map<MemberKey, FaultTarget>();
  private readonly active = new Map<MemberKey, Active>();
  /** Cleared faults whose recovery is still to be measured. */
  private readonly recovering = new Map<MemberKey, Active>();
  private readonly used = new Set<string>();

  constructor(private readonly deps: LabFaultsDeps) {}

  /** Where the lab dials a member instead of its address (undefined: the member itself). */
  readonly route = (key: MemberKey): string | undefined => this.active.get(key)?.path?.address;

  /** The members of the running workspace (each apply); a faulted member that went away is cleared. */
  async setWorkspace(workspace: Workspace): Promise<void> {
    this.targets = faultTargets(workspace);
    for (const [key, a] of this.active) {
      const t = this.targets.get(key);
      if (!t || t.address !== a.target.address || t.ports.join() !== a.target.ports.join()) await this.clearOne(a, 'the member changed in the workspace');
    }
  }

  /** The members a name means: one exactly, or every port of `group/server`. */
  resolve(member: string): FaultTarget[] {
    const all = [...this.targets.values()];
    const exact = all.filter((t) => t.name === member || t.key === member);
    if (exact.length > 0) return exact;
    const ports = all.filter((t) => t.name.startsWith(`${member}:`));
    if (ports.length > 0) return ports;
    const some = all.slice(0, 6).map((t) => t.name).join(', ');
    throw new Error(`no member "${member}" in the running lab${all.length ? ` (members: ${some}${all.length > 6 ? ', …' : ''})` : ''}`);
  }

  async apply(member: string, fault: Fault): Promise<void> {
    const targets = this.resolve(member);
    for (const t of targets) {
      const allowed = t.protocol === 'udp' ? UDP_FAULTS : TCP_FAULTS;
      if (!allowed.includes(fault.kind)) throw new Error(`${t.name} is a ${t.protocol.toUpperCase()} member: its faults are ${allowed.join(', ')}`);
      if (t.ports.length === 0) throw new Error(`${t.name} has no port (ping check, no service): the lab's path to it carries nothing to fault`);
    }
    for (const t of targets) await this.applyOne(t, fault);
  }

  async clear(member: string): Promise<void> {
    const list = member === 'all' ? [...this.active.values()] : this.resolve(member).map((t) => this.active.get(t.key)).filter((a): a is Active => a !== undefined);
    if (member !== 'all' && list.length === 0) throw new Error(`${member} has no fault to clear`);
    for (const a of list) await this.clearOne(a);
  }

  /** Faults in force, by member key (shown on the members). */
  list(): LabFault[] {
    return [...this.active.values()].map((a) => ({ key: a.target.key, member: a.target.name, fault: a.fault.kind, ...(a.fault.value ? { value: a.fault.value } : {}) }));
  }

  /**
   * A transition of a faulted (or just cleared) member: how long after the fault (or the repair)
   * it came, beside the detection-time calculator's bounds for the member's timers.
   */
  measure(key: MemberKey, from: MemberState, to: MemberState, at: number): FaultMeasure | undefined {
    const a = this.active.get(key) ?? this.recovering.get(key);
    if (!a || !(from in RANK) || !(to in RANK)) return undefined;
    const worse = RANK[to]! < RANK[from]!;
    const since = worse ? a.brokeAt : a.healedAt;
    if (since === undefined || at < since) return undefined;
    const id = `${worse}:${since}`;
    if (a.measured.has(id)) return undefined;
    a.measured.add(id);
    if (!worse && this.recovering.get(key) === a) this.recovering.delete(key);
    const bound = boundFor(from, to, a.target.timers, this.deps.jitter);
    const detectedMs = at - since;
    return { fault: a.fault.kind, detectedMs, bound, withinBound: detectedMs >= bound[0] - BOUND_SLACK_MS && detectedMs <= bound[1] + BOUND_SLACK_MS };
  }

  /** The lab stops: every path closes, its connections with it. */
  async stop(): Promise<void> {
    const all = [...this.active.values()];
    this.active.clear();
    this.recovering.clear();
    for (const a of all) await a.path?.close(true);
  }

  private async applyOne(t: FaultTarget, fault: Fault): Promise<void> {
    let a = this.active.get(t.key);
    const fresh = !a;
    if (!a) {
      a = { target: t, fault, measured: new Set() };
      const path = await this.openPath(t, a);
      a.path = path;
    }
    a.fault = fault;
    await a.path!.set(fault);
    if (fresh) {
      this.active.set(t.key, a);
      this.recovering.delete(t.key);
      await this.deps.reroute();
      // From here on the checks and the engines dial the path.
      a.brokeAt = Date.now();
    }
    this.deps.emit({ ts: new Date().toISOString(), type: 'fault', member: t.name, fault: fault.kind, ...(fault.value ? { value: fault.value } : {}), via: a.path!.address });
  }

  private async clearOne(a: Active, why?: string): Promise<void> {
    this.active.delete(a.target.key);
    await this.deps.reroute();
    await a.path?.close();
    if (a.path) this.used.delete(a.path.address);
    a.healedAt = Date.now();
    this.recovering.set(a.target.key, a);
    this.deps.emit({ ts: new Date().toISOString(), type: 'clear', member: a.target.name, fault: a.fault.kind, ...(why ? { reason: why } : {}) });
  }

  /** A path on a free address of 127.254.0.0/16 (an address taken by anyone else is skipped). */
  private async openPath(t: FaultTarget, a: Active): Promise<TcpFaultPath | UdpFaultPath> {
    const phase = (broken: boolean) => {
      if (broken) a.brokeAt = Date.now();
      else a.healedAt = Date.now();
    };
    let last: Error | undefined;
    for (let i = 0; i < 20; i++) {
      const address = `127.254.${1 + Math.floor(Math.random() * 254)}.${1 + Math.floor(Math.random() * 254)}`;
      if (this.used.has(address)) continue;
      const path = t.protocol === 'udp' ? new UdpFaultPath(address, t.address, t.ports, phase) : new TcpFaultPath(address, t.address, t.ports, phase);
      try {
        await path.open();
        this.used.add(address);
        return path;
      } catch (err) {
        last = err as Error;
        await path.close();
      }
    }
    throw new Error(`no address for the lab's path to ${t.name}: ${last?.message ?? 'all taken'}`);
  }
}

const RANK: Partial<Record<MemberState, number>> = { available: 3, degraded: 2, unavailable: 1 };

/** The bounds, in ms, for one transition (docs/health.md, "Detection and recovery time"). */
export function boundFor(from: MemberState, to: MemberState, timers: DetectionTimers, jitter: number): [number, number] {
  // One check decides: a slower (or faster) answer moves available <-> degraded at once.
  const oneCheck = detectionTimes({ ...timers, failAfter: 1 }, jitter).failure;
  if (to === 'unavailable') {
    const ways = detectionWays(timers, jitter);
    return [Math.min(ways.active.failure.bestMs, ways.passive.bestMs), ways.active.failure.worstMs];
  }
  if (from === 'unavailable') {
    const r = detectionTimes(timers, jitter).recovery;
    return [r.bestMs, r.worstMs];
  }
  return [oneCheck.bestMs, oneCheck.worstMs];
}

/** Every member the lab can fault: its name, real address, the ports the lab dials it on, its timers. */
export function faultTargets(workspace: Workspace): Map<MemberKey, FaultTarget> {
  const out = new Map<MemberKey, FaultTarget>();
  for (const spec of membersOf(workspace)) {
    if (spec.problem || !spec.address) continue;
    const ports = new Set<number>();
    const checkPort = spec.port ?? DEFAULT_PORTS[spec.check.type as ProbeType];
    if (checkPort !== undefined && spec.check.type !== 'ping' && spec.check.type !== 'none') ports.add(checkPort);
    if (spec.group !== undefined) {
      for (const svc of workspace.services) if (svc.group === spec.group && svc.enabled) ports.add(spec.port ?? svc.port);
    } else {
      for (const p of workspace.targetSets.find((t) => t.number === spec.targetSet)?.ports ?? []) ports.add(p);
    }
    const name = spec.group !== undefined ? `${spec.group}/${spec.server}${spec.port !== undefined ? `:${spec.port}` : ''}` : `ts${spec.targetSet}/${spec.address}`;
    const { interval, retryInterval, failAfter, restoreAfter, timeout } = spec.timers;
    out.set(spec.key, {
      key: spec.key,
      name,
      address: spec.address,
      ports: [...ports].sort((x, y) => x - y),
      protocol: spec.group !== undefined ? groupTransport(workspace, spec.group) : 'tcp',
      timers: { interval, retryInterval, failAfter, restoreAfter, timeout },
    });
  }
  return out;
}
