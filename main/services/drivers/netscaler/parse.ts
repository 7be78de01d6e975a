// A NetScaler (Citrix ADC) running config (`ns.conf`, `show ns runningConfig`) as objects: flat
// command lines, one per statement. lbdesk models servers, service groups and their member and
// monitor binds, lb vservers bound to a service group, and lb monitors; every other line is kept.
// Keywords are case-insensitive on the box; names and values are not. Lines are 0-based.
import { isIpAddress } from '../../../../shared/model/address';

export interface NsLine {
  n: number;
  /** The line as written (without a trailing CR). */
  text: string;
  /** Words; a double-quoted word keeps its spaces, quotes and backslash escapes removed. */
  words: string[];
}

export interface NsServer {
  name: string; address: string; line: NsLine; disabled: boolean; disabledBy?: NsLine;
  /** No `add server` line: a member bound by its address, which the box names the server by. */
  implicit?: boolean;
}
export interface NsMember { group: string; server: string; port: number; weight: number; line: NsLine }
export interface NsGroup { name: string; protocol: string; line: NsLine; members: NsMember[]; monitors: { name: string; line: NsLine }[] }
export interface NsVserver {
  name: string; protocol: string; address: string; port: number; line: NsLine;
  /** `-lbMethod` as written; none = LEASTCONNECTION, the box's default. */
  lbMethod?: string;
  persistence?: string;
  /** Service groups and services bound with `bind lb vserver V NAME`. */
  binds: { name: string; line: NsLine }[];
}
export interface NsMonitor { name: string; type: string; line: NsLine; opts: Map<string, string[]> }

export interface NsConfig {
  lines: string[];
  servers: NsServer[];
  groups: NsGroup[];
  vservers: NsVserver[];
  monitors: NsMonitor[];
  /** `add service NAME SERVER PROTO PORT`: one server port, not a group. */
  services: { name: string; server: string; line: NsLine }[];
  /** Lines read into the objects above other than their `add` line (binds, disables, sets). */
  modelled: Set<number>;
  others: NsLine[];
  /** The same object added twice: the later line is refused on a box, kept here with why. */
  again: NsLine[];
}

export const DEFAULT_LB_METHOD = 'LEASTCONNECTION';
/** A member's weight when its bind has no `-weight`. */
export const DEFAULT_WEIGHT = 1;

export function splitNsWords(text: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"?|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return words;
}

/** A name as the CLI takes it: quoted when it holds a space, a quote or a backslash. */
export function quoteNs(name: string): string {
  return /^[^\s"\\]+$/.test(name) ? name : `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** `-key value…` options after the positional words (a value may be several words: `-interval 2 MIN`). */
export function nsOptions(words: string[]): { positional: string[]; opts: Map<string, string[]> } {
  const positional: string[] = [];
  const opts = new Map<string, string[]>();
  let key: string | undefined;
  for (const w of words) {
    if (/^-[A-Za-z]/.test(w)) { key = w.slice(1).toLowerCase(); opts.set(key, []); continue; }
    if (key) opts.get(key)!.push(w);
    else positional.push(w);
  }
  return { positional, opts };
}

const lower = (w: string[], n: number) => w.slice(0, n).map((x) => x.toLowerCase()).join(' ');

export function parseNs(text: string): NsConfig {
  const lines = text.split('\n');
  const cfg: NsConfig = { lines, servers: [], groups: [], vservers: [], monitors: [], services: [], modelled: new Set(), others: [], again: [] };
  const later: NsLine[] = [];
  lines.forEach((raw, n) => {
    const t = raw.replace(/\r$/, '');
    if (t.trim() === '' || t.trim().startsWith('#') || t.trim() === 'Done') return;
    const l: NsLine = { n, text: t, words: splitNsWords(t.trim()) };
    const w = l.words;
    const { positional: p, opts } = nsOptions(w);
    const head = lower(w, 3);
    if (lower(w, 2) === 'add server' && p.length === 4) {
      if (cfg.servers.some((s) => s.name === p[2])) { cfg.again.push(l); return; }
      cfg.servers.push({ name: p[2]!, address: p[3]!, line: l, disabled: opts.get('state')?.[0]?.toUpperCase() === 'DISABLED' });
    } else if (lower(w, 2) === 'add servicegroup' && p.length === 4) {
      if (cfg.groups.some((g) => g.name === p[2])) { cfg.again.push(l); return; }
      cfg.groups.push({ name: p[2]!, protocol: p[3]!, line: l, members: [], monitors: [] });
    } else if (head === 'add lb vserver' && p.length === 7 && /^\d+$/.test(p[6]!)) {
      if (cfg.vservers.some((v) => v.name === p[3])) { cfg.again.push(l); return; }
      cfg.vservers.push({ name: p[3]!, protocol: p[4]!, address: p[5]!, port: Number(p[6]), line: l, lbMethod: opts.get('lbmethod')?.[0], persistence: opts.get('persistencetype')?.[0], binds: [] });
    } else if (head === 'add lb monitor' && p.length === 5) {
      cfg.monitors.push({ name: p[3]!, type: p[4]!, line: l, opts });
    } else if (lower(w, 2) === 'add service' && p.length === 6) {
      cfg.services.push({ name: p[2]!, server: p[3]!, line: l });
      cfg.others.push(l);
    } else later.push(l);
  });
  // Binds and disables may come before the objects they name (hand-ordered configs): read after.
  for (const l of later) {
    const w = l.words;
    const { positional: p, opts } = nsOptions(w);
    const group = cfg.groups.find((g) => g.name === p[2]);
    if (lower(w, 2) === 'bind servicegroup' && group && p.length === 5 && isIpAddress(p[3]!) && !cfg.servers.some((s) => s.name === p[3])) {
      cfg.servers.push({ name: p[3]!, address: p[3]!, line: l, disabled: false, implicit: true });
    }
    const server = cfg.servers.find((s) => s.name === p[2]);
    if (lower(w, 2) === 'bind servicegroup' && group && p.length === 5 && /^\d+$/.test(p[4]!) && cfg.servers.some((s) => s.name === p[3])) {
      group.members.push({ group: group.name, server: p[3]!, port: Number(p[4]), weight: Number(opts.get('weight')?.[0] ?? DEFAULT_WEIGHT), line: l });
      cfg.modelled.add(l.n);
    } else if (lower(w, 2) === 'bind servicegroup' && group && p.length === 3 && opts.get('monitorname')?.length === 1 && opts.size === 1) {
      group.monitors.push({ name: opts.get('monitorname')![0]!, line: l });
      cfg.modelled.add(l.n);
    } else if (lower(w, 3) === 'bind lb vserver' && cfg.vservers.some((v) => v.name === p[3]) && ((p.length === 5 && opts.size === 0) || (p.length === 4 && opts.size === 1 && opts.get('servicegroupname')?.length === 1))) {
      cfg.vservers.find((v) => v.name === p[3])!.binds.push({ name: p[4] ?? opts.get('servicegroupname')![0]!, line: l });
      cfg.modelled.add(l.n);
    } else if (lower(w, 2) === 'disable server' && server && p.length === 3) {
      server.disabled = true;
      server.disabledBy = l;
      cfg.modelled.add(l.n);
    } else cfg.others.push(l);
  }
  cfg.others.sort((a, b) => a.n - b.n);
  return cfg;
}
