// haproxy.cfg -> workspace: backends become groups, frontends and listeners services, server
// lines servers (shared by address) and members; what lbdesk cannot express is kept.
import { formatDuration } from '../../../shared/model/duration';
import { isWildcard, normalAddress } from '../../../shared/model/address';
import { parseHaproxy, sectionKey, splitWords, type CfgLine, type CfgSection, type HaproxyConfig } from './haproxy-parse';
import { DefaultsChain, applyLines, haproxyMs, isCheckLine, type ProxySettings } from './haproxy-proxy';
import { checkTimers, parseEndpoint, serverOptions, type CheckTimers, type Endpoint } from './haproxy-server';
import { importCheck } from './haproxy-check-import';
import { NameSpace } from './names';
import type { GroupInput, ImportResult, ReportItem, SectionBinding, ServerInput, ServiceInput } from './types';
import { clampMs, Servers } from './common';

/** Lines that change nothing lbdesk models (logging, limits, HTTP niceties): left as written, unreported. */
const NEUTRAL = new Set(['log', 'option', 'no', 'retries', 'maxconn', 'fullconn', 'backlog', 'description', 'id', 'retry-on', 'log-format', 'log-tag', 'email-alert', 'errorfile', 'compression', 'http-reuse', 'rate-limit']);
const FRONTEND_MODEL = new Set(['bind', 'default_backend', 'timeout', 'mode', 'disabled', 'enabled']);
const BACKEND_MODEL = new Set(['balance', 'hash-type', 'server', 'default-server', 'timeout', 'mode', 'stick', 'stick-table', 'http-check', 'tcp-check', 'disabled', 'enabled']);
const LISTEN_MODEL = new Set([...BACKEND_MODEL, ...FRONTEND_MODEL]);
const ROUTING = new Set(['acl', 'use_backend', 'http-request', 'http-response', 'http-after-response', 'redirect', 'use-server', 'monitor-uri', 'capture', 'filter', 'tcp-response', 'unique-id-format', 'stats']);

export interface HaproxyImportOptions {
  /** Names the workspace already has (a merge never takes them). */
  taken?: { servers?: Iterable<string>; groups?: Iterable<string>; services?: Iterable<string> };
  /** Servers the workspace has: reused by address. */
  existingServers?: { name: string; address: string }[];
}

interface Backend {
  section: CfgSection;
  group: string;
  settings: ProxySettings;
  /** Balance, persistence and idle timeout for the services that use this backend. */
  algorithm: string;
  persistence?: { type: 'client-ip'; timeout: string };
  notes: string[];
}

export function importHaproxy(text: string | HaproxyConfig, file: string, opts: HaproxyImportOptions = {}): ImportResult {
  const cfg = typeof text === 'string' ? parseHaproxy(text, file) : text;
  return new HaproxyImporter(cfg, opts).run();
}

class HaproxyImporter {
  private readonly items: ReportItem[] = [];
  private readonly bindings: SectionBinding[] = [];
  private readonly servers: Servers;
  private readonly groupNames: NameSpace;
  private readonly serviceNames: NameSpace;
  private readonly groups: GroupInput[] = [];
  private readonly services: ServiceInput[] = [];
  private readonly backends = new Map<string, Backend>();
  private readonly inherited = new Map<CfgSection, ProxySettings>();
  private readonly settled = new Map<CfgSection, ProxySettings>();
  /** Checked members without a port (HAProxy sends them the client's port): given one after the frontends are read. */
  private readonly portless: { group: GroupInput; members: { port?: number }[]; checkPort?: string; line: number; key: string }[] = [];

  /** A proxy section's settings: its own lines over what it inherits (computed once). */
  private settings(s: CfgSection): ProxySettings {
    let got = this.settled.get(s);
    if (!got) this.settled.set(s, (got = applyLines(this.inherited.get(s)!, s)));
    return got;
  }

