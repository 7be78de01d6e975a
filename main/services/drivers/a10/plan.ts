// From an A10's running config to the workspace's owned objects, as ACOS commands: create new
// slb servers, change only the attributes that differ, add and remove service-group members,
// create service groups and virtual ports for new services, and remove (after `no member` in
// every service group) the servers the workspace no longer has. Each step carries its inverse,
// computed from the before-state, so a rollback puts back exactly what was there.
import type { Appliance, Group, Server, Service, Workspace } from '../../../../shared/model/schema';
import { isIpAddress, sameAddress } from '../../../../shared/model/address';
import { legalName } from '../../import/names';
import { boxObjectFor } from '../box-object';
import { selectIncluded } from '../include';
import { dedupe, type CommandPlan, type CommandStep, type DriverProblem, type HeldMember } from '../types';
import { applyA10Commands } from './edit';
import { newMonitor, planMonitor, type MonitorPlan } from './monitor';
import { DEFAULT_METHOD, methodAlgorithm, serverWeight } from './import';
import { parseA10, quoteName, type A10Config, type A10Group, type A10Line, type A10Member, type A10Server, type A10Virtual } from './parse';

const METHOD_OF: Partial<Record<Service['algorithm'], string>> = {
  'round-robin': 'round-robin',
  'least-connections': 'least-connection',
  'weighted-round-robin': 'weighted-rr',
  'source-hash': 'src-ip-hash',
};

interface WantServer { name: string; server: Server; weight: number; ports: Set<string>; box?: A10Server }
interface WantGroup { name: string; protocol: 'tcp' | 'udp'; method: string; members: { server: string; port: number }[]; box?: A10Group; group: Group; check?: MonitorPlan }
interface WantVirtual { name: string; address: string; box?: A10Virtual; ports: { port: number; proto: string; group: string }[] }

const q = quoteName;
const portLine = (p: string) => `port ${p}`;

/** The lines that re-enter a block as it was: each sub-mode line followed by its lines and `exit`. */
function reenter(head: string, body: A10Line[], sub: (w: string[]) => boolean): string[] {
  const out = [head];
  const base = body[0]?.indent ?? 0;
  let open = false;
  for (const l of body) {
    if (l.indent <= base && open) { out.push('exit'); open = false; }
    out.push(l.text.trim());
    if (l.indent <= base && sub(l.words)) open = true;
  }
  if (open) out.push('exit');
  return [...out, 'exit'];
}

const isPortHead = (w: string[]) => w[0] === 'port' && /^\d+$/.test(w[1] ?? '') && w.length === 3;
const memberText = (cfg: A10Config, s: string, p: number) => (cfg.acos === 2 ? `member ${q(s)}:${p}` : `member ${q(s)} ${p}`);

