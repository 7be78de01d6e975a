// ADX running config -> workspace: each real server a server, each bound virtual-server port a
// service with its group (members = the real-server ports bound to it); everything else stays
// on the box, each statement named in the report with why.
import { isIpAddress } from '../../../../shared/model/address';
import { NameSpace } from '../../import/names';
import { ImportError, type GroupInput, type ImportResult, type ReportItem, type ServerInput, type ServiceInput } from '../../import/types';
import { parseAdx, type AdxReal, type AdxVirtual, type AdxLine } from './parse';
import { portNumber, portProtocol } from './ports';

export interface AdxImportOptions {
  /** Names the workspace has already (a merge): imported servers take other names. */
  taken?: { servers?: Iterable<string> };
  existingServers?: { name: string; address: string }[];
}

/** Predictor -> lbdesk algorithm; an ADX virtual server without one uses least connections. */
const PREDICTORS: Record<string, { algorithm: ServiceInput['algorithm']; note?: string }> = {
  'round-robin': { algorithm: 'round-robin' },
  'least-conn': { algorithm: 'least-connections' },
  weighted: { algorithm: 'weighted-round-robin' },
  'response-time': { algorithm: 'least-connections', note: 'predictor response-time: least connections in the lab' },
  'dynamic-weighted': { algorithm: 'weighted-round-robin', note: 'predictor dynamic-weighted: static weights in the lab' },
};
export const DEFAULT_PREDICTOR = 'least-conn';

export function predictorAlgorithm(p: string | undefined): { algorithm: ServiceInput['algorithm']; note?: string } {
  const word = p ?? DEFAULT_PREDICTOR;
  return PREDICTORS[word] ?? { algorithm: 'least-connections', note: `predictor ${word}: not modelled, least connections in the lab` };
}

