// From a NetScaler's running config to the workspace's owned objects, as commands: add new
// servers, bind, re-weight (`set serviceGroup G S P -weight N`) and unbind group members, set the
// lb method, and remove (after its unbinds) a server the workspace no longer has. Each step
// carries its inverse, computed from the before-state, so a rollback puts back what was there.
import type { Appliance, Group, Server, Workspace } from '../../../../shared/model/schema';
import { isIpAddress, sameAddress } from '../../../../shared/model/address';
import { legalName } from '../../import/names';
import { boxObjectFor } from '../box-object';
import { selectIncluded } from '../include';
import type { CommandPlan, CommandStep, DriverProblem, HeldMember } from '../types';
import { applyNsCommands } from './edit';
import { methodAlgorithm } from './import';
import { newNsMonitor, planNsMonitor } from './monitor';
import { DEFAULT_WEIGHT, parseNs, quoteNs, splitNsWords, type NsConfig, type NsGroup, type NsLine, type NsServer, type NsVserver } from './parse';

const METHOD_OF: Partial<Record<string, string>> = {
  'round-robin': 'ROUNDROBIN',
  'least-connections': 'LEASTCONNECTION',
  'source-hash': 'SOURCEIPHASH',
};

const q = quoteNs;
const weightOpt = (w: number) => (w === DEFAULT_WEIGHT ? '' : ` -weight ${w}`);