export function planA10(workspace: Workspace, appliance: Appliance, running: string, held: HeldMember[] = []): CommandPlan {
  const cfg = parseA10(running);
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const servers = new Map<string, WantServer>();
  const groups = new Map<string, WantGroup>();
  const virtuals = new Map<string, WantVirtual>();
  const serverFor = (s: Server) => boxObjectFor(cfg.servers, s, (r) => r.name, (r) => r.address);

  for (const service of included.services) {
    const subject = `service ${service.name}`;
    const group = workspace.groups.find((g) => g.name === service.group);
    if (!group) continue;
    const method = METHOD_OF[service.algorithm];
    if (!method) { errors.push({ subject, message: `algorithm ${service.algorithm} has no ACOS method (round-robin, least-connections, weighted-round-robin, source-hash do)` }); continue; }
    const boxV = cfg.virtuals.find((v) => sameAddress(v.address, service.address));
    const key = boxV?.name ?? [...virtuals.values()].find((x) => sameAddress(x.address, service.address))?.name ?? service.name;
    const v = virtuals.get(key) ?? { name: key, address: boxV?.address ?? service.address, box: boxV, ports: [] };
    virtuals.set(key, v);
    const boxPort = boxV?.ports.find((p) => p.port === service.port && p.serviceGroup);
    const boxG = boxPort ? cfg.groups.find((g) => g.name === boxPort.serviceGroup) : undefined;
    const gname = boxG?.name ?? group.name;
    const keepMethod = boxG && methodAlgorithm(boxG.method?.value).algorithm === service.algorithm;
    const want: WantGroup = groups.get(gname) ?? { name: gname, protocol: service.protocol, method: keepMethod ? (boxG.method?.value ?? DEFAULT_METHOD) : method, members: [], box: boxG, group };
    groups.set(gname, want);
    v.ports.push({ port: service.port, proto: boxPort?.proto ?? service.protocol, group: gname });
    for (const m of group.members) {
      const server = workspace.servers.find((s) => s.name === m.server);
      if (!server) continue;
      const box = serverFor(server);
      if (box && !sameAddress(box.address, server.address)) {
        errors.push({ subject: `server ${server.name}`, message: `slb server ${box.name} is ${box.address} on the box and ${server.address} in the workspace: give the server a new name to create one` });
        continue;
      }
      const name = box?.name ?? server.name;
      const r = servers.get(name) ?? { name, server, weight: m.weight, ports: new Set<string>(), box };
      if (r.weight !== m.weight) errors.push({ subject: `server ${server.name}`, message: `has weight ${r.weight} and ${m.weight} in different groups: an A10 slb server has one weight` });
      servers.set(name, r);
      const port = m.port ?? service.port;
      // A member the box's group already has stays as it is, server port or not.
      if (!boxG?.members.some((x) => x.server === name && x.port === port)) r.ports.add(`${port} ${service.protocol}`);
      if (!want.members.some((x) => x.server === name && x.port === port)) want.members.push({ server: name, port });
    }
    if (!service.enabled) warnings.push({ subject, message: 'disabled in the workspace: the A10 virtual port stays as it is (lbdesk does not disable it)' });
  }

  const steps: CommandStep[] = [];
  // `lbdesk maint` disables the whole slb server: a push does not enable it again.
  const inMaint = new Set(held.filter((h) => h.admin === 'maint').map((h) => h.server));
  for (const r of servers.values()) {
    const s = r.box ? changeServer(r, r.box, inMaint.has(r.server.name)) : createServer(r);
    if (s) steps.push(s);
  }
  const owned = new Set([...groups.values()].filter((g) => g.box).map((g) => g.name));
  const monitorNames = new Set<string>();
  for (const g of groups.values()) {
    if (g.box) g.check = planMonitor(cfg, g.box, g.group, owned, monitorNames, warnings);
    steps.push(...(g.check?.before ?? []));
  }
  for (const g of groups.values()) {
    const s = g.box ? changeGroup(cfg, g, g.box) : createGroup(cfg, g, monitorNames, steps);
    if (s) steps.push(s);
  }
  for (const v of virtuals.values()) {
    const s = changeVirtual(v);
    if (s) steps.push(s);
  }
  for (const g of groups.values()) steps.push(...(g.check?.after ?? []));
  const gone = appliance.manage === 'sections' && appliance.include === undefined ? removedServices(cfg, virtuals, groups, workspace) : { steps: [], groups: new Set<string>() };
  steps.push(...gone.steps);
  // A server of a removed service group that the workspace still has stays (in no group).
  const mine = (s: A10Server) => cfg.groups.some((g) => gone.groups.has(g.name) && g.members.some((m) => m.server === s.name)) && workspace.servers.some((w) => serverFor(w) === s);
  for (const r of removedServers(cfg, servers, groups, gone.groups)) if (!mine(r)) steps.push(removeServer(r));
  let after = running;
  if (steps.length) {
    try { after = applyA10Commands(running, steps.flatMap((s) => s.commands)); } catch (e) { errors.push({ subject: `appliance ${appliance.name}`, message: (e as Error).message }); }
  }
  return { steps, after, errors: dedupe(errors), warnings: dedupe(warnings) };
}

function createServer(r: WantServer): CommandStep {
  const body: string[] = [];
  if (r.weight !== 100) body.push(`weight ${r.weight}`);
  if (!r.server.enabled) body.push('disable');
  for (const p of r.ports) body.push(portLine(p), 'exit');
  return { what: `create slb server ${r.name}`, commands: [`slb server ${q(r.name)} ${r.server.address}`, ...body, 'exit'], inverse: [`no slb server ${q(r.name)}`] };
}