  constructor(private readonly cfg: HaproxyConfig, opts: HaproxyImportOptions) {
    this.servers = new Servers(opts.taken?.servers, opts.existingServers);
    this.groupNames = new NameSpace(opts.taken?.groups);
    this.serviceNames = new NameSpace(opts.taken?.services);
  }

  private item(line: number, section: string, outcome: ReportItem['outcome'], detail: string): void {
    this.items.push({ file: this.cfg.file, line: line + 1, section, outcome, detail });
  }

  run(): ImportResult {
    const chain = new DefaultsChain();
    const proxies: CfgSection[] = [];
    for (const s of this.cfg.sections) {
      const got = chain.inherit(s);
      if ('error' in got) {
        this.item(s.header.index, sectionKey(s), 'kept', `${got.error}; kept as written`);
        continue;
      }
      if (s.kind === 'defaults') {
        this.item(s.header.index, sectionKey(s), 'kept', 'defaults: read into the sections that use them (timeouts, balance, default-server, checks); kept as written');
      } else if (s.kind === 'frontend' || s.kind === 'backend' || s.kind === 'listen') {
        this.inherited.set(s, got);
        proxies.push(s);
      } else if (s.kind === 'global') {
        this.item(s.header.index, 'global', 'kept', 'process settings are not modelled; kept as written');
      } else {
        this.item(s.header.index, sectionKey(s), 'kept', `${s.kind} sections are not modelled; kept as written`);
      }
    }
    // Backends (and listeners' server parts) first: frontends refer to them by name.
    for (const s of proxies) if (s.kind === 'backend') this.backend(s);
    for (const s of proxies) if (s.kind === 'listen') this.listen(s);
    for (const s of proxies) if (s.kind === 'frontend') this.frontend(s);
    this.givePorts();
    this.items.sort((a, b) => a.line - b.line);
    return {
      driver: 'haproxy',
      workspace: { lbdesk: 1, name: 'imported', servers: this.servers.list, groups: this.groups, services: this.services },
      items: this.items,
      sections: this.bindings.sort((a, b) => a.start - b.start),
    };
  }

  /** Lines of the section outside what lbdesk models, each reported (they stay as written). */
  private unmodelled(s: CfgSection, model: Set<string>): CfgLine[] {
    return s.body.filter((l) => {
      const k = l.first;
      if (!k || model.has(k) || NEUTRAL.has(k)) return false;
      if (k === 'tcp-request' && l.words.some((w) => w.text.includes('txn.lbdesk_sport'))) return false;
      return true;
    });
  }

