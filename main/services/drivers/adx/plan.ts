// From an ADX's running config to the workspace's owned objects, as commands: create new real
// servers, change only the attributes that differ, bind and unbind on the virtual servers, and
// remove (after unbinding) the real servers the workspace no longer has. Each step carries its
// inverse, computed from the before-state, so a rollback puts back exactly what was there.
import type { Appliance, Group, HealthCheck, Server, Service, Workspace } from '../../../../shared/model/schema';
import { isIpAddress, sameAddress } from '../../../../shared/model/address';
import { boxObjectFor } from '../box-object';
import { selectIncluded } from '../include';
import type { CommandPlan, CommandStep, DriverProblem, HeldMember } from '../types';
import { applyAdxCommands } from './edit';
import { DEFAULT_PREDICTOR, predictorAlgorithm, realWeight } from './import';
import { parseAdx, quoteName, type AdxConfig, type AdxReal, type AdxVirtual } from './parse';
import { portNumber, portWord } from './ports';

const PREDICTOR_OF: Partial<Record<Service['algorithm'], string>> = {
  'round-robin': 'round-robin',
  'least-connections': 'least-conn',
  'weighted-round-robin': 'weighted',
};

interface WantReal { name: string; server: Server; weight: number; ports: Map<string, HealthCheck>; box?: AdxReal }
interface WantPort { vport: string; service: Service; binds: { real: string; rport: string }[]; sticky: boolean }
interface WantVirtual { name: string; address: string; box?: AdxVirtual; ports: WantPort[]; predictor?: string; decided?: boolean }

const DEFAULT_PATH = '/';
const httpish = (port: string, c: HealthCheck) => c.type === 'http' || (c.type === 'auto' && (port === 'http' || c.protocol === 'http'));
const wantsKeepalive = (c: HealthCheck) => c.type !== 'none' && c.layer !== 4;

