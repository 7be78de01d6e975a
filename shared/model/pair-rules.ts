// Rules of HA pairs (docs/ha.md): two known appliances that are mates, VRRP ids 1-255 unique
// per interface, the master's priority above the backup's, every address carried once and
// served by both boxes (the mate must be able to serve what it takes over).
import type { Appliance, Pair, Service, TargetSet } from './schema';
import type { PathSegment } from './problem';
import type { Issue } from './issues';
import { ipfeMate } from './ipfe';
import { driverFacts } from './drivers';
import { familyOf, normalAddress } from './address';
import { memberByRef, planInstances, serves } from './pairs';

export interface PairInputs {
  pairs: (Pair | undefined)[];
  appliances: (Appliance | undefined)[];
  services: (Service | undefined)[];
  targetSets: (TargetSet | undefined)[];
  /** ` (did you mean "x"?)` or '' */
  hint(word: string, names: () => Iterable<string>): string;
}

export function checkPairs(workspace: PairInputs): Issue[] {
  const issues: Issue[] = [];
  const err = (path: PathSegment[], message: string) => issues.push({ severity: 'error', path, message });
  const warn = (path: PathSegment[], message: string) => issues.push({ severity: 'warning', path, message });
  const appliances = new Map<string, Appliance>();
  for (const a of workspace.appliances) if (a && !appliances.has(a.name)) appliances.set(a.name, a);
  const pairNames = new Map<string, number>();
  const inPair = new Map<string, string>();
  const ipfeIn = new Map<string, string>();
  const idsOn = new Map<string, string>();
  const carried = new Map<string, string>();

  workspace.pairs.forEach((pair, p) => {
    if (!pair) return;
    const base: PathSegment[] = ['pairs', p];
    const first = pairNames.get(pair.name);
    if (first !== undefined) err([...base, 'name'], `duplicate pair name "${pair.name}" (first defined at pairs[${first}])`);
    else pairNames.set(pair.name, p);
    if (pair.members.length !== 2) err([...base, 'members'], `a pair has exactly two members (appliances), not ${pair.members.length}`);

    pair.members.forEach((m, j) => {
      const at: PathSegment[] = [...base, 'members', j];
      const a = appliances.get(m.appliance);
      if (!a) err([...at, 'appliance'], `unknown appliance "${m.appliance}"${workspace.hint(m.appliance, () => appliances.keys())}`);
      const other = inPair.get(m.appliance);
      if (other !== undefined) err([...at, 'appliance'], `appliance ${m.appliance} is already a member of pair ${other}: a box is in one pair`);
      else inPair.set(m.appliance, pair.name);
      if (m.ipfe !== undefined) {
        const holder = ipfeIn.get(m.ipfe);
        if (holder !== undefined) err([...at, 'ipfe'], `IPFE ${m.ipfe} is already ${holder}`);
        else ipfeIn.set(m.ipfe, `${m.appliance} in pair ${pair.name}`);
      }
      if (m.keepalived !== undefined) {
        const k = appliances.get(m.keepalived);
        if (!k) err([...at, 'keepalived'], `unknown appliance "${m.keepalived}"${workspace.hint(m.keepalived, () => appliances.keys())}`);
        else if (!driverFacts(k.driver).carriesVrrp) err([...at, 'keepalived'], `appliance ${k.name} has driver ${k.driver}: the VRRP of a pair is rendered by a keepalived appliance`);
        else if (a && k.host !== a.host) warn([...at, 'keepalived'], `appliance ${k.name} is on host ${k.host}, not ${a.host}: VRRP must run on the box that serves the addresses`);
        if (a && driverFacts(a.driver).carriesVrrp) warn([...at, 'keepalived'], 'has no effect: this member is a keepalived appliance and carries the VRRP itself');
      } else if (a && !driverFacts(a.driver).carriesVrrp) {
        warn([...at, 'appliance'], `nothing renders this box's VRRP (driver ${a.driver}): name the keepalived appliance on the same box in keepalived, or the addresses never move`);
      }
      if (pair.unicast && m.address === undefined) err([...at, 'address'], 'required: the pair uses unicast, so each member needs its own address on the interface');
    });

    const [m0, m1] = pair.members;
    if (m0 && m1) {
      if (m0.appliance === m1.appliance) err([...base, 'members', 1, 'appliance'], `the same appliance twice: a pair is two boxes`);
      if ((m0.ipfe === undefined) !== (m1.ipfe === undefined)) {
        err([...base, 'members', m0.ipfe === undefined ? 0 : 1, 'ipfe'], 'required: the other member names its IPFE, so both must');
      } else if (m0.ipfe !== undefined && m1.ipfe !== undefined && ipfeMate(m0.ipfe) !== m1.ipfe) {
        err([...base, 'members', 1, 'ipfe'], `${m1.ipfe} is not the mate of ${m0.ipfe}: ${m0.ipfe}'s mate is ${ipfeMate(m0.ipfe)} (IPFE A1 and A2 are mates, B1 and B2 are mates)`);
      }
      if (m0.address !== undefined && m1.address !== undefined) {
        if (normalAddress(m0.address) === normalAddress(m1.address)) err([...base, 'members', 1, 'address'], `the same address as ${m0.appliance}: each box has its own`);
        else if (familyOf(m0.address) !== familyOf(m1.address)) err([...base, 'members', 1, 'address'], `${m1.address} and ${m0.address} are of different address families: VRRP peers speak one`);
      }
    }
    if (pair.priority.backup >= pair.priority.master) {
      err([...base, 'priority', 'backup'], `must be below priority.master (${pair.priority.master}): the higher priority is what makes the master`);
    }
    if (pair.nopreempt && pair.preemptDelay !== undefined) warn([...base, 'preemptDelay'], 'has no effect with nopreempt: the master never takes its addresses back');
    if (pair.trackScript?.command.includes('"')) err([...base, 'trackScript', 'command'], "keepalived's syntax cannot carry a double quote in a script: put the command in a script file");
    if (pair.instances.length === 0) warn([...base, 'instances'], 'no VRRP instance: the pair moves no address');

    const plan = planInstances(pair, workspace.services, workspace.targetSets);
    pair.instances.forEach((inst, k) => {
      const at: PathSegment[] = [...base, 'instances', k];
      const key = `${pair.interface}/${inst.id}`;
      const holder = idsOn.get(key);
      if (holder !== undefined) err([...at, 'id'], `VRRP id ${inst.id} on ${pair.interface} is already used by ${holder}: ids are unique per interface`);
      else idsOn.set(key, `pair ${pair.name} instances[${k}]`);
      const master = memberByRef(pair, inst.master);
      if (!master) {
        const refs = () => pair.members.flatMap((m) => (m.ipfe ? [m.appliance, m.ipfe] : [m.appliance]));
        err([...at, 'master'], `"${inst.master}" is not a member of pair ${pair.name} (its appliance or IPFE name)${workspace.hint(inst.master, refs)}`);
      }
      inst.services.forEach((name, j) => {
        const svc = workspace.services.find((s) => s?.name === name);
        if (!svc) err([...at, 'services', j], `unknown service "${name}"${workspace.hint(name, () => workspace.services.flatMap((s) => (s ? [s.name] : [])))}`);
        else for (const m of pair.members) {
          if (appliances.has(m.appliance) && !serves(appliances.get(m.appliance), name)) err([...at, 'services', j], `appliance ${m.appliance} does not serve ${name} (its include list leaves it out): the address would move to a box that cannot serve it`);
        }
      });
      const planned = plan[k]!;
      const families = new Set(planned.addresses.map((a) => familyOf(a.address)));
      if (families.size > 1) err([...at, 'id'], `instance ${inst.id} mixes IPv4 and IPv6 addresses (${planned.addresses.map((a) => a.address).join(', ')}): VRRP carries one family per instance, split them`);
      for (const a of planned.addresses) {
        const norm = normalAddress(a.address);
        const other = carried.get(norm);
        if (other !== undefined) err([...at], `${a.address} (${a.from}) is already carried by ${other}: an address moves with one instance`);
        else carried.set(norm, `pair ${pair.name} instance ${inst.id}`);
      }
      if (planned.addresses.length === 0 && master) warn([...at], `instance ${inst.id} carries no address (no service, no target set active on its master, no address)`);
    });
  });

  checkTargetSetMates(workspace, appliances, issues);
  return issues;
}