  private backend(s: CfgSection, extraModel?: Set<string>): Backend | undefined {
    const settings = this.settings(s);
    const key = sectionKey(s);
    const serverLines = s.body.filter((l) => l.first === 'server');
    const parsed: { line: CfgLine; name: string; ep: Endpoint; opts: Map<string, string> }[] = [];
    const defaults = new Map<string, string>();
    for (const ds of settings.defaultServer) for (const [k, v] of serverOptions(ds)) defaults.set(k, v);
    for (const line of serverLines) {
      // Split afresh, not kept on the line: nothing later needs a server line's words.
      const w = splitWords(line.raw).map((x) => x.text);
      const ep = w[2] === undefined ? { why: 'server without an address (truncated line?)' } : parseEndpoint(w[2], false);
      if ('why' in ep) {
        this.item(s.header.index, key, 'kept', `server ${w[1] ?? ''} at line ${line.index + 1}: ${ep.why}; the section is kept as written`);
        return undefined;
      }
      if (isWildcard(ep.address)) {
        // `server next-hop 0.0.0.0` (option http_proxy, set-dst): each request names its own destination.
        this.item(s.header.index, key, 'kept', `server ${w[1] ?? ''} at line ${line.index + 1}: address ${ep.address} sends each connection where the request says (a proxy, not a server farm): not modelled; the section is kept as written`);
        return undefined;
      }
      const opts = new Map(defaults);
      serverOptions(w, 3).forEach((v, k) => opts.set(k, v));
      if (opts.has('disabled') && w.indexOf('enabled', 3) >= 0) opts.delete('disabled');
      parsed.push({ line, name: w[1]!, ep, opts });
    }
    if (s.kind === 'listen' && s.body.some((l) => l.first === 'stats')) {
      this.item(s.header.index, key, 'kept', 'statistics listener (stats): not modelled; kept as written');
      return undefined;
    }
    const notes: string[] = [];
    const group = this.groupNames.take(s.name);
    const anyCheck = parsed.some((p) => p.opts.has('check'));
    if (anyCheck && parsed.some((p) => !p.opts.has('check'))) notes.push('some servers are not checked; lbdesk checks every member of a group');
    const ssl = parsed.some((p) => p.opts.has('check-ssl') || (p.opts.has('ssl') && p.opts.has('check')));
    const first = parsed.find((p) => p.opts.has('check'));
    const tls = { ssl, verify: first?.opts.get('verify') === 'required', sni: first?.opts.get('check-sni') };
    const hc = importCheck(settings.checks, tls, anyCheck);
    notes.push(...hc.notes);
    // Timers: the group takes the first checked server's; servers that differ get their own.
    const t0 = first ? checkTimers(first.opts) : checkTimers(new Map());
    const timeout = this.checkTimeout(settings, t0, notes);
    const groupTimers = timersInput(t0, timeout, notes);
    const members: { server: string; port?: number; weight: number }[] = [];
    const sources: { line: number }[] = [];
    const portless: number[] = [];
    const taken = new Map<string, string>();
    for (const p of parsed) {
      // One member per server and port in lbdesk: a second line on the same address and port
      // (s1…s4 on one test server) stays as written, and HAProxy keeps balancing over it.
      const at = `${normalAddress(p.ep.address)}|${p.ep.port ?? ''}`;
      const earlier = taken.get(at);
      if (earlier !== undefined) {
        this.item(p.line.index, key, 'kept', `server ${p.name}: the same address and port as server ${earlier} (lbdesk has one member per server and port): not a member in lbdesk, the line stays as written`);
        notes.push(`server ${p.name} repeats ${earlier}'s address and port: kept as written, not a member`);
        continue;
      }
      taken.set(at, p.name);
      const t = checkTimers(p.opts);
      const weight = Number(p.opts.get('weight') ?? '1');
      if (p.opts.has('backup')) notes.push(`server ${p.name} is a backup server: lbdesk has none, the lab uses it as a member`);
      if (p.opts.has('port')) notes.push(`server ${p.name} is checked on port ${p.opts.get('port')}: lbdesk checks the member port`);
      if (p.opts.has('addr')) notes.push(`server ${p.name} is checked at ${p.opts.get('addr')}: lbdesk checks the member address`);
      const override = sameTimers(t, t0) ? undefined : timersInput(t, timeout, notes);
      const server = this.servers.add(p.name, p.ep.address, !p.opts.has('disabled'), override, notes);
      const member: { server: string; port?: number; weight: number } = { server, weight: Number.isInteger(weight) && weight >= 0 ? Math.min(weight, 256) : 1 };
      if (p.ep.port !== undefined) member.port = p.ep.port;
      else portless.push(members.length);
      members.push(member);
      sources.push({ line: p.line.index });
    }
    const g: GroupInput = { name: group, members, healthCheck: hc.check as GroupInput['healthCheck'] };
    if (portless.length && anyCheck) this.portless.push({ group: g, members: portless.map((i) => members[i]!), checkPort: first?.opts.get('port'), line: s.header.index, key });
    if (anyCheck) g.healthTimers = groupTimers;
    this.groups.push(g);
    const { algorithm, note } = balanceOf(settings, members.map((m) => m.weight));
    if (note) notes.push(note);
    const persistence = this.stick(s, notes);
    const backend: Backend = { section: s, group, settings, algorithm, persistence, notes };
    this.backends.set(s.name, backend);
    this.bindings.push({ key, start: s.header.index, end: s.end, group, services: [], members: sources });
    for (const l of this.unmodelled(s, extraModel ?? BACKEND_MODEL)) this.item(l.index, key, 'kept', `${l.first!}: not modelled; left as written in the section`);
    const checkNote = anyCheck ? `, ${String(hc.check.type).toUpperCase()} check` : ', no check';
    const summary = `${members.length} server${members.length === 1 ? '' : 's'}, ${algorithm}${checkNote}`;
    if (s.kind === 'backend') this.item(s.header.index, key, notes.length ? 'approximated' : 'imported', notes.length ? `${summary}; ${notes.join('; ')}` : summary);
    return backend;
  }