export function planNs(workspace: Workspace, appliance: Appliance, running: string, held: HeldMember[] = []): CommandPlan {
  const cfg = parseNs(running);
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const boxServerFor = (s: Server) => boxObjectFor(cfg.servers, s, (r) => r.name, (r) => r.address);
  const steps: CommandStep[] = [];
  const created = new Map<string, string>();   // workspace server -> box name, for new servers
  const wanted = new Set<string>();            // box server names the workspace keeps
  const owned = new Set<string>();             // box service groups the workspace owns
  const serverSteps: CommandStep[] = [];
  const groupSteps: CommandStep[] = [];
  const vserverSteps: CommandStep[] = [];
  const monitorSteps: CommandStep[] = [];
  const monitorNames = new Set<string>();
  const matched = new Set<string>();           // box lb vservers a workspace service stands for

  const boxName = (s: Server): string | undefined => {
    const box = boxServerFor(s);
    if (box && !sameAddress(box.address, s.address)) {
      errors.push({ subject: `server ${s.name}`, message: `server ${box.name} is ${box.address} on the box and ${s.address} in the workspace: a NetScaler server's address cannot be changed; give the server a new name to create one` });
      return undefined;
    }
    if (box) { wanted.add(box.name); serverChange(s, box); return box.name; }
    const known = created.get(s.name);
    if (known) return known;
    created.set(s.name, s.name);
    serverSteps.push({ what: `add server ${s.name}`, commands: [`add server ${q(s.name)} ${s.address}`, ...(s.enabled ? [] : [`disable server ${q(s.name)}`])], inverse: [`rm server ${q(s.name)}`] });
    return s.name;
  };
  const changedServers = new Set<string>();
  // `lbdesk maint` disables the whole server: a push does not enable it again.
  const inMaint = new Set(held.filter((h) => h.admin === 'maint').map((h) => h.server));
  const serverChange = (s: Server, box: NsServer) => {
    if (changedServers.has(box.name) || box.disabled !== s.enabled) return;
    if (box.disabled && inMaint.has(s.name)) return;
    changedServers.add(box.name);
    const verb = s.enabled ? 'enable' : 'disable';
    serverSteps.push({ what: `server ${box.name} ${verb}d`, commands: [`${verb} server ${q(box.name)}`], inverse: [`${s.enabled ? 'disable' : 'enable'} server ${q(box.name)}`] });
  };

  for (const service of included.services) {
    const subject = `service ${service.name}`;
    const group: Group | undefined = workspace.groups.find((g) => g.name === service.group);
    if (!group) continue;
    const method = METHOD_OF[service.algorithm];
    if (!method) { errors.push({ subject, message: `algorithm ${service.algorithm} has no NetScaler lbMethod (round-robin, least-connections, source-hash do)` }); continue; }
    const v = cfg.vservers.find((x) => x.name === service.name)
      ?? cfg.vservers.find((x) => legalName(x.name) === service.name)
      ?? cfg.vservers.find((x) => sameAddress(x.address, service.address) && x.port === service.port);
    if (v) matched.add(v.name);
    const boxGroup = v && v.binds.map((b) => cfg.groups.find((g) => g.name === b.name)).find((g) => g !== undefined);
    if (v && !boxGroup) { errors.push({ subject, message: `lb vserver ${v.name} has no service group bound on the box: lbdesk does not take over its services` }); continue; }
    const gName = boxGroup?.name ?? group.name;
    if (v) changeMethod(v, method, service.algorithm);
    if (v) changePersistence(v, service.persistence.type === 'client-ip');
    if (v && !service.enabled) warnings.push({ subject, message: 'disabled in the workspace: the lb vserver stays as it is (lbdesk does not disable it)' });
    if (owned.has(gName)) continue;    // a group shared by two services is planned once
    owned.add(gName);
    for (const m of group.members) {
      if (m.weight < 1 || m.weight > 100) errors.push({ subject: `group ${group.name}`, message: `member ${m.server} has weight ${m.weight}: a NetScaler service group member's weight is 1 to 100` });
    }
    const members = group.members.flatMap((m) => {
      const s = workspace.servers.find((x) => x.name === m.server);
      const name = s && boxName(s);
      return name ? [{ server: name, port: m.port ?? service.port, weight: m.weight }] : [];
    });
    if (!boxGroup) {
      createGroupAndVserver(gName, members, service.name, service.address, service.port, service.protocol, method);
      monitorSteps.push(...newNsMonitor(cfg, gName, group, monitorNames));
      continue;
    }
    changeGroup(boxGroup, members);
    monitorSteps.push(...planNsMonitor(cfg, boxGroup, group, monitorNames, warnings));
  }

  const gone = appliance.manage === 'sections' && appliance.include === undefined ? removedServices(cfg, matched, owned, workspace, warnings) : { steps: [], groups: new Set<string>() };
  // Servers the workspace removed: members only of groups it owns (or removes), bound nowhere else.
  const removed: CommandStep[] = [...gone.steps];
  for (const s of cfg.servers) {
    if (wanted.has(s.name)) continue;
    const ofGroups = cfg.groups.filter((g) => g.members.some((m) => m.server === s.name));
    if (!ofGroups.length || !ofGroups.every((g) => owned.has(g.name) || gone.groups.has(g.name)) || cfg.services.some((x) => x.server === s.name)) continue;
    // A server of a removed group that the workspace still has stays (in no group).
    if (ofGroups.some((g) => gone.groups.has(g.name)) && workspace.servers.some((w) => boxServerFor(w) === s)) continue;
    removed.push({ what: `remove server ${s.name}`, commands: [`rm server ${q(s.name)}`], inverse: [s.implicit ? `add server ${q(s.name)} ${s.address}` : s.line.text.trim(), ...(s.disabledBy ? [s.disabledBy.text.trim()] : [])] });
  }
  steps.push(...serverSteps, ...groupSteps, ...monitorSteps, ...vserverSteps, ...removed);
  let after = running;
  if (steps.length) {
    try { after = applyNsCommands(running, steps.flatMap((s) => s.commands)); } catch (e) { errors.push({ subject: `appliance ${appliance.name}`, message: (e as Error).message }); }
  }
  return { steps, after, errors, warnings };

  /** One step per command: the rollback of a step the box took part of is still exact. */
  function changeGroup(g: NsGroup, members: { server: string; port: number; weight: number }[]): void {
    const step = (what: string, go: string, back: string) => groupSteps.push({ what: `serviceGroup ${g.name}: ${what}`, commands: [go], inverse: [back] });
    for (const m of g.members) {
      const want = members.find((x) => x.server === m.server && x.port === m.port);
      const member = `${q(g.name)} ${q(m.server)} ${m.port}`;
      if (!want) step(`unbind ${m.server} ${m.port}`, `unbind serviceGroup ${member}`, m.line.text.trim());
      else if (want.weight !== m.weight) step(`weight of ${m.server} ${m.port} ${m.weight} -> ${want.weight}`, `set serviceGroup ${member} -weight ${want.weight}`, `set serviceGroup ${member} -weight ${m.weight}`);
    }
    for (const m of members) {
      if (g.members.some((x) => x.server === m.server && x.port === m.port)) continue;
      const member = `${q(g.name)} ${q(m.server)} ${m.port}`;
      step(`bind ${m.server} ${m.port}`, `bind serviceGroup ${member}${weightOpt(m.weight)}`, `unbind serviceGroup ${member}`);
    }
  }

  /** Client-address persistence is `-persistenceType SOURCEIP`; another type lbdesk did not import is left alone. */
  function changePersistence(v: NsVserver, sticky: boolean): void {
    const was = v.persistence?.toUpperCase();
    if (sticky === (was === 'SOURCEIP')) return;
    vserverSteps.push({
      what: `lb vserver ${v.name}: persistence ${was ?? 'NONE'} -> ${sticky ? 'SOURCEIP' : 'NONE'}`,
      commands: [`set lb vserver ${q(v.name)} -persistenceType ${sticky ? 'SOURCEIP' : 'NONE'}`],
      inverse: [v.persistence ? `set lb vserver ${q(v.name)} -persistenceType ${v.persistence}` : `unset lb vserver ${q(v.name)} -persistenceType`],
    });
  }

  function changeMethod(v: NsVserver, method: string, algorithm: string): void {
    if (methodAlgorithm(v.lbMethod).algorithm === algorithm) return;
    vserverSteps.push({
      what: `lb vserver ${v.name}: lbMethod ${v.lbMethod ?? 'default'} -> ${method}`,
      commands: [`set lb vserver ${q(v.name)} -lbMethod ${method}`],
      inverse: [v.lbMethod ? `set lb vserver ${q(v.name)} -lbMethod ${v.lbMethod}` : `unset lb vserver ${q(v.name)} -lbMethod`],
    });
  }

  function createGroupAndVserver(g: string, members: { server: string; port: number; weight: number }[], name: string, address: string, port: number, protocol: string, method: string): void {
    const type = protocol === 'udp' ? 'UDP' : port === 80 ? 'HTTP' : 'TCP';
    groupSteps.push({
      what: `add serviceGroup ${g} with ${members.length} member${members.length === 1 ? '' : 's'}`,
      commands: [`add serviceGroup ${q(g)} ${type}`, ...members.map((m) => `bind serviceGroup ${q(g)} ${q(m.server)} ${m.port}${weightOpt(m.weight)}`)],
      inverse: [`rm serviceGroup ${q(g)}`],
    });
    vserverSteps.push({
      what: `add lb vserver ${name}`,
      commands: [`add lb vserver ${q(name)} ${type} ${address} ${port}${method === 'LEASTCONNECTION' ? '' : ` -lbMethod ${method}`}`, `bind lb vserver ${q(name)} ${q(g)}`],
      inverse: [`rm lb vserver ${q(name)}`],
    });
  }
}