/** Seed 003: a target set's address is carried by its active IPFE, and the mate takes over. */
function checkTargetSetMates(workspace: PairInputs, appliances: Map<string, Appliance>, issues: Issue[]): void {
  const pairs = workspace.pairs.filter((p): p is Pair => p !== undefined);
  if (!pairs.some((p) => p.members.some((m) => m.ipfe !== undefined))) return;
  workspace.targetSets.forEach((t, i) => {
    if (!t || t.disabled) return;
    const sides: [('activeIpfe' | 'secondaryActiveIpfe'), string | undefined][] = [['activeIpfe', t.activeIpfe]];
    if (t.secondaryAddress !== undefined) sides.push(['secondaryActiveIpfe', t.secondaryActiveIpfe ?? t.activeIpfe]);
    for (const [field, ipfe] of sides) {
      const path: PathSegment[] = ['targetSets', i, t[field] === undefined ? 'activeIpfe' : field];
      const pair = pairs.find((p) => p.members.some((m) => m.ipfe === ipfe));
      if (!pair) {
        issues.push({ severity: 'warning', path, message: `no pair has IPFE ${ipfe}: target set ${t.number}'s address is not carried by any box, and no mate takes over` });
        continue;
      }
      if (!pair.instances.some((inst) => memberByRef(pair, inst.master)?.ipfe === ipfe)) {
        issues.push({ severity: 'error', path, message: `pair ${pair.name} has no VRRP instance whose master is ${ipfe}: add one so target set ${t.number}'s address is carried` });
      }
      for (const m of pair.members) {
        const a = appliances.get(m.appliance);
        if (a && !serves(a, `ts${t.number}`, t.number)) {
          issues.push({ severity: 'error', path, message: `appliance ${m.appliance} (${m.ipfe}) does not serve target set ${t.number} (its include list leaves it out), but ${m.ipfe === ipfe ? 'it is the active IPFE' : 'it is the mate that takes over'}` });
        }
      }
    }
  });
}