  /**
   * lbdesk checks a member on its port; one without a port gets the port its service listens on
   * (where HAProxy sends the traffic), else its check port; with neither it is not checked.
   */
  private givePorts(): void {
    for (const p of this.portless) {
      const svc = this.services.find((x) => x.group === p.group.name);
      const port = svc?.port ?? (p.checkPort ? Number(p.checkPort) : undefined);
      if (port !== undefined && Number.isInteger(port) && port >= 1 && port <= 65535) {
        for (const m of p.members) m.port = port;
        this.item(p.line, p.key, 'approximated', `servers without a port get the client's port in HAProxy; lbdesk gives them port ${port} (${svc ? `service ${svc.name}` : 'their check port'})`);
      } else {
        p.group.healthCheck = { type: 'none' } as GroupInput['healthCheck'];
        delete p.group.healthTimers;
        this.item(p.line, p.key, 'approximated', 'servers without a port and no service: not checked in the lab');
      }
    }
  }

  private checkTimeout(settings: ProxySettings, t: CheckTimers, notes: string[]): number {
    const check = settings.timeouts.get('check');
    if (check !== undefined) return clampMs(check, 100, 300_000, 'timeout check', notes);
    const connect = settings.timeouts.get('connect');
    const ms = Math.min(connect ?? t.inter, t.inter);
    notes.push(`no timeout check: lbdesk's check timeout is ${formatDuration(ms)} (HAProxy reads the answer for up to inter)`);
    return clampMs(ms, 100, 300_000, 'check timeout', notes);
  }

  private stick(s: CfgSection, notes: string[]): { type: 'client-ip'; timeout: string } | undefined {
    const on = s.body.find((l) => l.first === 'stick' && l.words[1]?.text === 'on');
    if (!on) return undefined;
    const w = on.words.map((x) => x.text);
    if (w[2] !== 'src' || w.length > 3) {
      notes.push(`${w.join(' ')}: only "stick on src" is modelled (client-ip persistence); left as written`);
      return undefined;
    }
    const table = s.body.find((l) => l.first === 'stick-table')?.words.map((x) => x.text) ?? [];
    const i = table.indexOf('expire');
    let ms = i > 0 ? haproxyTime(table[i + 1]) : undefined;
    if (ms === undefined) {
      notes.push('stick-table without expire: persistence timeout 24h in lbdesk');
      ms = 86_400_000;
    }
    return { type: 'client-ip', timeout: formatDuration(clampMs(ms, 1000, 86_400_000, 'persistence timeout', notes)) };
  }

  private listen(s: CfgSection): void {
    const key = sectionKey(s);
    const routing = this.routing(s);
    if (routing.length) {
      this.item(s.header.index, key, 'kept', `${routing.join(', ')}: not modelled; kept as written`);
      return;
    }
    const backend = this.backend(s, LISTEN_MODEL);
    if (!backend) return;
    const binding = this.bindings[this.bindings.length - 1]!;
    this.services_(s, backend, binding, backend.notes);
  }

