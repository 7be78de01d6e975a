// From a BIG-IP's running config to the workspace's owned objects, as tmsh commands: create new
// nodes, change pools by their members (add, modify only the changed ratio, delete) and their
// built-in monitor, create pools and virtual servers the box lacks, delete the virtual servers
// (then their pools) of services the workspace removed, and delete (after their pool members
// are gone) the nodes the workspace no longer has. Each step carries its inverse from the
// before-state.
import type { Appliance, CheckType, Group, Server, Service, Workspace } from '../../../../shared/model/schema';
import { isIpAddress, sameAddress } from '../../../../shared/model/address';
import { legalName } from '../../import/names';
import { boxObjectFor } from '../box-object';
import { selectIncluded } from '../include';
import type { CommandPlan, CommandStep, DriverProblem } from '../types';
import { applyF5Commands } from './edit';
import { checkOf, localName, modeAlgorithm } from './import';
import { fullName, parseF5, quoteF5, splitF5Words, unquote, type F5Config, type F5Entry, type F5Member, type F5Node, type F5Pool, type F5Virtual } from './parse';

const MODE_OF: Partial<Record<Service['algorithm'], string>> = {
  'round-robin': 'round-robin',
  'weighted-round-robin': 'ratio-member',
  'least-connections': 'least-connections-member',
};
/** Each check as the built-in monitor a pool gets; undefined: no monitor. A complete Record, so a
 * new check type does not compile until the F5 driver says what it does with it. */
const MONITOR_OF: Record<CheckType, string | undefined> = {
  http: '/Common/http', https: '/Common/https', tcp: '/Common/tcp', udp: '/Common/udp', ping: '/Common/gateway_icmp', auto: '/Common/tcp',
  none: undefined, ssl: undefined, ftp: undefined, smtp: undefined, pop3: undefined, imap4: undefined, nntp: undefined,
  telnet: undefined, ldap: undefined, dns: undefined, radius: undefined, rtsp: undefined, mms: undefined, pnm: undefined,
};

interface WantNode { name: string; server: Server; box?: F5Node }
interface WantMember { name: string; node: string; ratio: number; address: string }
interface WantPool { name: string; group: Group; mode: string; members: WantMember[]; box?: F5Pool; service: Service }

/** An entry as one command-line argument: `address 192.0.2.1`, `metadata { source { value x } }`. */
export function oneLine(e: F5Entry): string {
  return [...e.words, ...(e.children ? [`{ ${e.children.map(oneLine).join(' ')}${e.children.length ? ' ' : ''}}`.replace('{  }', '{ }')] : [])].join(' ');
}

const destination = (address: string, port: number) => `/Common/${address}${address.includes(':') ? '.' : ':'}${port}`;

