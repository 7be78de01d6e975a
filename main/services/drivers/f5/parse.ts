// An F5 BIG-IP running config (`bigip.conf`, `tmsh show running-config` / `tmsh list ltm`) as
// objects: top-level `module kind /Partition/name { ... }` blocks found by brace depth (an iRule's
// Tcl may start at column 0), and for the LTM objects lbdesk models (node, pool, virtual, monitor)
// a tree of their lines. Lines are 0-based; an object runs from its head to its closing brace.

/** One property line of a block: its words (quotes kept), and its own block when it opens one. */
export interface F5Entry {
  n: number;
  words: string[];
  children?: F5Entry[];
}

export interface F5Object {
  /** `ltm node`, `ltm monitor http`, `sys global-settings`: the head's words before the name. */
  kind: string;
  /** `/Common/web1`; '' for a singleton (`ltm default-node-monitor`). */
  name: string;
  head: number;
  /** The line of the closing brace (the head for a one-line object). */
  end: number;
  body: F5Entry[];
}

export interface F5Member {
  /** `/Common/web1:80` as printed. */
  name: string;
  node: string;
  port: string;
  address?: string;
  ratio: number;
  /** `session user-disabled`. */
  disabled: boolean;
  /** `state user-down` (forced offline). */
  down: boolean;
  entry: F5Entry;
  /** Properties lbdesk does not model (connection-limit, priority-group, a member's own monitor…). */
  other: F5Entry[];
}

export interface F5Pool { obj: F5Object; mode?: string; monitor?: string[]; members: F5Member[]; other: F5Entry[] }
export interface F5Node { obj: F5Object; address?: string; disabled: boolean; other: F5Entry[] }
export interface F5Virtual { obj: F5Object; address?: string; port?: string; protocol?: string; pool?: string; persist: string[]; other: F5Entry[] }
export interface F5Monitor { obj: F5Object; type: string; props: Map<string, string> }

export interface F5Config {
  lines: string[];
  objects: F5Object[];
  nodes: F5Node[];
  pools: F5Pool[];
  virtuals: F5Virtual[];
  monitors: F5Monitor[];
  /** Objects lbdesk does not model. */
  others: F5Object[];
  /** The same object defined twice: the second head's line. */
  reentered: { line: number; kind: string; name: string }[];
  /** Lines outside every object that are not blank or comments (a broken file). */
  stray: number[];
}

/** Words of a line: a double-quoted word keeps its quotes and backslash escapes; braces are words. */
export function splitF5Words(text: string): string[] {
  const words: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"?|[{}]|[^\s{}"]+(?:"(?:[^"\\]|\\.)*"?[^\s{}"]*)*/g;
  for (let m = re.exec(text); m; m = re.exec(text)) words.push(m[0]);
  return words;
}