export function importAdx(text: string, file: string, opts: AdxImportOptions = {}): ImportResult {
  const cfg = parseAdx(text);
  if (!cfg.reals.length && !cfg.virtuals.length) {
    const first = cfg.others[0]?.head;
    throw new ImportError(file, (first?.n ?? 0) + 1, 'no "server real" or "server virtual" block: not an ADX running config');
  }
  const items: ReportItem[] = [];
  const item = (l: AdxLine, section: string, outcome: ReportItem['outcome'], detail: string) => items.push({ file, line: l.n + 1, section, outcome, detail });
  // One server per real server, even two on one address: each is its own object on the box.
  const servers: ServerInput[] = [];
  const serverNames = new NameSpace([...(opts.taken?.servers ?? []), ...(opts.existingServers ?? []).map((e) => e.name)]);
  const serverName = new Map<string, string>();
  for (const r of cfg.reals) {
    const section = `server ${r.remote ? 'remote-name' : 'real'} ${r.name}`;
    if (!isIpAddress(r.address)) { item(r.head, section, 'kept', `"${r.address}" is not an IP address: not modelled, kept on the box`); continue; }
    const notes: string[] = [];
    const name = serverNames.take(r.name);
    serverName.set(r.name, name);
    servers.push({ name, address: r.address, ...(r.disabled ? { enabled: false } : {}) });
    const ports = [...r.ports.values()].map((p) => [p.name, p.keepalive === true ? 'keepalive' : p.keepalive === false ? 'no keepalive' : '', p.l4Only ? 'l4-check-only' : '', p.url ? `url "${p.url.method} ${p.url.path}"` : ''].filter(Boolean).join(' '));
    const weight = r.weight ? `weight ${r.weight.words.join(' ')} (member weight ${realWeight(r)})` : 'no weight (member weight 100)';
    const bound = cfg.virtuals.some((v) => v.binds.some((b) => b.real === r.name));
    if (!bound) notes.push('bound to no virtual server: a server of the workspace, in no group (lbdesk changes it only once a group has it)');
    item(r.head, section, 'imported', `${r.address}${ports.length ? `, port ${ports.join(', port ')}` : ''}, ${weight}${r.disabled ? ', disabled' : ''}${serverName.get(r.name) !== r.name ? `, named ${serverName.get(r.name)}` : ''}${notes.length ? `; ${notes.join('; ')}` : ''}`);
    for (const l of r.unmodelled) item(l, section, 'kept', `"${l.text.trim()}" is not modelled: kept on the box as written`);
  }
  const groups: GroupInput[] = [];
  const services: ServiceInput[] = [];
  const names = new NameSpace();
  for (const v of cfg.virtuals) virtual(v);
  for (const r of cfg.reentered) item({ n: r.line, text: '', words: [] }, `server ${r.kind} ${r.name}`, 'imported', `entered again: its lines are read as part of server ${r.kind} ${r.name}`);
  for (const o of cfg.others) item(o.head, o.head.text.trim(), 'kept', `${o.head.words[0] === 'no' ? 'a "no" setting' : `"${o.head.words.slice(0, 2).join(' ')}"`} is not modelled (lbdesk models real and virtual servers): kept on the box as written`);
  items.sort((a, b) => a.line - b.line);
  return { driver: 'adx', workspace: { lbdesk: 1, name: 'imported', servers, groups, services }, items, sections: [] };

  function virtual(v: AdxVirtual): void {
    const section = `server virtual ${v.name}`;
    if (!isIpAddress(v.address)) { item(v.head, section, 'kept', `"${v.address}" is not an IP address: not modelled, kept on the box`); return; }
    const algo = predictorAlgorithm(v.predictor);
    for (const l of v.unmodelled) item(l, section, 'kept', `"${l.text.trim()}" is not modelled: kept on the box as written`);
    const bound = [...v.ports.values()].filter((p) => v.binds.some((b) => b.vport === p.name));
    item(v.head, section, 'imported', `${v.address}: ${v.ports.size} port${v.ports.size === 1 ? '' : 's'} (${[...v.ports.keys()].join(', ')}), each bound port a service below`);
    for (const p of v.ports.values()) {
      const number = portNumber(p.name);
      const at = v.body.find((l) => l.n === p.line) ?? v.head;
      const binds = v.binds.filter((b) => b.vport === p.name);
      if (number === undefined) { item(at, section, 'kept', `port ${p.name}: not a port lbdesk knows; kept on the box`); continue; }
      if (!binds.length) { item(at, section, 'kept', `port ${p.name}: no real-server port is bound to it; nothing to balance, kept on the box`); continue; }
      const base = bound.length > 1 ? `${v.name}-${p.name}` : v.name;
      const name = names.take(base);
      const notes: string[] = [];
      if (algo.note) notes.push(algo.note);
      const members: NonNullable<GroupInput['members']> = [];
      let check: GroupInput['healthCheck'];
      for (const b of binds) {
        const real = cfg.reals.find((r) => r.name === b.real);
        const rport = portNumber(b.rport);
        const server = real && serverName.get(real.name);
        if (!real || !server || rport === undefined) { notes.push(`bind ${b.vport} ${b.real} ${b.rport}: ${!real ? 'no such real server' : 'not modelled'}; left on the box`); continue; }
        members.push({ server, port: rport, weight: realWeight(real) });
        const c = checkOf(real, b.rport, notes);
        if (check === undefined) check = c;
        else if (JSON.stringify(c) !== JSON.stringify(check)) notes.push(`real server ${real.name} port ${b.rport} is checked differently from the first member: lbdesk checks the group one way (the first member's)`);
      }
      if (p.disabled) notes.push(`port ${p.name} is disabled on the box: imported enabled-looking, the line stays`);
      groups.push({ name, members, healthCheck: check ?? {} });
      services.push({
        name, address: v.address, port: number, protocol: portProtocol(p.name), group: name, algorithm: algo.algorithm,
        ...(p.sticky ? { persistence: { type: 'client-ip' } } : {}),
      });
      if (p.sticky) notes.push('sticky: client-address persistence, lbdesk\'s 5 minutes (the ADX sticky age is global)');
      const said = [...new Set(notes)];
      item(at, section, said.length ? 'approximated' : 'imported', `service ${name} ${v.address}:${number}: ${members.length} member${members.length === 1 ? '' : 's'}, predictor ${v.predictor ?? `${DEFAULT_PREDICTOR} (default)`} as ${algo.algorithm}${said.length ? `; ${said.join('; ')}` : ''}`);
    }
  }
}

/** A real server's weight as lbdesk's member weight: the first (least-connections) weight; none = 100. */
export function realWeight(r: AdxReal): number {
  return r.weight ? Number(r.weight.words[0]) : 100;
}

/** The real-server port's check: the ADX rule (well-known port = Layer 7) is lbdesk's `auto`. */
function checkOf(r: AdxReal, port: string, notes: string[]): GroupInput['healthCheck'] {
  const p = r.ports.get(port);
  if (!p) return {};
  if (p.l4Only) return { type: 'auto', layer: 4 };
  const check: NonNullable<GroupInput['healthCheck']> = { type: 'auto' };
  if (p.url) {
    check.http = { path: p.url.path.startsWith('/') ? p.url.path : `/${p.url.path}` };
    if (p.url.method !== 'GET') notes.push(`url "${p.url.method} ${p.url.path}": lbdesk's HTTP check asks GET ${check.http.path}; the box keeps ${p.url.method}`);
  }
  if (p.keepalive === false) notes.push(`no port ${port} keepalive: the box does not check ${r.name} port ${port} periodically; the lab does`);
  return check;
}
