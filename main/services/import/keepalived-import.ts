// keepalived.conf -> workspace: each `virtual_server IP PORT` becomes a service and its group,
// each real_server a member (servers shared by address); VRRP and the rest are kept.
import { formatDuration } from '../../../shared/model/duration';
import { isIpAddress } from '../../../shared/model/address';
import { parseKeepalivedText, TOP_LEVEL, type KaNode } from './keepalived-parse';
import { followIncludes } from './keepalived-include';
import { realFolderOf } from '../files/read';
import { dirname, resolve } from 'node:path';
import { NameSpace } from './names';
import { clampMs, Servers } from './common';
import { ImportError, type GroupInput, type ImportResult, type IncludedText, type ReportItem, type SectionBinding, type ServiceInput } from './types';

const ALGO: Record<string, { algorithm: string; note?: string }> = {
  rr: { algorithm: 'round-robin' },
  wrr: { algorithm: 'weighted-round-robin' },
  lc: { algorithm: 'least-connections' },
  wlc: { algorithm: 'health-weighted', note: 'lb_algo wlc: lbdesk\'s health-weighted (weighted least connections, preferring available servers) in the lab' },
  sh: { algorithm: 'source-hash' },
};
const CHECKERS: Record<string, string> = {
  TCP_CHECK: 'tcp', HTTP_GET: 'http', SSL_GET: 'https', SMTP_CHECK: 'smtp', DNS_CHECK: 'dns', UDP_CHECK: 'udp', PING_CHECK: 'ping',
};
/** Virtual-server keywords lbdesk reads; others are reported and left as written. */
const VS_MODEL = new Set(['protocol', 'lb_algo', 'lvs_sched', 'lb_kind', 'lvs_method', 'persistence_timeout', 'delay_loop', 'real_server', 'alpha', 'omega', 'sh-port', 'sh-fallback', 'retry', 'delay_before_retry', 'connect_timeout', 'warmup']);
const RS_MODEL = new Set(['weight', 'inhibit_on_failure', ...Object.keys(CHECKERS), 'MISC_CHECK', 'FILE_CHECK', 'BFD_CHECK', 'retry', 'delay_before_retry', 'connect_timeout', 'delay_loop', 'warmup']);

export interface KeepalivedImportOptions {
  taken?: { servers?: Iterable<string>; groups?: Iterable<string>; services?: Iterable<string> };
  /** Servers the workspace has: reused by address. */
  existingServers?: { name: string; address: string }[];
  /** Follow `include` statements (reading files relative to the config); off for stdin-less callers. */
  includes?: boolean;
  /** Real path of the main file, for include-loop detection. */
  realPath?: string;
}

interface Timers {
  interval: number;
  retryInterval: number;
  failAfter: number;
  timeout: number;
}

export function importKeepalived(text: string, file: string, opts: KeepalivedImportOptions = {}): ImportResult & { fromIncludes: string[]; included: IncludedText[] } {
  const main = parseKeepalivedText(text, file);
  const first = main.nodes[0];
  if (!first) throw new ImportError(file, 1, 'no keepalived statement: not a keepalived.conf');
  if (!main.nodes.some((n) => TOP_LEVEL.has(n.words[0]!))) {
    throw new ImportError(file, first.line + 1, `"${first.words[0]}" is not a keepalived keyword (expected global_defs, vrrp_instance, virtual_server…): not a keepalived.conf`);
  }
  const within = opts.realPath ? dirname(opts.realPath) : realFolderOf(resolve(file));
  const included = opts.includes === false ? [] : followIncludes(main.nodes, opts.realPath ? [opts.realPath] : [], within);
  const imp = new KeepalivedImporter(opts);
  imp.lines.set(file, main.lines);
  for (const inc of included) imp.lines.set(inc.file, inc.lines);
  imp.globals([...main.nodes, ...included.flatMap((f) => f.nodes)]);
  imp.nodes(main.nodes, true);
  for (const inc of included) {
    imp.item(inc.from.file, inc.from.line, `include ${inc.from.words[1]}`, 'imported', `followed: ${inc.file}`);
    imp.nodes(inc.nodes, false);
  }
  return { ...imp.result(), included: included.map((f) => ({ file: f.file, text: f.lines.join('\n') })) };
}

class KeepalivedImporter {
  private readonly items: ReportItem[] = [];
  private readonly bindings: SectionBinding[] = [];
  private readonly servers: Servers;
  private readonly groupNames: NameSpace;
  private readonly serviceNames: NameSpace;
  private readonly groups: GroupInput[] = [];
  private readonly services: ServiceInput[] = [];
  /** Services from included files: in the workspace, but not this appliance's to write. */
  readonly fromIncludes: string[] = [];
  private idle = { tcp: 900_000, udp: 300_000 };