export function planAdx(workspace: Workspace, appliance: Appliance, running: string, held: HeldMember[] = []): CommandPlan {
  const cfg = parseAdx(running);
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const reals = new Map<string, WantReal>();
  const virtuals = new Map<string, WantVirtual>();
  const realFor = (s: Server) => boxObjectFor(cfg.reals, s, (r) => r.name, (r) => r.address);

  for (const service of included.services) {
    const subject = `service ${service.name}`;
    const group: Group | undefined = workspace.groups.find((g) => g.name === service.group);
    if (!group) continue;
    const predictor = PREDICTOR_OF[service.algorithm];
    if (!predictor) { errors.push({ subject, message: `algorithm ${service.algorithm} has no ADX predictor (round-robin, least-connections, weighted-round-robin do)` }); continue; }
    const boxV = cfg.virtuals.find((v) => sameAddress(v.address, service.address));
    // One virtual server per address: a second service there is another port of it.
    const key = boxV?.name ?? [...virtuals.values()].find((x) => sameAddress(x.address, service.address))?.name ?? service.name;
    const v = virtuals.get(key) ?? { name: key, address: boxV?.address ?? service.address, box: boxV, ports: [] };
    virtuals.set(key, v);
    const vport = (boxV && [...boxV.ports.keys()].find((p) => p === portWord(service.port) || p === String(service.port))) ?? portWord(service.port);
    const boxAlgo = predictorAlgorithm(boxV?.predictor).algorithm;
    const want = boxV && boxAlgo === service.algorithm ? boxV.predictor : predictor;
    if (v.decided && v.predictor !== want) errors.push({ subject, message: `virtual server ${key} is balanced one way for all its ports (an ADX predictor is per virtual server); its services ask for different algorithms` });
    v.predictor = want;
    v.decided = true;
    const port: WantPort = { vport, service, binds: [], sticky: service.persistence.type === 'client-ip' };
    v.ports.push(port);
    for (const m of group.members) {
      const server = workspace.servers.find((s) => s.name === m.server);
      if (!server) continue;
      const box = realFor(server);
      if (box && !sameAddress(box.address, server.address)) {
        errors.push({ subject: `server ${server.name}`, message: `real server ${box.name} is ${box.address} on the box and ${server.address} in the workspace: an ADX real server's address cannot be changed; give the server a new name to create one` });
        continue;
      }
      const name = box?.name ?? server.name;
      const r = reals.get(name) ?? { name, server, weight: m.weight, ports: new Map(), box };
      if (r.weight !== m.weight) errors.push({ subject: `server ${server.name}`, message: `has weight ${r.weight} and ${m.weight} in different groups: an ADX real server has one weight` });
      reals.set(name, r);
      const rport = (box && [...box.ports.keys()].find((p) => p === portWord(m.port ?? service.port) || p === String(m.port ?? service.port))) ?? portWord(m.port ?? service.port);
      r.ports.set(rport, group.healthCheck);
      port.binds.push({ real: name, rport });
    }
    if (!service.enabled) warnings.push({ subject, message: 'disabled in the workspace: the ADX virtual port stays as it is (lbdesk does not disable it)' });
  }

  const steps: CommandStep[] = [];
  // `lbdesk maint` disables the whole real server: a push does not enable it again.
  const inMaint = new Set(held.filter((h) => h.admin === 'maint').map((h) => h.server));
  for (const r of reals.values()) {
    const s = r.box ? changeReal(r, r.box, inMaint.has(r.server.name)) : createReal(r);
    if (s) steps.push(s);
  }
  // A bind lbdesk could not import (a real server the config does not define, a port it does not
  // know) is not the workspace's: never unbound.
  const modelled = (b: { real: string; rport: string }) => cfg.reals.some((r) => r.name === b.real) && portNumber(b.rport) !== undefined;
  for (const v of virtuals.values()) {
    const s = v.box ? changeVirtual(v, v.box, modelled) : createVirtual(v);
    if (s) steps.push(s);
  }
  const gone = appliance.manage === 'sections' && appliance.include === undefined ? removedVirtuals(cfg, virtuals, modelled, warnings) : [];
  for (const v of gone) steps.push(...removeVirtual(v));
  // A real server bound to a removed virtual server that the workspace still has stays (in no group).
  const kept = (r: AdxReal) => gone.some((v) => v.binds.some((b) => b.real === r.name)) && workspace.servers.some((s) => realFor(s) === r);
  for (const r of removedReals(cfg, reals, virtuals, new Set(gone.map((v) => v.name)))) if (!kept(r)) steps.push(removeReal(r));
  let after = running;
  if (steps.length) {
    try { after = applyAdxCommands(running, steps.flatMap((s) => s.commands)); } catch (e) { errors.push({ subject: `appliance ${appliance.name}`, message: (e as Error).message }); }
  }
  return { steps, after, errors, warnings };
}

function portLines(port: string, check: HealthCheck): string[] {
  const lines = [`port ${port}`];
  if (check.layer === 4) lines.push(`port ${port} l4-check-only`);
  else if (wantsKeepalive(check)) lines.push(`port ${port} keepalive`);
  if (httpish(port, check) && (check.http?.path ?? DEFAULT_PATH) !== DEFAULT_PATH) lines.push(`port ${port} url "GET ${check.http!.path}"`);
  return lines;
}

function createReal(r: WantReal): CommandStep {
  const head = `server real ${quoteName(r.name)} ${r.server.address}`;
  const body = [...r.ports].flatMap(([p, c]) => portLines(p, c));
  if (r.weight !== 100) body.push(`weight ${r.weight}`);
  if (!r.server.enabled) body.push('disable');
  return { what: `create real server ${r.name}`, commands: [head, ...body, 'exit'], inverse: [`no server real ${quoteName(r.name)}`] };
}