function changeServer(r: WantServer, box: A10Server, maint: boolean): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  if (box.disabled === r.server.enabled && !(maint && box.disabled)) {
    go.push(r.server.enabled ? 'enable' : 'disable');
    back.push(r.server.enabled ? 'disable' : 'enable');
    what.push(r.server.enabled ? 'enabled' : 'disabled');
  }
  const was = serverWeight(box);
  if (was !== r.weight) {
    go.push(`weight ${r.weight}`);
    back.push(box.weight !== undefined ? `weight ${box.weight}` : 'no weight');
    what.push(`weight ${was} -> ${r.weight}`);
  }
  for (const p of r.ports) {
    if (box.ports.some((x) => `${x.port} ${x.proto}` === p)) continue;
    go.push(portLine(p), 'exit');
    back.unshift(`no port ${p}`);
    what.push(`port ${p} added`);
  }
  if (!go.length) return undefined;
  // The address the box has now: a server entered again with another address moved to it.
  const head = `slb server ${q(box.name)} ${box.address}`;
  return { what: `slb server ${box.name}: ${what.join(', ')}`, commands: [head, ...go, 'exit'], inverse: [head, ...back, 'exit'] };
}

/** A member as it was: its line and (4.x) nested lines, closed by `exit`. */
function memberBack(m: A10Member): string[] {
  return m.form === 2 ? [m.line.text.trim()] : [m.line.text.trim(), ...m.lines.slice(1).map((l) => l.text.trim()), 'exit'];
}

function memberIn(cfg: A10Config, s: string, p: number): string[] {
  return cfg.acos === 2 ? [memberText(cfg, s, p)] : [memberText(cfg, s, p), 'exit'];
}

function createGroup(cfg: A10Config, g: WantGroup, monitors: Set<string>, steps: CommandStep[]): CommandStep {
  const check = g.group.healthCheck.type === 'none' ? ['health-check-disable'] : [];
  const mon = newMonitor(cfg, g.name, g.group, monitors);
  if (mon) { steps.push(mon.step); check.push(`health-check ${q(mon.name)}`); }
  const body = [...(g.method !== DEFAULT_METHOD ? [`method ${g.method}`] : []), ...check, ...g.members.flatMap((m) => memberIn(cfg, m.server, m.port))];
  return { what: `create slb service-group ${g.name}`, commands: [`slb service-group ${q(g.name)} ${g.protocol}`, ...body, 'exit'], inverse: [`no slb service-group ${q(g.name)}`] };
}

function changeGroup(cfg: A10Config, g: WantGroup, box: A10Group): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  const word = box.method?.word ?? 'method';
  if (g.method !== (box.method?.value ?? DEFAULT_METHOD)) {
    go.push(`${word} ${g.method}`);
    back.push(box.method ? `${word} ${box.method.value}` : `no ${word}`);
    what.push(`${word} ${box.method?.value ?? 'default'} -> ${g.method}`);
  }
  // A member lbdesk could not import (no such slb server) is not the workspace's: never removed.
  const gone = box.members.filter((m) => cfg.servers.some((s) => s.name === m.server) && !g.members.some((w) => w.server === m.server && w.port === m.port));
  const added = g.members.filter((w) => !box.members.some((m) => m.server === w.server && m.port === w.port));
  for (const m of gone) { go.push(`no ${memberText(cfg, m.server, m.port)}`); back.push(...memberBack(m)); what.push(`member ${m.server} ${m.port} removed`); }
  for (const m of added) { go.push(...memberIn(cfg, m.server, m.port)); back.unshift(`no ${memberText(cfg, m.server, m.port)}`); what.push(`member ${m.server} ${m.port} added`); }
  // The health-check line goes before the member sub-modes are entered: it is a group setting.
  if (g.check) { go.unshift(...g.check.group.go); back.push(...g.check.group.back); what.push(...g.check.group.what); }
  if (!go.length) return undefined;
  const head = box.head.text.trim();
  return { what: `slb service-group ${box.name}: ${what.join(', ')}`, commands: [head, ...go, 'exit'], inverse: [head, ...back, 'exit'] };
}

function changeVirtual(v: WantVirtual): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  for (const p of v.ports) {
    const have = v.box?.ports.find((x) => x.port === p.port && x.serviceGroup);
    if (have) continue;
    go.push(`port ${p.port} ${p.proto}`, `service-group ${q(p.group)}`, 'exit');
    back.unshift(`no port ${p.port} ${p.proto}`);
    what.push(`port ${p.port} ${p.proto} -> ${p.group}`);
  }
  if (!go.length) return undefined;
  if (!v.box) return { what: `create slb virtual-server ${v.name}`, commands: [`slb virtual-server ${q(v.name)} ${v.address}`, ...go, 'exit'], inverse: [`no slb virtual-server ${q(v.name)}`] };
  const head = v.box.head.text.trim();
  return { what: `slb virtual-server ${v.name}: ${what.join(', ')}`, commands: [head, ...go, 'exit'], inverse: [head, ...back, 'exit'] };
}