export function planF5(workspace: Workspace, appliance: Appliance, running: string): CommandPlan {
  const cfg = parseF5(running);
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const nodes = new Map<string, WantNode>();
  const pools = new Map<string, WantPool>();
  const virtuals: { service: Service; pool: string }[] = [];
  const matched = new Set<string>();   // box virtuals a workspace service stands for
  const modelled = (n: F5Node) => n.address !== undefined;
  // New objects named as the box names its own: full paths (bigip.conf) or relative (`tmsh list` in /Common).
  const relative = cfg.nodes.length > 0 && cfg.nodes.every((n) => !n.obj.name.startsWith('/'));
  const newName = (name: string) => (relative ? name : `/Common/${name}`);
  const modelledNodes = cfg.nodes.filter(modelled);
  const nodeFor = (s: Server) => boxObjectFor(modelledNodes, s, (n) => localName(n.obj.name), (n) => n.address!);

  for (const service of included.services) {
    const subject = `service ${service.name}`;
    const group = workspace.groups.find((g) => g.name === service.group);
    if (!group) continue;
    const boxV = cfg.virtuals.find((v) => v.address && sameAddress(v.address, service.address) && Number(v.port) === service.port);
    const boxP = cfg.pools.find((p) => fullName(p.obj.name) === fullName(boxV?.pool ?? newName(group.name)));
    const poolName = boxP?.obj.name ?? boxV?.pool ?? newName(group.name);
    const want = MODE_OF[service.algorithm];
    const mode = boxP && modeAlgorithm(boxP.mode).algorithm === service.algorithm ? boxP.mode ?? 'round-robin' : want;
    if (!mode) { errors.push({ subject, message: `algorithm ${service.algorithm} has no BIG-IP load-balancing mode lbdesk sets (round-robin, weighted-round-robin, least-connections do)` }); continue; }
    if (!service.enabled) warnings.push({ subject, message: 'disabled in the workspace: the virtual server stays as it is (lbdesk does not disable it)' });
    if (boxV) matched.add(boxV.obj.name);
    if (!boxV) virtuals.push({ service, pool: poolName });
    else if ((service.persistence.type === 'client-ip') !== boxV.persist.some((x) => /source[-_]addr/.test(x))) {
      warnings.push({ subject, message: `persistence ${service.persistence.type} differs from virtual server ${boxV.obj.name}'s (${boxV.persist.join(', ') || 'none'}): lbdesk does not change a virtual server's persistence profiles` });
    }
    const have = pools.get(fullName(poolName));
    if (have) {
      if (have.group.name !== group.name) errors.push({ subject, message: `pool ${poolName} is also service ${have.service.name}'s, with group ${have.group.name}: one pool has one member list` });
      continue;
    }
    const p: WantPool = { name: poolName, group, mode, members: [], box: boxP, service };
    pools.set(fullName(poolName), p);
    for (const m of group.members) {
      const server = workspace.servers.find((s) => s.name === m.server);
      if (!server) continue;
      const box = nodeFor(server);
      if (box && !sameAddress(box.address!, server.address)) {
        errors.push({ subject: `server ${server.name}`, message: `node ${box.obj.name} is ${box.address} on the box and ${server.address} in the workspace: a node's address cannot be changed; give the server a new name to create one` });
        continue;
      }
      const node = box?.obj.name ?? newName(server.name);
      nodes.set(node, nodes.get(node) ?? { name: node, server, box });
      const port = m.port ?? service.port;
      p.members.push({ name: `${node}:${port}`, node, ratio: m.weight, address: box?.address ?? server.address });
    }
  }

  const steps: CommandStep[] = [];
  for (const n of nodes.values()) {
    if (!n.box) {
      steps.push({
        what: `create node ${n.name}`,
        commands: [`create ltm node ${quoteF5(n.name)} address ${n.server.address}${n.server.description ? ` description ${quoteF5(n.server.description)}` : ''}${n.server.enabled ? '' : ' session user-disabled'}`],
        inverse: [`delete ltm node ${quoteF5(n.name)}`],
      });
    } else if (n.box.disabled === n.server.enabled) {
      const to = n.server.enabled ? 'user-enabled' : 'user-disabled';
      steps.push({ what: `node ${n.name}: ${n.server.enabled ? 'enabled' : 'disabled'}`, commands: [`modify ltm node ${quoteF5(n.name)} session ${to}`], inverse: [`modify ltm node ${quoteF5(n.name)} session ${n.server.enabled ? 'user-disabled' : 'user-enabled'}`] });
    }
  }
  const imported = (m: F5Member) => cfg.nodes.some((n) => fullName(n.obj.name) === fullName(m.node) && modelled(n));
  for (const p of pools.values()) {
    const s = p.box ? changePool(p, p.box, imported, cfg, warnings) : createPool(p);
    if (s) steps.push(s);
  }
  for (const v of virtuals) {
    const name = newName(v.service.name);
    steps.push({
      what: `create virtual server ${name}`,
      commands: [`create ltm virtual ${quoteF5(name)} destination ${destination(v.service.address, v.service.port)} ip-protocol ${v.service.protocol} pool ${quoteF5(v.pool)} profiles add { /Common/${v.service.protocol} }`],
      inverse: [`delete ltm virtual ${quoteF5(name)}`],
    });
    if (v.service.persistence.type !== 'none') warnings.push({ subject: `service ${v.service.name}`, message: 'client-address persistence is not set on a new virtual server (add a source_addr persistence profile on the box)' });
  }
  const gone = appliance.manage === 'sections' && appliance.include === undefined ? removedServices(cfg, matched, pools, workspace, warnings) : { steps: [], pools: new Set<string>() };
  steps.push(...gone.steps);
  // Nodes the workspace removed: members only of pools it owns (or deletes), and no longer wanted anywhere.
  for (const n of cfg.nodes) {
    if (!modelled(n) || nodes.has(n.obj.name)) continue;
    const inPools = cfg.pools.filter((p) => p.members.some((m) => fullName(m.node) === fullName(n.obj.name)));
    if (!inPools.length || !inPools.every((p) => pools.has(fullName(p.obj.name)) || gone.pools.has(fullName(p.obj.name)))) continue;
    // A node of a deleted pool that the workspace still has stays (in no pool).
    if (inPools.some((p) => gone.pools.has(fullName(p.obj.name))) && workspace.servers.some((s) => nodeFor(s) === n)) continue;
    steps.push({
      what: `remove node ${n.obj.name}`,
      commands: [`delete ltm node ${quoteF5(n.obj.name)}`],
      inverse: [`create ltm node ${quoteF5(n.obj.name)} ${n.obj.body.map(oneLine).join(' ')}`.trimEnd()],
    });
  }
  let after = running;
  if (steps.length) {
    try { after = applyF5Commands(running, steps.flatMap((s) => s.commands)); } catch (e) { errors.push({ subject: `appliance ${appliance.name}`, message: (e as Error).message }); }
  }
  return { steps, after, errors, warnings };
}