  readonly lines = new Map<string, string[]>();

  constructor(opts: KeepalivedImportOptions) {
    this.servers = new Servers(opts.taken?.servers, opts.existingServers);
    this.groupNames = new NameSpace(opts.taken?.groups);
    this.serviceNames = new NameSpace(opts.taken?.services);
  }

  item(file: string, line: number, section: string, outcome: ReportItem['outcome'], detail: string): void {
    this.items.push({ file, line: line + 1, section, outcome, detail });
  }

  /** global_defs lvs_timeouts: the host's IPVS idle timeouts. */
  globals(nodes: KaNode[]): void {
    for (const n of nodes) {
      if (n.words[0] !== 'global_defs') continue;
      for (const c of n.children ?? []) {
        if (c.words[0] !== 'lvs_timeouts') continue;
        for (let i = 1; i + 1 < c.words.length; i += 2) {
          const s = Number(c.words[i + 1]);
          if (c.words[i] === 'tcp' && s > 0) this.idle.tcp = s * 1000;
          if (c.words[i] === 'udp' && s > 0) this.idle.udp = s * 1000;
        }
      }
    }
  }

  nodes(nodes: KaNode[], main: boolean): void {
    for (const n of nodes) {
      const k = n.words[0]!;
      const key = n.words.join(' ');
      if (k === 'include') continue;
      if (k === 'virtual_server') this.virtualServer(n, main);
      else if (k === 'global_defs') this.item(n.file, n.line, key, 'kept', 'global settings are not modelled (lvs_timeouts read as idle timeouts); kept as written');
      else if (k.startsWith('vrrp_')) this.item(n.file, n.line, key, 'kept', 'VRRP (virtual addresses, failover) is not modelled; kept as written');
      else if (k === 'virtual_server_group') this.item(n.file, n.line, key, 'kept', 'virtual_server_group is not modelled; kept as written');
      else if (TOP_LEVEL.has(k)) this.item(n.file, n.line, key, 'kept', `${k} is not modelled; kept as written`);
      else this.item(n.file, n.line, key, 'kept', `unknown keyword "${k}": kept as written`);
    }
  }