  private frontend(s: CfgSection): void {
    const key = sectionKey(s);
    const routing = this.routing(s);
    const settings = this.settings(s);
    const target = settings.defaultBackend?.words[1]?.text;
    if (routing.length) {
      this.item(s.header.index, key, 'kept', `HTTP routing rules (${routing.join(', ')}) are not modelled; kept as written`);
      return;
    }
    if (!target) {
      this.item(s.header.index, key, 'kept', 'no default_backend: nothing to model; kept as written');
      return;
    }
    const backend = this.backends.get(target);
    if (!backend) {
      this.item(s.header.index, key, 'kept', `its default_backend ${target} is kept (or missing), so this frontend is kept as written`);
      return;
    }
    const binding: SectionBinding = { key, start: s.header.index, end: s.end, services: [], members: [] };
    const notes: string[] = [];
    if (this.services_(s, backend, binding, notes)) this.bindings.push(binding);
    for (const l of this.unmodelled(s, FRONTEND_MODEL)) this.item(l.index, key, 'kept', `${l.first!}: not modelled; left as written in the section`);
  }

  /** Keywords that route or rewrite traffic: a section using them is kept whole. */
  private routing(s: CfgSection): string[] {
    const found = new Set<string>();
    for (const l of s.body) {
      const k = l.first;
      if (!k) continue;
      if (ROUTING.has(k)) found.add(k);
      if (k === 'tcp-request' && !l.words.some((w) => w.text.includes('txn.lbdesk_sport'))) found.add(k);
      if (k === 'bind' && l.words.some((w) => w.text === 'ssl' || w.text === 'crt')) found.add('TLS termination (bind … ssl crt)');
    }
    return [...found];
  }

  /** One service per bind line; false (with kept rows) when a bind cannot be modelled. */
  private services_(s: CfgSection, backend: Backend, binding: SectionBinding, notes: string[]): boolean {
    const key = sectionKey(s);
    const settings = this.settings(s);
    const binds: { line: CfgLine; ep: Endpoint }[] = [];
    for (const l of s.body) {
      if (l.first !== 'bind') continue;
      const addrs = (l.words[1]?.text ?? '').split(',');
      if (addrs.length > 1) {
        this.item(l.index, key, 'kept', `bind ${l.words[1]!.text}: several addresses on one bind line are not modelled; the section is kept as written`);
        return false;
      }
      const ep = parseEndpoint(addrs[0]!, true);
      if ('why' in ep || ep.port === undefined) {
        this.item(l.index, key, 'kept', `bind ${l.words[1]?.text ?? ''}: ${'why' in ep ? ep.why : 'no port'}; the section is kept as written`);
        return false;
      }
      const opts = l.words.slice(2).map((w) => w.text);
      if (opts.length) notes.push(`bind options (${opts.join(' ')}) are not modelled; left as written`);
      binds.push({ line: l, ep });
    }
    if (!binds.length) {
      if (s.kind === 'listen') this.item(s.header.index, key, backend.notes.length ? 'approximated' : 'imported', `group ${backend.group} (no bind: no service); ${backend.notes.join('; ')}`);
      return s.kind === 'listen';
    }
    const client = settings.timeouts.get('client');
    const server = settings.timeouts.get('server') ?? backend.settings.timeouts.get('server');
    let idle = client ?? server;
    if (idle === undefined) {
      notes.push('no timeout client: idle timeout 24h in lbdesk');
      idle = 86_400_000;
    } else if (server !== undefined && client !== undefined && server !== client) {
      notes.push(`timeout client ${formatDuration(client)} and server ${formatDuration(server)} differ: idle timeout ${formatDuration(client)} in lbdesk`);
    }
    const idleTimeout = formatDuration(clampMs(idle, 1000, 86_400_000, 'idle timeout', notes));
    if (settings.mode === 'http') notes.push('mode http: the lab forwards TCP (HTTP processing stays on the appliance)');
    const disabled = s.body.some((l) => l.first === 'disabled');
    const names: string[] = [];
    for (const b of binds) {
      const name = this.serviceNames.take(s.name);
      names.push(name);
      const svc: ServiceInput = { name, address: b.ep.address, port: b.ep.port!, protocol: 'tcp', group: backend.group, algorithm: backend.algorithm as ServiceInput['algorithm'], idleTimeout };
      if (backend.persistence) svc.persistence = backend.persistence;
      if (disabled) svc.enabled = false;
      this.services.push(svc);
      binding.services.push({ name, line: b.line.index });
    }
    if (binds.length > 1) notes.push(`${binds.length} bind lines: one service each (${names.join(', ')})`);
    const all = s.kind === 'listen' ? notes : [...notes, ...backend.notes.filter((n) => n.includes('balance') || n.includes('stick'))];
    const summary = s.kind === 'listen'
      ? `service${names.length > 1 ? 's' : ''} ${names.join(', ')} on group ${backend.group}`
      : `service${names.length > 1 ? 's' : ''} ${names.join(', ')} to group ${backend.group}`;
    this.item(s.header.index, key, all.length ? 'approximated' : 'imported', all.length ? `${summary}; ${all.join('; ')}` : summary);
    return true;
  }
}