function memberArg(m: WantMember): string {
  return `${quoteF5(m.name)} { address ${m.address}${m.ratio !== 1 ? ` ratio ${m.ratio}` : ''} }`;
}

function createPool(p: WantPool): CommandStep {
  const check = MONITOR_OF[p.group.healthCheck.type];
  const parts = [`create ltm pool ${quoteF5(p.name)}`];
  if (p.mode !== 'round-robin') parts.push(`load-balancing-mode ${p.mode}`);
  if (p.members.length) parts.push(`members add { ${p.members.map(memberArg).join(' ')} }`);
  if (check && p.group.healthCheck.type !== 'none') parts.push(`monitor ${check}`);
  return { what: `create pool ${p.name}`, commands: [parts.join(' ')], inverse: [`delete ltm pool ${quoteF5(p.name)}`] };
}

function changePool(p: WantPool, box: F5Pool, imported: (m: F5Member) => boolean, cfg: F5Config, warnings: DriverProblem[]): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  const head = `modify ltm pool ${quoteF5(p.name)}`;
  const was = box.mode ?? 'round-robin';
  if (p.mode !== was) {
    go.push(`${head} load-balancing-mode ${p.mode}`);
    back.push(`${head} load-balancing-mode ${was}`);
    what.push(`load-balancing-mode ${was} -> ${p.mode}`);
  }
  const same = (m: F5Member, w: WantMember) => fullName(m.name) === fullName(w.name);
  const added = p.members.filter((w) => !box.members.some((m) => same(m, w)));
  if (added.length) {
    go.push(`${head} members add { ${added.map(memberArg).join(' ')} }`);
    back.unshift(`${head} members delete { ${added.map((m) => quoteF5(m.name)).join(' ')} }`);
    what.push(`add ${added.map((m) => m.name).join(', ')}`);
  }
  for (const w of p.members) {
    const m = box.members.find((x) => same(x, w));
    if (!m || m.ratio === w.ratio) continue;
    go.push(`${head} members modify { ${quoteF5(m.name)} { ratio ${w.ratio} } }`);
    back.push(`${head} members modify { ${quoteF5(m.name)} { ratio ${m.ratio} } }`);
    what.push(`ratio of ${m.name} ${m.ratio} -> ${w.ratio}`);
  }
  // A member whose node lbdesk could not import (an FQDN node) is not the workspace's: kept.
  const gone = box.members.filter((m) => imported(m) && !p.members.some((w) => same(m, w)));
  if (gone.length) {
    go.push(`${head} members delete { ${gone.map((m) => quoteF5(m.name)).join(' ')} }`);
    back.push(`${head} members add { ${gone.map((m) => `${quoteF5(m.name)} { ${(m.entry.children ?? []).map(oneLine).join(' ')} }`).join(' ')} }`);
    what.push(`delete ${gone.map((m) => m.name).join(', ')}`);
  }
  const mon = changeMonitor(p, box, cfg, warnings);
  if (mon) { go.push(`${head} ${mon.go}`); back.push(`${head} ${mon.back}`); what.push(mon.what); }
  if (!go.length) return undefined;
  return { what: `pool ${p.name}: ${what.join(', ')}`, commands: go, inverse: back };
}

/**
 * The group's check, when it is not what the importer reads from the pool's monitors: the
 * built-in monitor it maps to (`monitor /Common/tcp`), or `monitor none`; back, the pool's
 * monitor line as it was. A custom monitor is never created or changed.
 */