/** A quoted word without its quotes and escapes (`"GET /\r\n"` -> `GET /\r\n` as typed). */
export function unquote(word: string): string {
  return word.startsWith('"') ? word.slice(1, word.endsWith('"') && word.length > 1 ? -1 : undefined).replace(/\\"/g, '"') : word;
}

/** A name as a full path: `web1` (tmsh lists names relative to the current folder) -> `/Common/web1`. */
export function fullName(name: string, partition = 'Common'): string {
  const n = unquote(name);
  return n.startsWith('/') ? n : `/${partition}/${n}`;
}

/** How a name is written: quoted when it holds a space. */
export function quoteF5(name: string): string {
  return /^[^\s"{}]+$/.test(name) ? name : `"${name.replace(/"/g, '\\"')}"`;
}

/** Brace depth change of one line, braces inside quotes and after a backslash not counted. */
export function braceDelta(line: string): number {
  let d = 0;
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') { i++; continue; }
    if (c === '"') q = !q;
    else if (!q && c === '{') d++;
    else if (!q && c === '}') d--;
  }
  return d;
}

const MODULES = /^(ltm|sys|net|auth|apm|asm|gtm|security|pem|cm|analytics|ilx|wom|vcmp|cli|afm|avr|fpga|ilx)$/;

/** The objects of a file: each top-level line opening a block, to the line its brace closes. */
export function scanObjects(lines: string[]): { objects: F5Object[]; stray: number[] } {
  const objects: F5Object[] = [];
  const stray: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.replace(/\r$/, '');
    if (t.trim() === '' || /^\s*#/.test(t)) continue;
    const words = splitF5Words(t);
    const open = words.indexOf('{');
    if (open < 0 || /^\s/.test(t)) { stray.push(i); continue; }
    let depth = braceDelta(t);
    let end = i;
    while (depth > 0 && end + 1 < lines.length) { end++; depth += braceDelta(lines[end]!); }
    const headWords = words.slice(0, open);
    const named = headWords.length > 1 && /^\/|^[^a-z]|\//.test(headWords[headWords.length - 1]!) || (headWords.length > 2 && MODULES.test(headWords[0]!) && isNamedKind(headWords));
    const name = named ? unquote(headWords[headWords.length - 1]!) : '';
    const kind = (named ? headWords.slice(0, -1) : headWords).join(' ');
    objects.push({ kind, name, head: i, end, body: end === i ? entriesOf(words.slice(open)) : tree(lines, i + 1, end) });
    i = end;
  }
  return { objects, stray };
}

/** `ltm node web1` (pre-11 names without a partition): the kinds whose last head word is a name. */
function isNamedKind(w: string[]): boolean {
  const kind = w.slice(0, -1).join(' ');
  return /^ltm (node|pool|virtual|virtual-address|rule|snatpool|monitor \S+|profile \S+|persistence \S+|policy)$/.test(kind);
}

/** Entries of a one-line block: `{ address 1.2.3.4 }` -> one entry of its words. */
function entriesOf(words: string[]): F5Entry[] {
  const inner = words.slice(1, words[words.length - 1] === '}' ? -1 : undefined);
  return inner.length ? [{ n: -1, words: inner }] : [];
}

/** The entries of the lines from..to (exclusive), nested by their braces. */
function tree(lines: string[], from: number, to: number): F5Entry[] {
  const out: F5Entry[] = [];
  for (let i = from; i < to; i++) {
    const t = lines[i]!.replace(/\r$/, '');
    if (t.trim() === '') continue;
    const words = splitF5Words(t.trim());
    const open = words.indexOf('{');
    if (open < 0) { if (words[0] !== '}') out.push({ n: i, words }); continue; }
    let depth = braceDelta(t);
    if (depth <= 0) {
      // `name { }` or `name { a b }` on one line.
      out.push({ n: i, words: words.slice(0, open), children: entriesOf(words.slice(open)) });
      continue;
    }
    let end = i;
    while (depth > 0 && end + 1 < to) { end++; depth += braceDelta(lines[end]!); }
    out.push({ n: i, words: words.slice(0, open), children: tree(lines, i + 1, end) });
    i = end;
  }
  return out;
}

/** The single value of a property line (`address 192.0.2.1`), unquoted. */
export function prop(body: F5Entry[], key: string): string | undefined {
  const e = body.find((x) => x.words[0] === key && !x.children);
  return e && e.words.length >= 2 ? unquote(e.words.slice(1).join(' ')) : undefined;
}

/** `/Common/192.0.2.100:80`, `192.0.2.1%2.80` (route domain), `[2001:db8::1]:443`, `2001:db8::1.443`. */
export function splitDestination(dest: string): { address: string; port: string } | undefined {
  const s = dest.replace(/^\/[^/]+\/(?:[^/]+\/)?/, '');
  let m = /^(.*?)(?:%\d+)?[:.](\d+|any)$/.exec(s);
  if (s.includes(':') && s.split(':').length > 2) m = /^(.*?)(?:%\d+)?\.(\d+|any)$/.exec(s);
  if (!m) return undefined;
  return { address: m[1]!.replace(/^\[|\]$/g, ''), port: m[2]! };
}

/** `monitor /Common/http and /Common/tcp`, `monitor min 1 of { /Common/http }`: the monitor names. */
export function monitorNames(words: string[]): string[] {
  return words.slice(1).filter((w) => w !== 'and' && w !== '{' && w !== '}' && w !== 'min' && w !== 'of' && !/^\d+$/.test(w));
}

function member(e: F5Entry): F5Member {
  const [name] = e.words;
  const i = name!.lastIndexOf(name!.includes('.') && name!.split(':').length > 2 ? '.' : ':');
  const body = e.children ?? [];
  const m: F5Member = { name: unquote(name!), node: unquote(name!.slice(0, i)), port: name!.slice(i + 1), ratio: 1, disabled: false, down: false, entry: e, other: [] };
  for (const p of body) {
    const [k, v] = p.words;
    if (k === 'address' && v && !p.children) m.address = v.replace(/%\d+$/, '');
    else if (k === 'ratio' && v && /^\d+$/.test(v)) m.ratio = Number(v);
    else if (k === 'session' && v) { m.disabled = v === 'user-disabled'; if (v !== 'user-disabled' && v !== 'user-enabled' && v !== 'monitor-enabled') m.other.push(p); }
    else if (k === 'state' && v) { m.down = v === 'user-down'; if (v !== 'user-down' && v !== 'user-up' && v !== 'up' && v !== 'down') m.other.push(p); }
    else m.other.push(p);
  }
  return m;
}

export function parseF5(text: string): F5Config {
  const lines = text.split('\n');
  const { objects, stray } = scanObjects(lines);
  const cfg: F5Config = { lines, objects, nodes: [], pools: [], virtuals: [], monitors: [], others: [], reentered: [], stray };
  const seen = new Set<string>();
  for (const obj of objects) {
    const key = `${obj.kind} ${obj.name}`;
    if (obj.name && seen.has(key) && /^ltm (node|pool|virtual)$/.test(obj.kind)) { cfg.reentered.push({ line: obj.head, kind: obj.kind, name: obj.name }); continue; }
    seen.add(key);
    if (obj.kind === 'ltm node' && obj.name) {
      const n: F5Node = { obj, address: prop(obj.body, 'address')?.replace(/%\d+$/, ''), disabled: prop(obj.body, 'session') === 'user-disabled', other: [] };
      for (const e of obj.body) if (!['address', 'session', 'state'].includes(e.words[0]!) || e.children) n.other.push(e);
      cfg.nodes.push(n);
    } else if (obj.kind === 'ltm pool' && obj.name) {
      const p: F5Pool = { obj, mode: prop(obj.body, 'load-balancing-mode'), members: [], other: [] };
      for (const e of obj.body) {
        if (e.words[0] === 'members' && e.children) p.members.push(...e.children.filter((c) => c.words.length === 1).map(member));
        else if (e.words[0] === 'monitor') p.monitor = monitorNames([...e.words, ...(e.children ?? []).flatMap((c) => c.words)]);
        else if (e.words[0] !== 'load-balancing-mode') p.other.push(e);
      }
      cfg.pools.push(p);
    } else if (obj.kind === 'ltm virtual' && obj.name) {
      const d = prop(obj.body, 'destination');
      const dest = d ? splitDestination(d) : undefined;
      const v: F5Virtual = { obj, ...dest, protocol: prop(obj.body, 'ip-protocol'), pool: prop(obj.body, 'pool'), persist: [], other: [] };
      for (const e of obj.body) {
        if (e.words[0] === 'persist' && e.children) v.persist = e.children.map((c) => unquote(c.words[0]!));
        else if (!['destination', 'ip-protocol', 'pool'].includes(e.words[0]!)) v.other.push(e);
      }
      cfg.virtuals.push(v);
    } else if (obj.kind.startsWith('ltm monitor ') && obj.name) {
      const props = new Map<string, string>();
      for (const e of obj.body) if (!e.children && e.words.length >= 2) props.set(e.words[0]!, unquote(e.words.slice(1).join(' ')));
      cfg.monitors.push({ obj, type: obj.kind.slice('ltm monitor '.length), props });
    } else cfg.others.push(obj);
  }
  return cfg;
}