function changeReal(r: WantReal, box: AdxReal, maint: boolean): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  if (box.disabled === r.server.enabled && !(maint && box.disabled)) {
    go.push(r.server.enabled ? 'enable' : 'disable');
    back.push(r.server.enabled ? 'disable' : 'enable');
    what.push(r.server.enabled ? 'enabled' : 'disabled');
  }
  const was = realWeight(box);
  if (was !== r.weight) {
    const rest = box.weight ? box.weight.words.slice(1) : [];
    go.push(['weight', r.weight, ...rest].join(' '));
    back.push(box.weight ? `weight ${box.weight.words.join(' ')}` : ['no weight', r.weight, ...rest].join(' '));
    what.push(`weight ${was} -> ${r.weight}`);
  }
  for (const [p, check] of r.ports) {
    const have = box.ports.get(p);
    if (!have) {
      go.push(...portLines(p, check));
      back.unshift(`no port ${p}`);
      what.push(`port ${p} added`);
      continue;
    }
    if (check.type === 'none' && have.keepalive === true) {
      go.push(`no port ${p} keepalive`);
      back.push(`port ${p} keepalive`);
      what.push(`port ${p} keepalive off`);
    }
    if (!httpish(p, check)) continue;
    // No url line is the ADX's own `HEAD /`: the same path as lbdesk's default.
    const path = check.http?.path ?? DEFAULT_PATH;
    if (path === (have.url?.path ?? DEFAULT_PATH)) continue;
    if (path === DEFAULT_PATH && have.url) {
      go.push(`no port ${p} url "${have.url.method} ${have.url.path}"`);
      back.push(`port ${p} url "${have.url.method} ${have.url.path}"`);
      what.push(`port ${p} url removed`);
      continue;
    }
    const method = have.url?.method ?? 'GET';
    go.push(`port ${p} url "${method} ${path}"`);
    back.push(have.url ? `port ${p} url "${have.url.method} ${have.url.path}"` : `no port ${p} url "${method} ${path}"`);
    what.push(`port ${p} url ${path}`);
  }
  if (!go.length) return undefined;
  const head = `${realWord(box)} ${quoteName(box.name)} ${box.address}`;
  return { what: `real server ${box.name}: ${what.join(', ')}`, commands: [head, ...go, 'exit'], inverse: [head, ...back, 'exit'] };
}

const bindLine = (vport: string, binds: { real: string; rport: string }[]) => `bind ${vport} ${binds.map((b) => `${quoteName(b.real)} ${b.rport}`).join(' ')}`;

function createVirtual(v: WantVirtual): CommandStep {
  const body: string[] = [];
  for (const p of v.ports) {
    body.push(`port ${p.vport}`);
    if (p.sticky) body.push(`port ${p.vport} sticky`);
  }
  if (v.predictor && v.predictor !== DEFAULT_PREDICTOR) body.push(`predictor ${v.predictor}`);
  for (const p of v.ports) if (p.binds.length) body.push(bindLine(p.vport, p.binds));
  return { what: `create virtual server ${v.name}`, commands: [`server virtual ${quoteName(v.name)} ${v.address}`, ...body, 'exit'], inverse: [`no server virtual ${quoteName(v.name)}`] };
}

function changeVirtual(v: WantVirtual, box: AdxVirtual, modelled: (b: { real: string; rport: string }) => boolean): CommandStep | undefined {
  const go: string[] = [];
  const back: string[] = [];
  const what: string[] = [];
  if (v.predictor !== box.predictor && predictorAlgorithm(v.predictor).algorithm !== predictorAlgorithm(box.predictor).algorithm) {
    go.push(`predictor ${v.predictor}`);
    back.push(box.predictor ? `predictor ${box.predictor}` : `no predictor ${v.predictor}`);
    what.push(`predictor ${box.predictor ?? 'default'} -> ${v.predictor}`);
  }
  for (const p of v.ports) {
    const have = box.ports.get(p.vport);
    if (!have) { go.push(`port ${p.vport}`); back.push(`no port ${p.vport}`); what.push(`port ${p.vport} added`); }
    if (p.sticky !== (have?.sticky ?? false)) {
      go.push(`${p.sticky ? '' : 'no '}port ${p.vport} sticky`);
      back.push(`${p.sticky ? 'no ' : ''}port ${p.vport} sticky`);
      what.push(`port ${p.vport} ${p.sticky ? 'sticky' : 'not sticky'}`);
    }
    const before = box.binds.filter((b) => b.vport === p.vport);
    const gone = before.filter((b) => modelled(b) && !p.binds.some((w) => w.real === b.real && w.rport === b.rport));
    const added = p.binds.filter((w) => !before.some((b) => w.real === b.real && w.rport === b.rport));
    for (const b of gone) { go.push(`no ${bindLine(p.vport, [b])}`); what.push(`unbind ${b.real} ${b.rport}`); }
    if (added.length) { go.push(bindLine(p.vport, added)); what.push(`bind ${added.map((b) => `${b.real} ${b.rport}`).join(', ')}`); }
    for (const b of added) back.unshift(`no ${bindLine(p.vport, [b])}`);
    if (gone.length) back.push(bindLine(p.vport, gone));
  }
  if (!go.length) return undefined;
  const head = `server virtual ${quoteName(box.name)} ${box.address}`;
  return { what: `virtual server ${box.name}: ${what.join(', ')}`, commands: [head, ...go, 'exit'], inverse: [head, ...back, 'exit'] };
}