function changeMonitor(p: WantPool, box: F5Pool, cfg: F5Config, warnings: DriverProblem[]): { go: string; back: string; what: string } | undefined {
  const type = p.group.healthCheck.type;
  if (checkOf(box, cfg, []).check.type === type) return undefined;
  const want = MONITOR_OF[type];
  if (!want && type !== 'none') {
    warnings.push({ subject: `group ${p.group.name}`, message: `check ${type} has no built-in BIG-IP monitor lbdesk sets: pool ${p.name} keeps its monitor` });
    return undefined;
  }
  const now = box.monitor ?? [];
  if (want ? now.length === 1 && fullName(now[0]!) === want : !now.length) return undefined;
  const line = box.obj.body.find((e) => e.words[0] === 'monitor');
  return { go: `monitor ${want ?? 'none'}`, back: line ? oneLine(line) : 'monitor none', what: `monitor ${now.join(' and ') || 'none'} -> ${want ?? 'none'}` };
}

/** Set by the box itself: a re-created object gets new ones. */
const READ_ONLY = new Set(['creation-time', 'last-modified-time']);
const recreate = (kind: string, o: { obj: { name: string; body: F5Entry[] } }) => `create ${kind} ${quoteF5(o.obj.name)} ${o.obj.body.filter((e) => !READ_ONLY.has(e.words[0]!)).map(oneLine).join(' ')}`.trimEnd();

/** A line outside `skip` (object line ranges) naming `name`: then the object is not the workspace's alone. */
function namedElsewhere(cfg: F5Config, name: string, skip: { head: number; end: number }[]): number | undefined {
  const names = new Set([fullName(name), unquote(name), localName(fullName(name))]);
  return cfg.lines.findIndex((l, n) => !skip.some((r) => n >= r.head && n <= r.end) && splitF5Words(l.trim()).some((w) => names.has(unquote(w)))) + 1 || undefined;
}

/** A virtual the importer makes a service of: one IP address and port, a default pool in the config. */
function importable(cfg: F5Config, v: F5Virtual): boolean {
  const port = v.port === undefined || v.port === 'any' ? 0 : Number(v.port);
  return !!v.address && isIpAddress(v.address) && v.address !== '0.0.0.0' && v.address !== '::' && port > 0
    && !!v.pool && cfg.pools.some((p) => fullName(p.obj.name) === fullName(v.pool!));
}

/**
 * Services the workspace removed (`manage: sections`, no include list): a virtual the importer
 * makes a service of that no workspace service stands for any more — `delete ltm virtual` —,
 * then its pool when no other virtual uses it, no workspace service wants it and the workspace
 * has no group of its name — `delete ltm pool` (its members' nodes go in the node step). One
 * another object names (an iRule, a policy, another virtual) is kept, with a warning. Inverses
 * re-create each with every property it had (the box sets its time stamps anew).
 */
function removedServices(cfg: F5Config, matched: Set<string>, pools: Map<string, WantPool>, workspace: Workspace, warnings: DriverProblem[]): { steps: CommandStep[]; pools: Set<string> } {
  const steps: CommandStep[] = [];
  const deleted: F5Virtual[] = [];
  for (const v of cfg.virtuals) {
    if (matched.has(v.obj.name) || !importable(cfg, v)) continue;
    const other = namedElsewhere(cfg, v.obj.name, [v.obj]);
    if (other) { warnings.push({ subject: `ltm virtual ${v.obj.name}`, message: `no service of the workspace stands for it, but it is kept: line ${other} names it ("${cfg.lines[other - 1]!.trim()}")` }); continue; }
    steps.push({ what: `delete virtual server ${v.obj.name}`, commands: [`delete ltm virtual ${quoteF5(v.obj.name)}`], inverse: [recreate('ltm virtual', v)] });
    deleted.push(v);
  }
  const gonePools = new Set<string>();
  for (const v of deleted) {
    const p = cfg.pools.find((x) => fullName(x.obj.name) === fullName(v.pool!))!;
    const full = fullName(p.obj.name);
    if (gonePools.has(full) || pools.has(full)) continue;
    if (workspace.groups.some((g) => g.name === localName(full) || g.name === legalName(localName(full)))) continue;
    if (cfg.virtuals.some((x) => !deleted.includes(x) && x.pool && fullName(x.pool) === full)) continue;
    const other = namedElsewhere(cfg, p.obj.name, [p.obj, ...deleted.map((x) => x.obj)]);
    if (other) { warnings.push({ subject: `ltm pool ${p.obj.name}`, message: `its virtual server is deleted, but it is kept: line ${other} names it ("${cfg.lines[other - 1]!.trim()}")` }); continue; }
    steps.push({ what: `delete pool ${p.obj.name}`, commands: [`delete ltm pool ${quoteF5(p.obj.name)}`], inverse: [recreate('ltm pool', p)] });
    gonePools.add(full);
  }
  return { steps, pools: gonePools };
}