/** Lines other than `skip` that name `name` as a word: then an object is not the workspace's alone. */
function namedElsewhere(cfg: NsConfig, name: string, skip: Set<number>): NsLine[] {
  return cfg.lines.flatMap((raw, n) => (skip.has(n) || !splitNsWords(raw.trim()).includes(name) ? [] : [{ n, text: raw.replace(/\r$/, ''), words: [] }]));
}

/**
 * Services the workspace removed (`manage: sections`, no include list): an lb vserver the
 * importer makes a service of that no workspace service stands for any more — `rm lb vserver`
 * (its binds go with it), then its service group when no other vserver binds it and the
 * workspace has no group of that name — `rm serviceGroup` (its member and monitor binds go with
 * it). One another line names (ssl settings, policies, a cs vserver) is kept, with a warning.
 */
function removedServices(cfg: NsConfig, matched: Set<string>, owned: Set<string>, workspace: Workspace, warnings: DriverProblem[]): { steps: CommandStep[]; groups: Set<string> } {
  const steps: CommandStep[] = [];
  const groups = new Set<string>();
  const freed = new Set<string>();
  const gone = new Set<string>();
  for (const v of cfg.vservers) {
    const g = v.binds.map((b) => cfg.groups.find((x) => x.name === b.name)).find((x) => x !== undefined);
    if (matched.has(v.name) || !g || !isIpAddress(v.address) || v.address === '0.0.0.0' || v.port < 1) continue;
    const own = new Set([v.line.n, ...v.binds.map((b) => b.line.n)]);
    const other = namedElsewhere(cfg, v.name, own);
    if (other.length) { warnings.push({ subject: `lb vserver ${v.name}`, message: `no service of the workspace stands for it, but it is kept: line ${other[0]!.n + 1} names it ("${other[0]!.text.trim()}")` }); continue; }
    steps.push({ what: `remove lb vserver ${v.name}`, commands: [`rm lb vserver ${quoteNs(v.name)}`], inverse: [v.line.text.trim(), ...v.binds.map((b) => b.line.text.trim())] });
    gone.add(v.name);
    for (const b of v.binds) freed.add(b.name);
  }
  for (const name of freed) {
    const g = cfg.groups.find((x) => x.name === name);
    if (!g || owned.has(name) || workspace.groups.some((w) => w.name === name || w.name === legalName(name))) continue;
    if (cfg.vservers.some((v) => !gone.has(v.name) && v.binds.some((b) => b.name === name))) continue;
    const binds = cfg.lines.flatMap((raw, n) => { const w = splitNsWords(raw.trim()); return w[0]?.toLowerCase() === 'bind' && w[1]?.toLowerCase() === 'servicegroup' && w[2] === name ? [n] : []; });
    const vbinds = cfg.vservers.filter((v) => gone.has(v.name)).flatMap((v) => v.binds.map((b) => b.line.n));
    const other = namedElsewhere(cfg, name, new Set([g.line.n, ...binds, ...vbinds]));
    if (other.length) { warnings.push({ subject: `serviceGroup ${name}`, message: `its lb vserver is removed, but it is kept: line ${other[0]!.n + 1} names it ("${other[0]!.text.trim()}")` }); continue; }
    steps.push({ what: `remove serviceGroup ${name}`, commands: [`rm serviceGroup ${quoteNs(name)}`], inverse: [g.line.text.trim(), ...binds.map((n) => cfg.lines[n]!.replace(/\r$/, '').trim())] });
    groups.add(name);
  }
  return { steps, groups };
}
