// Rules across objects: names that must exist or be unique, listeners that clash, health checks
// that cannot apply to the members and services around them.
import type { Appliance, Group, HealthTimersInput, Pair, Server, Service, TargetSet } from './schema';
import { COMMAND_DRIVERS, SECTION_DRIVERS, TEMPLATE_DRIVERS, driverFacts } from './drivers';
import type { PathSegment } from './problem';
import { valueAt, type Issue } from './issues';
import { closest } from './similar';
import { Bindings } from './bindings';
import { checkHealthCheck, type Users } from './checks';
import { checkTargetSet } from './targetsets';
import { resolveTimers } from './resolve';
import { timerIssues } from './timer-rules';
import { parseTargetSetIncludeName, targetSetIncludeName } from './ipfe';
import { sameAddress } from './address';
import { checkPairs } from './pair-rules';

/** A workspace where entries that failed their own schema are `undefined` (indices kept). */
export interface LooseWorkspace {
  healthTimers?: HealthTimersInput;
  servers: (Server | undefined)[];
  groups: (Group | undefined)[];
  services: (Service | undefined)[];
  targetSets: (TargetSet | undefined)[];
  appliances: (Appliance | undefined)[];
  pairs?: (Pair | undefined)[];
}

type Kind = 'servers' | 'groups' | 'services' | 'appliances';
const NOUN: Record<Kind, string> = { servers: 'server', groups: 'group', services: 'service', appliances: 'appliance' };

/** The lists whose items are named (and must be named uniquely). */
export const isNamedList = (list: string): list is Kind => list in NOUN;

/** A name another item of the list has too, told on this item: the other is `first` or `also` defined at `other`. */
export function duplicateName(kind: Kind, name: string, other: number, which: 'first' | 'also'): string {
  return `duplicate ${NOUN[kind]} name "${name}" (${which} defined at ${kind}[${other}])`;
}
/**
 * Names renamed since the file was opened, per list (old name → new name): a reference still on
 * an old name is pointed at the item's new name, not at whatever name is spelt most like the old.
 */
export type Renamed = Partial<Record<Kind, ReadonlyMap<string, string>>>;

/** Suggestions cost a scan of every name; a file full of typos gets the first ones only. */
const SUGGESTION_BUDGET = 200;

function rawList(raw: unknown, kind: string): unknown[] {
  const v = valueAt(raw, [kind]);
  return Array.isArray(v) ? v : [];
}

/** A list that is there but is not a list: its names are unknown, so references to it are not checked. */
function broken(raw: unknown, kind: string): boolean {
  const v = valueAt(raw, [kind]);
  return v !== undefined && v !== null && !Array.isArray(v);
}

const STOP = Symbol('enough problems');

/**
 * Cross-object issues; stops (stopped: true) once more than `limit` are found, an error among them:
 * the workspace is refused either way, and a list past the cap is not shown.
 */
export function crossCheck(workspace: LooseWorkspace, raw: unknown, limit = Infinity, renamed: Renamed = {}): { issues: Issue[]; stopped: boolean } {
  const issues: Issue[] = [];
  let errors = 0;
  const add = (found: readonly Issue[]) => {
    for (const i of found) {
      issues.push(i);
      if (i.severity === 'error') errors++;
    }
    if (issues.length > limit && errors > 0) throw STOP;
  };
  try {
    every(workspace, raw, add, renamed);
  } catch (e) {
    if (e !== STOP) throw e;
    return { issues, stopped: true };
  }
  return { issues, stopped: false };
}

