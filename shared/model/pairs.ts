// HA pairs (docs/ha.md): which addresses each VRRP instance of a pair moves, and who is master.
// Target-set addresses follow their activeIpfe / secondaryActiveIpfe (seed 003): the address is
// carried by the instance whose master is that IPFE, and its mate takes over.
import type { Appliance, IpfeName, Pair, PairMember, Service, TargetSet, VrrpInstance } from './schema';
import { parseTargetSetIncludeName } from './ipfe';

export interface PlannedAddress {
  address: string;
  /** What it comes from, in words: `service web-vip`, `target set 1`, `target set 1 (secondary)`. */
  from: string;
}

export interface PlannedInstance {
  id: number;
  /** The appliance that carries the addresses while it is up, and its mate. */
  master: string;
  backup: string;
  addresses: PlannedAddress[];
}

export interface PairPlan {
  pair: Pair;
  instances: PlannedInstance[];
}

/** The member an instance's `master` names: by appliance name or by IPFE name. */
export function memberByRef(pair: Pair, ref: string): PairMember | undefined {
  return pair.members.find((m) => m.appliance === ref) ?? pair.members.find((m) => m.ipfe === ref);
}

/** Whether the appliance serves a service or target set by name (no include list: everything). */
export function serves(a: Appliance | undefined, name: string, targetSet?: number): boolean {
  if (!a?.include) return true;
  return a.include.some((e) => e === name || (targetSet !== undefined && parseTargetSetIncludeName(e) === targetSet));
}

/** The target-set addresses that IPFE is active for (enabled sets only). */
export function ipfeAddresses(targetSets: readonly (TargetSet | undefined)[], ipfe: IpfeName): PlannedAddress[] {
  const out: PlannedAddress[] = [];
  for (const t of targetSets) {
    if (!t || t.disabled) continue;
    if (t.activeIpfe === ipfe) out.push({ address: t.address, from: `target set ${t.number}` });
    if (t.secondaryAddress !== undefined && (t.secondaryActiveIpfe ?? t.activeIpfe) === ipfe) {
      out.push({ address: t.secondaryAddress, from: `target set ${t.number} (secondary)` });
    }
  }
  return out;
}

/** Each instance with its addresses: services named, target sets by IPFE (to the first instance of that master), extra addresses. */
export function planInstances(pair: Pair, services: readonly (Service | undefined)[], targetSets: readonly (TargetSet | undefined)[]): PlannedInstance[] {
  const byName = new Map<string, Service>();
  for (const s of services) if (s && !byName.has(s.name)) byName.set(s.name, s);
  const ipfeTaken = new Set<string>();
  return pair.instances.map((inst: VrrpInstance) => {
    const master = memberByRef(pair, inst.master);
    const backup = pair.members.find((m) => m !== master);
    const addresses: PlannedAddress[] = [];
    const add = (a: PlannedAddress) => {
      if (!addresses.some((x) => x.address === a.address)) addresses.push(a);
    };
    for (const name of inst.services) {
      const s = byName.get(name);
      if (s) add({ address: s.address, from: `service ${s.name}` });
    }
    if (master?.ipfe && !ipfeTaken.has(master.ipfe)) {
      ipfeTaken.add(master.ipfe);
      ipfeAddresses(targetSets, master.ipfe).forEach(add);
    }
    for (const a of inst.addresses) add({ address: a, from: 'address' });
    return { id: inst.id, master: master?.appliance ?? inst.master, backup: backup?.appliance ?? '', addresses };
  });
}

/** The pair an appliance is a member of, or carries VRRP for (as a member's keepalived). */
export function pairOf(pairs: readonly Pair[], appliance: string): { pair: Pair; member: PairMember } | undefined {
  for (const pair of pairs) {
    const member = pair.members.find((m) => m.appliance === appliance || m.keepalived === appliance);
    if (member) return { pair, member };
  }
  return undefined;
}

/**
 * The box's own address where its pair carries `address` (a member with `address` set): an
 * HAProxy box binds it beside the virtual address, so each box can be checked directly.
 */
export function ownAddress(workspace: { pairs: readonly Pair[]; services: readonly Service[]; targetSets: readonly TargetSet[] }, appliance: string, address: string): string | undefined {
  const found = pairOf(workspace.pairs, appliance);
  if (!found?.member.address || found.member.appliance !== appliance) return undefined;
  const carried = planInstances(found.pair, workspace.services, workspace.targetSets).some((i) => i.addresses.some((a) => a.address === address));
  return carried ? found.member.address : undefined;
}