  private virtualServer(n: KaNode, main: boolean): void {
    const key = n.words.join(' ');
    const [, address, portText] = n.words;
    if (address === 'fwmark' || address === 'group') {
      this.item(n.file, n.line, key, 'kept', `virtual_server ${address} is not modelled (lbdesk services are one address and port); kept as written`);
      return;
    }
    const port = Number(portText);
    if (!address || !isIpAddress(address) || !Number.isInteger(port) || port < 1 || port > 65535) {
      this.item(n.file, n.line, key, 'kept', 'virtual_server needs an IP address and a port to be modelled; kept as written');
      return;
    }
    const body = n.children ?? [];
    const get = (k: string): string[] | undefined => body.find((c) => c.words[0] === k)?.words;
    const protocol = (get('protocol')?.[1] ?? 'TCP').toUpperCase();
    if (protocol !== 'TCP' && protocol !== 'UDP') {
      this.item(n.file, n.line, key, 'kept', `protocol ${protocol} is not modelled (TCP and UDP are); kept as written`);
      return;
    }
    const notes: string[] = [];
    const algoWord = get('lb_algo')?.[1] ?? get('lvs_sched')?.[1] ?? 'wlc';
    let algo = ALGO[algoWord] ?? { algorithm: 'weighted-round-robin', note: `lb_algo ${algoWord}: not modelled, weighted round robin in the lab; left as written` };
    if (algoWord === 'sh' && !get('sh-port')) algo = { algorithm: 'source-hash', note: 'lb_algo sh without sh-port hashes the client address; lbdesk\'s source-hash hashes address and port' };
    if (algo.note) notes.push(algo.note);
    const kind = (get('lb_kind')?.[1] ?? get('lvs_method')?.[1] ?? 'NAT').toUpperCase();
    if (kind !== 'NAT') notes.push(`lb_kind ${kind}: the lab forwards (NAT-like); left as written`);
    const vsDelay = seconds(get('delay_loop')?.[1]);
    const real = body.filter((c) => c.words[0] === 'real_server' && c.children);
    for (const c of body) {
      const k = c.words[0]!;
      if (!VS_MODEL.has(k)) this.item(c.file, c.line, key, 'kept', `${k}: not modelled (${k === 'sorry_server' ? 'no sorry servers in lbdesk' : 'lbdesk has no such setting'}); left as written in the section`);
    }
    const named = this.commentName(n, /^#\s*service (\S+): \S+ over group (\S+)/);
    const group = this.groupNames.take(named?.[2] ?? `vs-${address}-${port}`);
    const members: { server: string; port?: number; weight: number }[] = [];
    const sources: { line: number }[] = [];
    let checkType: string | undefined;
    let check: Record<string, unknown> = { type: 'none' };
    let groupTimers: Timers | undefined;
    for (const rs of real) {
      const [, ra, rp] = rs.words;
      if (!ra || !isIpAddress(ra)) {
        this.item(rs.file, rs.line, key, 'kept', `real_server ${ra ?? ''}: not an IP address; the section is kept as written`);
        return;
      }
      const rport = rp === undefined ? undefined : Number(rp);
      const children = rs.children ?? [];
      const weight = Number(children.find((c) => c.words[0] === 'weight')?.words[1] ?? '1');
      const checkers = children.filter((c) => c.children && (CHECKERS[c.words[0]!] || /_CHECK$/.test(c.words[0]!)));
      if (checkers.length > 1) notes.push(`real_server ${ra} ${rp ?? ''} has ${checkers.length} checkers: lbdesk models the first`);
      const ck = checkers[0];
      let timers: Timers = { interval: vsDelay ?? 60_000, retryInterval: 1000, failAfter: 2, timeout: 5000 };
      if (ck) {
        const type = CHECKERS[ck.words[0]!];
        if (!type) {
          this.item(ck.file, ck.line, key, 'kept', `${ck.words[0]}: ${ck.words[0] === 'MISC_CHECK' ? 'check scripts are' : 'this checker is'} not modelled; left as written (the lab uses the group's check)`);
        } else {
          const imported = this.checker(ck, type, notes);
          if (checkType === undefined) {
            checkType = type;
            check = imported;
          } else if (JSON.stringify(imported) !== JSON.stringify(check)) {
            notes.push(`real_server ${ra}: its ${ck.words[0]} differs from the first server's; lbdesk has one check per group`);
          }
        }
        timers = checkerTimers(ck.children ?? [], body, vsDelay);
      }
      for (const c of children) {
        if (!RS_MODEL.has(c.words[0]!) && !(c.children && /_CHECK$/.test(c.words[0]!))) this.item(c.file, c.line, key, 'kept', `${c.words[0]}: not modelled; left as written in the section`);
      }
      groupTimers ??= timers;
      const override = sameTimers(timers, groupTimers) ? undefined : timersInput(timers, notes);
      const name = this.commentName(rs, /^#\s*(\S+)(?: \(.*\))?$/)?.[1] ?? ra;
      const server = this.servers.add(name, ra, true, override, notes);
      const member: { server: string; port?: number; weight: number } = { server, weight: Number.isInteger(weight) && weight >= 0 ? Math.min(weight, 65535) : 1 };
      if (rport !== undefined && rport >= 1 && rport <= 65535) member.port = rport;
      members.push(member);
      sources.push({ line: rs.line });
    }
    const g: GroupInput = { name: group, members, healthCheck: check as GroupInput['healthCheck'] };
    if (groupTimers && checkType) g.healthTimers = timersInput(groupTimers, notes);
    this.groups.push(g);
    const service = this.serviceNames.take(named?.[1] ?? `vs-${address}-${port}`);
    const proto = protocol === 'UDP' ? 'udp' : 'tcp';
    const svc: ServiceInput = {
      name: service, address, port, protocol: proto, group, algorithm: algo.algorithm as ServiceInput['algorithm'],
      idleTimeout: formatDuration(clampMs(this.idle[proto], 1000, 86_400_000, 'idle timeout', notes)),
    };
    const persist = get('persistence_timeout')?.[1];
    if (persist !== undefined && Number(persist) > 0) svc.persistence = { type: 'client-ip', timeout: formatDuration(clampMs(Number(persist) * 1000, 1000, 86_400_000, 'persistence_timeout', notes)) };
    this.services.push(svc);
    if (main) this.bindings.push({ key, start: n.line, end: n.endLine + 1, group, services: [{ name: service, line: n.line }], members: sources });
    else {
      this.fromIncludes.push(service);
      notes.push('in an included file: in the workspace and the lab, but left out of the appliance\'s include list (lbdesk writes only the main file)');
    }
    const summary = `service ${service}, group ${group}: ${members.length} real server${members.length === 1 ? '' : 's'}, ${algo.algorithm}, ${checkType ? `${checkType.toUpperCase()} check` : 'no check'}`;
    this.item(n.file, n.line, key, notes.length ? 'approximated' : 'imported', notes.length ? `${summary}; ${[...new Set(notes)].join('; ')}` : summary);
  }

  /** lbdesk's own renders name things in the comment just above a block. */
  private commentName(n: KaNode, re: RegExp): RegExpExecArray | undefined {
    const lines = this.lines.get(n.file) ?? [];
    for (let i = n.line - 1; i >= 0 && /^\s*#/.test(lines[i] ?? ''); i--) {
      const m = re.exec(lines[i]!.trim());
      if (m) return m;
    }
    return undefined;
  }

  private checker(ck: KaNode, type: string, notes: string[]): Record<string, unknown> {
    const check: Record<string, unknown> = { type };
    const body = ck.children ?? [];
    if (type === 'http' || type === 'https') {
      const urls = body.filter((c) => c.words[0] === 'url');
      if (urls.length > 1) notes.push(`${ck.words[0]} has ${urls.length} url blocks: lbdesk checks the first`);
      const url = urls[0]?.children ?? [];
      const http: Record<string, unknown> = {};
      const path = url.find((c) => c.words[0] === 'path')?.words[1];
      const status = url.find((c) => c.words[0] === 'status_code')?.words.slice(1).join(' ');
      if (path && !(path === '/' && status === '100-599')) http.path = path.startsWith('/') ? path : `/${path}`;
      if (url.some((c) => c.words[0] === 'digest')) notes.push('url digest (MD5 of the page): not modelled, lbdesk checks the status; left as written');
      if (status && status !== '100-599' && status !== '200-299' && status !== '200') notes.push(`status_code ${status}: lbdesk expects a 2xx status`);
      const regex = url.find((c) => c.words[0] === 'regex')?.words[1];
      if (regex) {
        const literal = unregex(regex);
        if (literal !== undefined) http.expect = literal;
        else notes.push(`regex ${regex}: not modelled (lbdesk looks for a plain string); left as written`);
      }
      const host = body.find((c) => c.words[0] === 'virtualhost')?.words[1];
      if (host) http.host = host;
      if (Object.keys(http).length) check.http = http;
    } else if (type === 'dns') {
      const t = body.find((c) => c.words[0] === 'type')?.words[1] ?? 'SOA';
      const name = body.find((c) => c.words[0] === 'name')?.words[1] ?? '.';
      check.dns = { query: name, recordType: t.toUpperCase() };
    }
    const port = body.find((c) => c.words[0] === 'connect_port')?.words[1];
    if (port) notes.push(`${ck.words[0]} connect_port ${port}: lbdesk checks the member port`);
    return check;
  }

  result(): ImportResult & { fromIncludes: string[] } {
    this.items.sort((a, b) => (a.file === b.file ? a.line - b.line : 0));
    return {
      driver: 'keepalived',
      workspace: { lbdesk: 1, name: 'imported', servers: this.servers.list, groups: this.groups, services: this.services },
      items: this.items,
      sections: this.bindings,
      fromIncludes: this.fromIncludes,
    };
  }
}

function seconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

function checkerTimers(body: KaNode[], vs: KaNode[], vsDelay: number | undefined): Timers {
  const get = (k: string): string | undefined => body.find((c) => c.words[0] === k)?.words[1] ?? vs.find((c) => c.words[0] === k)?.words[1];
  const retry = Number(get('retry') ?? get('nb_get_retry') ?? '1');
  return {
    interval: seconds(body.find((c) => c.words[0] === 'delay_loop')?.words[1]) ?? vsDelay ?? 60_000,
    retryInterval: seconds(get('delay_before_retry')) ?? 1000,
    failAfter: Number.isInteger(retry) && retry >= 0 ? retry + 1 : 2,
    timeout: seconds(get('connect_timeout')) ?? 5000,
  };
}

function sameTimers(a: Timers, b: Timers): boolean {
  return a.interval === b.interval && a.retryInterval === b.retryInterval && a.failAfter === b.failAfter && a.timeout === b.timeout;
}

function timersInput(t: Timers, notes: string[]): NonNullable<GroupInput['healthTimers']> {
  return {
    interval: formatDuration(clampMs(t.interval, 100, 86_400_000, 'delay_loop', notes)),
    retryInterval: formatDuration(clampMs(t.retryInterval, 100, 86_400_000, 'delay_before_retry', notes)),
    failAfter: Math.min(255, Math.max(1, t.failAfter)),
    restoreAfter: 1,
    timeout: formatDuration(clampMs(t.timeout, 100, 300_000, 'connect_timeout', notes)),
  };
}

/** The plain string a PCRE pattern matches literally, if it is one (as lbdesk renders expect). */
function unregex(pattern: string): string | undefined {
  const s = pattern.replace(/\\\\/g, '\\').replace(/\\x22/g, '"');
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length && /[\\^$.|?*+()[\]{}/]/.test(s[i + 1]!)) {
      out += s[++i];
    } else if (/[\\^$.|?*+()[\]{}]/.test(c)) return undefined;
    else out += c;
  }
  return out || undefined;
}