/**
 * Servers the workspace removed: on the box, members only of service groups the workspace owns,
 * and no longer wanted. A server in another group, or in none, is not lbdesk's and is never named.
 */
function removedServers(cfg: A10Config, servers: Map<string, WantServer>, groups: Map<string, WantGroup>, removed: Set<string>): A10Server[] {
  return cfg.servers.filter((s) => {
    if (servers.has(s.name)) return false;
    const inGroups = cfg.groups.filter((g) => g.members.some((m) => m.server === s.name));
    return inGroups.length > 0 && inGroups.every((g) => groups.get(g.name)?.box === g || removed.has(g.name));
  });
}

function removeServer(s: A10Server): CommandStep {
  // The inverse re-enters every line the block had, in its order: what lbdesk models and what it does not.
  return { what: `remove slb server ${s.name}`, commands: [`no slb server ${q(s.name)}`], inverse: reenter(`slb server ${q(s.name)} ${s.address}`, s.body, isPortHead) };
}

const isVportHead = (w: string[]) => isPortHead(w);
const isMemberHead = (w: string[]) => w[0] === 'member' && w.length === 3 && /^\d+$/.test(w[2] ?? '');

/**
 * Services the workspace removed (`manage: sections`, no include list): a virtual port the
 * importer makes a service of (an IP, a port, a service group in the config) that no workspace
 * service stands for any more. The whole virtual server goes when none of its ports stays;
 * else only those ports. Then a service group no virtual port uses any more and the workspace
 * has no group of, and its monitor when nothing else names it. Inverses re-enter every line.
 */
function removedServices(cfg: A10Config, virtuals: Map<string, WantVirtual>, groups: Map<string, WantGroup>, workspace: Workspace): { steps: CommandStep[]; groups: Set<string> } {
  const steps: CommandStep[] = [];
  const freed = new Set<string>();
  const dropped = new Set<string>();
  for (const v of cfg.virtuals) {
    if (!isIpAddress(v.address)) continue;
    const kept = virtuals.get(v.name);
    const gone = v.ports.filter((p) => p.port >= 1 && p.range === undefined && p.serviceGroup && cfg.groups.some((g) => g.name === p.serviceGroup) && !kept?.ports.some((x) => x.port === p.port));
    if (!gone.length) continue;
    for (const p of gone) freed.add(p.serviceGroup!);
    if (gone.length === v.ports.length && !kept) {
      steps.push({ what: `remove slb virtual-server ${v.name}`, commands: [`no slb virtual-server ${q(v.name)}`], inverse: reenter(`slb virtual-server ${q(v.name)} ${v.address}`, v.body, isVportHead) });
      for (const p of v.ports) dropped.add(`${v.name} ${p.port}`);
      continue;
    }
    const head = v.head.text.trim();
    const back = gone.flatMap((p) => p.entries.flatMap((e) => [...e.map((l) => l.text.trim()), 'exit']));
    steps.push({ what: `slb virtual-server ${v.name}: ${gone.map((p) => `port ${p.port} ${p.proto} removed`).join(', ')}`, commands: [head, ...gone.map((p) => `no port ${p.port} ${p.proto}`), 'exit'], inverse: [head, ...back, 'exit'] });
    for (const p of gone) dropped.add(`${v.name} ${p.port}`);
  }
  const removed = new Set<string>();
  for (const name of freed) {
    const g = cfg.groups.find((x) => x.name === name)!;
    const still = cfg.virtuals.some((v) => v.ports.some((p) => p.serviceGroup === name && !dropped.has(`${v.name} ${p.port}`)));
    if (still || groups.has(name) || workspace.groups.some((w) => w.name === name || w.name === legalName(name))) continue;
    steps.push({ what: `remove slb service-group ${name}`, commands: [`no slb service-group ${q(name)}`], inverse: reenter(g.head.text.trim(), g.body, isMemberHead) });
    removed.add(name);
    const m = g.healthCheck ? cfg.monitors.find((x) => x.name === g.healthCheck) : undefined;
    // Removed only when this group's line is the one line on the box that names it.
    const users = m ? cfg.lines.filter((l) => { const w = l.trim().split(/\s+/); return w[0] === 'health-check' && w[1] === m.name; }).length : 0;
    if (m && users === 1) {
      steps.push({ what: `remove health monitor ${m.name}`, commands: [`no health monitor ${q(m.name)}`], inverse: [m.head.text.trim(), ...m.body.map((l) => l.text.trim()), 'exit'] });
    }
  }
  return { steps, groups: removed };
}