function every(workspace: LooseWorkspace, raw: unknown, add: (found: readonly Issue[]) => void, renamed: Renamed): void {
  const err = (path: PathSegment[], message: string) => add([{ severity: 'error', path, message }]);
  const warn = (path: PathSegment[], message: string) => add([{ severity: 'warning', path, message }]);
  let budget = SUGGESTION_BUDGET;
  const hint = (word: string, names: () => Iterable<string>) => {
    if (budget-- <= 0) return '';
    for (const map of Object.values(renamed)) {
      const to = map?.get(word);
      if (to !== undefined && [...names()].includes(to)) return ` (did you mean "${to}"? "${word}" was renamed to "${to}")`;
    }
    const c = closest(word, names());
    return c === undefined ? '' : ` (did you mean "${c}"?)`;
  };

  // Names come from the raw file, so an entry with some other mistake still counts as defined.
  const names = {} as Record<Kind, Map<string, number>>;
  for (const kind of Object.keys(NOUN) as Kind[]) {
    const seen = new Map<string, number>();
    // Both sides of a clash get the error, each naming the other: the one being edited may be either.
    const told = new Set<number>();
    rawList(raw, kind).forEach((entry, i) => {
      const name = (entry as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') return;
      const first = seen.get(name);
      if (first === undefined) {
        seen.set(name, i);
        return;
      }
      if (!told.has(first)) err([kind, first, 'name'], duplicateName(kind, name, i, 'also'));
      told.add(first);
      err([kind, i, 'name'], duplicateName(kind, name, first, 'first'));
    });
    names[kind] = seen;
  }
  const setNumbers = new Map<number, number>();
  const toldSets = new Set<number>();
  rawList(raw, 'targetSets').forEach((entry, i) => {
    const n = (entry as { number?: unknown } | null)?.number;
    if (typeof n !== 'number') return;
    const first = setNumbers.get(n);
    if (first === undefined) {
      setNumbers.set(n, i);
      return;
    }
    if (!toldSets.has(first)) err(['targetSets', first, 'number'], `target set number ${n} is also used by targetSets[${i}]`);
    toldSets.add(first);
    err(['targetSets', i, 'number'], `target set number ${n} is already used by targetSets[${first}]`);
  });

  const servers = new Map<string, Server>();
  for (const s of workspace.servers) if (s && !servers.has(s.name)) servers.set(s.name, s);
  const users = new Map<string, Users>();
  for (const svc of workspace.services) {
    if (!svc) continue;
    const u = users.get(svc.group) ?? { subject: `group ${svc.group}`, tcp: [], udp: [] };
    u[svc.protocol].push(svc.name);
    users.set(svc.group, u);
  }

  // A group no service uses may still carry traffic: the box's own frontends on an HAProxy kept
  // with manage: sections (every group there, unless include names services), over TCP only.
  const carriers = workspace.appliances.filter((a) => a !== undefined && driverFacts(a.driver).handWrittenUseGroups && a.manage === 'sections' && a.include === undefined).map((a) => a!.name);

  workspace.groups.forEach((g, gi) => {
    if (!g) return;
    const base: PathSegment[] = ['groups', gi];
    const seen = new Map<string, number>();
    // Paths are built only for findings: big sites have tens of thousands of members.
    const at = (mi: number, ...rest: PathSegment[]): PathSegment[] => [...base, 'members', mi, ...rest];
    g.members.forEach((m, mi) => {
      if (!names.servers.has(m.server) && !broken(raw, 'servers')) err(at(mi, 'server'), `unknown server "${m.server}"${hint(m.server, () => names.servers.keys())}`);
      const key = m.port === undefined ? m.server : `${m.server}:${m.port}`;
      const first = seen.get(key);
      if (first !== undefined) err(at(mi), `server ${m.server}${m.port === undefined ? '' : ` port ${m.port}`} is already a member (members[${first}])`);
      else seen.set(key, mi);
      if (m.weight === 0) warn(at(mi, 'weight'), 'weight 0: this server never receives new connections');
    });
    const use: Users = users.get(g.name) ?? { subject: `group ${g.name}`, tcp: [], udp: [], ...(carriers.length ? { carriers } : {}) };
    if (g.members.length === 0 && use.tcp.length + use.udp.length > 0) {
      warn([...base, 'members'], `no members: ${[...use.tcp, ...use.udp].join(', ')} ha${use.tcp.length + use.udp.length > 1 ? 've' : 's'} nowhere to send connections`);
    }
    const timeout = resolveTimers({ group: g.healthTimers, global: workspace.healthTimers }).timeout;
    const report = checkHealthCheck(g.healthCheck, [...base, 'healthCheck'], g.members, use, timeout);
    add(report.issues);
    report.resolved.forEach((r, mi) => {
      if (g.members[mi]!.port === undefined && r.type !== 'ping') {
        err([...base, 'members', mi, 'port'], `required: this member gets a ${r.type} check (${r.why}); only a ping check works without a port`);
      }
    });
  });

  const bindings = new Bindings();
  const groups = new Map<string, Group>();
  for (const g of workspace.groups) if (g && !groups.has(g.name)) groups.set(g.name, g);
  workspace.services.forEach((svc, i) => {
    if (!svc) return;
    const base: PathSegment[] = ['services', i];
    if (!names.groups.has(svc.group) && !broken(raw, 'groups')) err([...base, 'group'], `unknown group "${svc.group}"${hint(svc.group, () => names.groups.keys())}`);
    if (svc.enabled) bindings.add(svc.address, svc.port, svc.protocol, `service ${svc.name}`, [...base, 'port']);
    if (svc.persistence.type === 'none' && valueAt(raw, [...base, 'persistence', 'timeout']) !== undefined) {
      warn([...base, 'persistence', 'timeout'], 'has no effect with persistence type none');
    }
    for (const m of groups.get(svc.group)?.members ?? []) {
      const server = servers.get(m.server);
      if (server && (m.port ?? svc.port) === svc.port && sameAddress(server.address, svc.address)) {
        warn([...base, 'address'], `the service would forward to itself: member ${m.server} of group ${svc.group} is ${svc.address}:${svc.port}`);
      }
    }
  });

  workspace.targetSets.forEach((t, i) => {
    if (!t) return;
    const base: PathSegment[] = ['targetSets', i];
    add(checkTargetSet(t, i, raw));
    if (!t.disabled && t.protocols !== 'sctp') {
      const label = `target set ${t.number}`;
      t.ports.forEach((p, j) => {
        if (t.ports.indexOf(p) !== j) return; // listed twice: reported by the target-set rules
        bindings.add(t.address, p, 'tcp', label, [...base, 'ports', j]);
        if (t.secondaryAddress !== undefined) bindings.add(t.secondaryAddress, p, 'tcp', `${label} (secondary address)`, [...base, 'ports', j]);
      });
      if (t.heartbeat) bindings.add(t.address, t.heartbeat.port, 'udp', `${label} heartbeats`, [...base, 'heartbeat', 'port']);
    }
    if (t.healthCheck) {
      const timeout = resolveTimers({ group: t.healthTimers, global: workspace.healthTimers }).timeout;
      const ports = t.ports.length ? t.ports.map((port) => ({ port })) : [{}];
      const use: Users = { subject: `target set ${t.number}`, tcp: [`target set ${t.number}`], udp: [] };
      add(checkHealthCheck(t.healthCheck, [...base, 'healthCheck'], ports, use, timeout).issues);
    }
  });
  add(bindings.issues);

  workspace.appliances.forEach((a, i) => {
    if (!a) return;
    const base: PathSegment[] = ['appliances', i];
    const listed = new Map<string, number>();
    a.include?.forEach((entry, j) => {
      const at: PathSegment[] = [...base, 'include', j];
      const first = listed.get(entry);
      if (first !== undefined) warn(at, `"${entry}" is already listed (include[${first}])`);
      listed.set(entry, j);
      const isService = names.services.has(entry);
      const n = parseTargetSetIncludeName(entry);
      const isSet = n !== undefined && setNumbers.has(n);
      if (isService && isSet) err(at, `"${entry}" names both service ${entry} and target set ${n}; rename the service`);
      else if (!isService && !isSet && !broken(raw, 'services') && !broken(raw, 'targetSets')) {
        const known = () => [...names.services.keys(), ...[...setNumbers.keys()].map(targetSetIncludeName)];
        err(at, `no service or target set named "${entry}" (target sets are named ts1, ts2, …)${hint(entry, known)}`);
      }
    });
    // The file push replaces and reloads; a vendor CLI's (driver cli) is read over SCP, where a
    // relative name (runConfig) is the box's own.
    if (!COMMAND_DRIVERS.includes(a.driver) && a.configPath !== undefined && !a.configPath.startsWith('/')) err([...base, 'configPath'], `must be an absolute path on the appliance (starting with "/") with driver ${a.driver}`);
    else if (a.configPath?.endsWith('/')) err([...base, 'configPath'], 'must name a file, not a folder (it ends with "/")');
    if (driverFacts(a.driver).template && a.template === undefined) err([...base, 'template'], `required with driver ${a.driver}: the template file to render, relative to the workspace`);
    if (!driverFacts(a.driver).template && a.template !== undefined) warn([...base, 'template'], `has no effect with driver ${a.driver} (only driver ${TEMPLATE_DRIVERS.join(', ')} uses a template)`);
    if (!COMMAND_DRIVERS.includes(a.driver) && a.cli !== undefined) warn([...base, 'cli'], `has no effect with driver ${a.driver} (only drivers ${COMMAND_DRIVERS.join(', ')} use these settings)`);
    if (a.manage === 'sections' && !SECTION_DRIVERS.includes(a.driver)) err([...base, 'manage'], `sections is for drivers ${SECTION_DRIVERS.join(', ')}, whose config lbdesk can share with hand-written parts; driver ${a.driver} writes the whole file (manage: file)`);
    if (a.auth !== 'key' && a.keyFile !== undefined) warn([...base, 'keyFile'], `has no effect with auth ${a.auth} (only auth: key uses a key file)`);
  });
  if (workspace.pairs?.length) add(checkPairs({ ...workspace, pairs: workspace.pairs, hint }));
  add(timerIssues(workspace));
}