function haproxyTime(text: string | undefined): number | undefined {
  return text ? haproxyMs(text) : undefined;
}

function sameTimers(a: CheckTimers, b: CheckTimers): boolean {
  return a.inter === b.inter && a.fastinter === b.fastinter && a.rise === b.rise && a.fall === b.fall;
}

function timersInput(t: CheckTimers, timeout: number, notes: string[]): NonNullable<ServerInput['healthTimers']> {
  if (t.downinter !== t.fastinter) notes.push(`downinter ${formatDuration(t.downinter)} differs from fastinter ${formatDuration(t.fastinter)}: lbdesk has one retry interval (fastinter)`);
  const n = (v: number, what: string): number => Math.max(1, Math.min(255, v === 0 ? 1 : v)) === v ? v : (notes.push(`${what} ${v} out of range: clamped`), Math.max(1, Math.min(255, v)));
  return {
    interval: formatDuration(clampMs(t.inter, 100, 86_400_000, 'inter', notes)),
    retryInterval: formatDuration(clampMs(t.fastinter, 100, 86_400_000, 'fastinter', notes)),
    failAfter: n(t.fall, 'fall'),
    restoreAfter: n(t.rise, 'rise'),
    timeout: formatDuration(timeout),
  };
}

function balanceOf(settings: ProxySettings, weights: number[]): { algorithm: string; note?: string } {
  const w = settings.balance?.words.slice(1).map((x) => x.text) ?? ['roundrobin'];
  const equal = weights.every((x) => x === weights[0]);
  switch (w[0]) {
    case 'roundrobin': return { algorithm: 'weighted-round-robin' };
    case 'static-rr': return { algorithm: 'weighted-round-robin', note: 'balance static-rr: weighted round robin in lbdesk (weights can change at run time)' };
    case 'leastconn': return { algorithm: 'least-connections', note: equal ? undefined : 'balance leastconn weighs servers; lbdesk\'s least-connections does not' };
    case 'source': return { algorithm: 'source-hash', note: 'balance source hashes the client address; lbdesk\'s source-hash hashes address and port' };
    case 'hash':
      if (w[1] === 'src,concat(:,txn.lbdesk_sport)') return { algorithm: 'source-hash' };
      return { algorithm: 'source-hash', note: `balance hash ${w[1] ?? ''}: lbdesk's source-hash hashes the client address and port` };
    default: return { algorithm: 'weighted-round-robin', note: `balance ${w.join(' ')}: not modelled, weighted round robin in lbdesk; left as written` };
  }
}

export { isCheckLine };
export const _normalAddress = normalAddress;