/**
 * Real servers the workspace removed: on the box, bound only to virtual-server ports the
 * workspace owns, and no longer wanted. A real server bound elsewhere, or bound nowhere, is not
 * lbdesk's and is never named.
 */
function removedReals(cfg: AdxConfig, reals: Map<string, WantReal>, virtuals: Map<string, WantVirtual>, removed: Set<string>): AdxReal[] {
  const owned = (virtual: string, vport: string) => removed.has(virtual) || (virtuals.get(virtual)?.ports.some((p) => p.vport === vport) ?? false);
  return cfg.reals.filter((r) => {
    if (reals.has(r.name)) return false;
    const binds = cfg.virtuals.flatMap((v) => v.binds.filter((b) => b.real === r.name).map((b) => ({ v: v.name, b })));
    return binds.length > 0 && binds.every(({ v, b }) => owned(v, b.vport));
  });
}

/** The command word of a real server as the box has it: `server real` or `server remote-name`. */
const realWord = (r: AdxReal) => `server ${r.remote ? 'remote-name' : 'real'}`;

function removeReal(r: AdxReal): CommandStep {
  // The inverse re-enters every line the block had, in its order: what lbdesk models and what it does not.
  return {
    what: `remove real server ${r.name}`,
    commands: [`no ${realWord(r)} ${quoteName(r.name)}`],
    inverse: [r.head.text.trim(), ...r.body.map((l) => l.text.trim()), 'exit'],
  };
}

/**
 * Virtual servers the workspace removed (`manage: sections`, no include list): one the importer
 * makes services of (an IP address, a known port with binds) of which no workspace service is left.
 */
function removedVirtuals(cfg: AdxConfig, virtuals: Map<string, WantVirtual>, modelled: (b: { real: string; rport: string }) => boolean, warnings: DriverProblem[]): AdxVirtual[] {
  return cfg.virtuals.filter((v) => {
    if (!isIpAddress(v.address) || virtuals.has(v.name)) return false;
    if (![...v.ports.values()].some((p) => portNumber(p.name) !== undefined && v.binds.some((b) => b.vport === p.name))) return false;
    // A bind to a real server the config does not define could not be bound again by a rollback.
    const foreign = v.binds.filter((b) => !modelled(b));
    if (foreign.length) warnings.push({ subject: `virtual server ${v.name}`, message: `no service of the workspace is on it, but it is kept: it binds ${foreign.map((b) => `${b.real} ${b.rport}`).join(', ')}, which lbdesk did not import (a rollback could not bind it again)` });
    return !foreign.length;
  });
}

/**
 * Unbind every real-server port first (the box refuses to remove a virtual server with binds),
 * then `no server virtual`. Rolled back newest first: the block re-entered with its other lines,
 * then its bind lines as written.
 */
function removeVirtual(v: AdxVirtual): CommandStep[] {
  const head = `server virtual ${quoteName(v.name)} ${v.address}`;
  const bindLines = v.body.filter((l) => l.words[0] === 'bind');
  const unbinds = v.binds.map((b) => `no bind ${b.vport} ${quoteName(b.real)} ${b.rport}`);
  return [
    { what: `virtual server ${v.name}: every bind removed`, commands: [head, ...unbinds, 'exit'], inverse: [head, ...bindLines.map((l) => l.text.trim()), 'exit'] },
    { what: `remove virtual server ${v.name}`, commands: [`no server virtual ${quoteName(v.name)}`], inverse: [head, ...v.body.filter((l) => l.words[0] !== 'bind').map((l) => l.text.trim()), 'exit'] },
  ];
}
