// What a tmsh command does to the running config's text, as `tmsh show running-config` prints it
// afterwards: new objects in name order among their kind, properties in name order within their
// block (as tmsh sorts them), pool members in name order; everything else untouched. It refuses
// what tmsh refuses (a node still a pool member, a pool still a virtual's, a missing object), with
// tmsh's own error numbers, so the test box and `render --onto` agree.
import { braceDelta, fullName, quoteF5, scanObjects, splitF5Words, unquote, type F5Object } from './parse';

export { fullName };

export class F5EditError extends Error {}

/** A parsed command argument: a word, or a `{ … }` group. */
type Token = string | Token[];

/** An entry as tmsh prints it: `words` alone, `words { }`, or `words {` children `}`. */
export interface PrintEntry { words: string[]; children?: PrintEntry[] }

const VERBS = new Set(['add', 'delete', 'modify', 'replace-all-with', 'none']);
/** Groups that list named things (each optionally with its own properties). */
const LISTS = new Set(['members', 'profiles', 'rules', 'persist', 'vlans', 'policies', 'records']);
const FLAGS = new Set(['ip-forward', 'l2-forward', 'vlans-enabled', 'vlans-disabled', 'reject', 'internal', 'disabled', 'enabled']);

export function tokens(text: string): Token[] {
  const stack: Token[][] = [[]];
  for (const w of splitF5Words(text)) {
    if (w === '{') { const g: Token[] = []; stack[stack.length - 1]!.push(g); stack.push(g); } else if (w === '}') {
      if (stack.length === 1) throw new F5EditError(`Syntax Error: "}" unexpected`);
      stack.pop();
    } else stack[stack.length - 1]!.push(w);
  }
  if (stack.length !== 1) throw new F5EditError('Syntax Error: missing "}"');
  return stack[0]!;
}

const word = (t: Token | undefined): string | undefined => (typeof t === 'string' ? t : undefined);

/** `key value`, `key { … }`, `key verb { … }`, a flag: the properties of a command or group. */
export function props(ts: Token[]): (PrintEntry & { verb?: string })[] {
  const out: (PrintEntry & { verb?: string })[] = [];
  for (let i = 0; i < ts.length; i++) {
    const key = word(ts[i]);
    if (key === undefined) throw new F5EditError('Syntax Error: a "{ }" group where a property name was expected');
    const next = ts[i + 1];
    if (Array.isArray(next)) { out.push({ words: [key], children: LISTS.has(key) ? list(key, next) : props(next) }); i++; continue; }
    if (next !== undefined && VERBS.has(next) && Array.isArray(ts[i + 2])) { out.push({ words: [key], verb: next, children: list(key, ts[i + 2] as Token[]) }); i += 2; continue; }
    if (next === 'none' && LISTS.has(key)) { out.push({ words: [key], verb: 'none' }); i++; continue; }
    if (FLAGS.has(key)) { out.push({ words: [key] }); continue; }
    if (key === 'monitor' && next === 'min' && Array.isArray(ts[i + 4])) {
      // `monitor min 1 of { /Common/http }`: tmsh prints it on one line.
      out.push({ words: [key, 'min', word(ts[i + 2]) ?? '', 'of', '{', ...(ts[i + 4] as Token[]).map((x) => word(x) ?? ''), '}'] });
      i += 4;
      continue;
    }
    if (key === 'monitor') {
      const v: string[] = [];
      for (i++; i < ts.length; i++) { v.push(word(ts[i]) ?? ''); if (ts[i + 1] !== 'and') break; v.push('and'); i++; }
      out.push({ words: [key, ...v] });
      continue;
    }
    if (next === undefined) throw new F5EditError(`Syntax Error: "${key}" requires a value`);
    out.push({ words: [key, next] });
    i++;
  }
  return out;
}

function list(key: string, ts: Token[]): PrintEntry[] {
  const out: PrintEntry[] = [];
  for (let i = 0; i < ts.length; i++) {
    const name = word(ts[i]);
    if (name === undefined) throw new F5EditError(`Syntax Error: a name was expected in "${key}"`);
    const next = ts[i + 1];
    if (Array.isArray(next)) { out.push({ words: [name], children: props(next) }); i++; } else out.push({ words: [name], ...(key === 'rules' || key === 'vlans' ? {} : { children: [] }) });
  }
  return out;
}

export function printEntry(e: PrintEntry, indent: string): string[] {
  const head = indent + e.words.join(' ');
  if (!e.children) return [head];
  if (!e.children.length) return [`${head} { }`];
  return [`${head} {`, ...sortEntries(e.children).flatMap((c) => printEntry(c, `${indent}    `)), `${indent}}`];
}

/** tmsh lists properties by name, and an object's `metadata` after them. */
const sortKey = (w: string) => (w === 'metadata' ? '\uffff' : w);
const sortEntries = (es: PrintEntry[]) => [...es].sort((a, b) => (sortKey(a.words[0]!) < sortKey(b.words[0]!) ? -1 : sortKey(a.words[0]!) > sortKey(b.words[0]!) ? 1 : 0));

/** `/Common/web1:80` -> node `/Common/web1`, port `80`. */
export function memberNode(name: string): { node: string; port: string } {
  const i = name.lastIndexOf(name.split(':').length > 2 ? '.' : ':');
  return { node: name.slice(0, i), port: name.slice(i + 1) };
}


interface Child { n: number; end: number; words: string[] }

export class F5Text {
  lines: string[];
  constructor(text: string) { this.lines = text.split('\n'); }
  get text(): string { return this.lines.join('\n'); }

  objects(): F5Object[] { return scanObjects(this.lines).objects; }
  find(kind: string, name: string): F5Object | undefined { return this.objects().find((o) => o.kind === kind && fullName(o.name) === fullName(name)); }

  /** The entries directly inside the block whose head is line `head` and closing brace `end`. */
  children(head: number, end: number): Child[] {
    const out: Child[] = [];
    for (let i = head + 1; i < end; i++) {
      if (this.lines[i]!.trim() === '') continue;
      let d = braceDelta(this.lines[i]!);
      let e = i;
      while (d > 0 && e + 1 < end) { e++; d += braceDelta(this.lines[e]!); }
      out.push({ n: i, end: e, words: splitF5Words(this.lines[i]!.trim()) });
      i = e;
    }
    return out;
  }

  private indentOf(n: number): string { return /^\s*/.exec(this.lines[n]!)![0]; }

  /** A one-line `x { }` block opened onto two lines, so entries can go in; its new end. */
  private open(head: number, end: number): number {
    if (head !== end) return end;
    const l = this.lines[head]!;
    const m = /^(.*?)\s*\{\s*\}\s*$/.exec(l);
    if (!m) throw new F5EditError(`cannot open "${l.trim()}"`);
    this.lines.splice(head, 1, `${m[1]} {`, `${this.indentOf(head)}}`);
    return head + 1;
  }

  /** Inserts an entry among the block's entries in name order (as tmsh lists them). */
  insert(head: number, end: number, e: PrintEntry): void {
    end = this.open(head, end);
    const at = this.children(head, end).find((c) => sortKey(c.words[0]!) > sortKey(e.words[0]!))?.n ?? end;
    this.lines.splice(at, 0, ...printEntry(e, `${this.indentOf(head)}    `));
  }

  /** Sets `key value` in the block (replacing the line where it is), or drops it when value is undefined. */
  set(head: number, end: number, key: string, value: string[] | undefined): void {
    const have = this.children(head, end).find((c) => c.words[0] === key);
    if (have) this.lines.splice(have.n, have.end - have.n + 1);
    if (value === undefined) { this.collapse(head); return; }
    const e2 = this.blockEnd(head);
    if (have) this.lines.splice(have.n, 0, `${this.indentOf(head)}    ${[key, ...value].join(' ')}`);
    else this.insert(head, e2, { words: [key, ...value] });
  }

  /** A block left with no entries prints as `x { }`. */
  private collapse(head: number): void {
    const end = this.blockEnd(head);
    if (end === head + 1 && /\{\s*$/.test(this.lines[head]!)) this.lines.splice(head, 2, `${this.lines[head]!.replace(/\s*\{\s*$/, '')} { }`);
  }

  blockEnd(head: number): number {
    let d = braceDelta(this.lines[head]!);
    let e = head;
    while (d > 0 && e + 1 < this.lines.length) { e++; d += braceDelta(this.lines[e]!); }
    return e;
  }

  /** A new top-level object, after the objects of its kind whose names sort before it. */
  create(kind: string, name: string, body: PrintEntry[]): void {
    const objs = this.objects();
    const same = objs.filter((o) => o.kind === kind);
    const after = same.filter((o) => o.name < name).pop() ?? (same.length ? undefined : objs.filter((o) => o.kind < kind && o.kind.split(' ')[0] === kind.split(' ')[0]).pop());
    const before = same.find((o) => o.name > name);
    let at: number;
    if (before && (!after || after.head < before.head)) at = before.head;
    else if (after) at = after.end + 1;
    else {
      const first = objs.find((o) => o.kind > kind);
      at = first ? first.head : this.lines.length - (this.lines[this.lines.length - 1] === '' ? 1 : 0);
    }
    this.lines.splice(at, 0, ...printEntry({ words: [kind, quoteF5(name)], children: body }, ''));
  }

  remove(o: F5Object): void { this.lines.splice(o.head, o.end - o.head + 1); }
}

/** The objects a command names: `ltm node`, `ltm pool`, `ltm virtual`, `ltm monitor http`… */
function kindOf(head: string[]): { kind: string } | undefined {
  if (head[0] !== 'ltm') return undefined;
  if (['node', 'pool', 'virtual'].includes(head[1]!)) return { kind: `ltm ${head[1]}` };
  if ((head[1] === 'monitor' || head[1] === 'persistence' || head[1] === 'profile') && head[2]) return { kind: `ltm ${head[1]} ${head[2]}` };
  return undefined;
}

const notFound = (kind: string, name: string) => new F5EditError(`01020036:3: The requested ${kind === 'ltm node' ? 'node' : kind === 'ltm pool' ? 'pool' : kind.replace(/^ltm /, '')} (${name}) was not found.`);

/** Applies one tmsh config command (`create|modify|delete ltm …`) to the text; throws what tmsh prints. */
export function applyF5Command(t: F5Text, command: string): void {
  const ts = tokens(command.trim().replace(/^tmsh\s+/, ''));
  const verb = word(ts[0]);
  const head = ts.slice(1, 4).map((x) => word(x) ?? '');
  const k = kindOf(head);
  if (!verb || !['create', 'modify', 'delete'].includes(verb) || !k) throw new F5EditError(`Syntax Error: "${[verb, ...head].join(' ')}" unknown command`);
  const kc = k.kind.split(' ').length;
  const rawName = word(ts[1 + kc]);
  if (!rawName) throw new F5EditError(`Syntax Error: ${k.kind} requires a name`);
  const name = fullName(rawName);
  const rest = ts.slice(2 + kc);
  const ps = props(rest.length === 1 && Array.isArray(rest[0]) ? rest[0] : rest);
  const obj = t.find(k.kind, name);
  const objs = () => t.objects();
  if (verb === 'delete') {
    if (!obj) throw notFound(k.kind, name);
    if (k.kind === 'ltm node') {
      const user = objs().find((o) => o.kind === 'ltm pool' && poolMembers(t, o).some((m) => fullName(memberNode(m.name).node) === name));
      if (user) throw new F5EditError(`01070110:3: Node address '${name}' is referenced by a member of pool '${user.name}'.`);
    }
    if (k.kind === 'ltm pool') {
      const user = objs().find((o) => o.kind === 'ltm virtual' && t.children(o.head, o.end).some((c) => c.words[0] === 'pool' && fullName(c.words[1] ?? '') === name));
      if (user) throw new F5EditError(`01070265:3: The Pool (${name}) cannot be deleted because it is in use by a Virtual Server (${user.name}).`);
    }
    t.remove(obj);
    return;
  }
  if (verb === 'create') {
    if (obj) throw new F5EditError(`01020066:3: The requested ${k.kind.replace(/^ltm /, '')} (${name}) already exists in partition ${name.split('/')[1]}.`);
    if (k.kind === 'ltm node' && !ps.some((p) => p.words[0] === 'address' || p.words[0] === 'fqdn')) throw new F5EditError(`01070734:3: Configuration error: a node needs an address (${name})`);
    const body: PrintEntry[] = [];
    for (const p of ps) {
      if (p.words[0] === 'members') body.push({ words: ['members'], children: (p.children ?? []).map((m) => withAddress(t, m)) });
      else if (p.words[0] === 'pool' && k.kind === 'ltm virtual') { if (!t.find('ltm pool', p.words[1]!)) throw notFound('ltm pool', fullName(p.words[1]!)); body.push({ words: ['pool', p.words[1]!] }); }
      else if (p.words[0] === 'profiles') body.push({ words: ['profiles'], children: (p.children ?? []).map((c) => ({ words: [fullName(c.words[0]!)], children: c.children ?? [] })) });
      else if (p.words[0] === 'session' && p.words[1] === 'user-enabled') continue;
      else if (p.words[0] === 'load-balancing-mode' && p.words[1] === 'round-robin') continue;
      else body.push({ words: p.words, ...(p.children ? { children: p.children } : {}) });
    }
    t.create(k.kind, unquote(rawName), body);
    return;
  }
  if (!obj) throw notFound(k.kind, name);
  for (const p of ps) modifyProp(t, k.kind, name, p);
}

/** A member added with no address takes its node's; a node not there is created (as tmsh does). */
function withAddress(t: F5Text, m: PrintEntry): PrintEntry {
  const { node, port } = memberNode(unquote(m.words[0]!));
  if (!port || !(/^\d+$/.test(port) || port === 'any')) throw new F5EditError(`01070587:3: The requested pool member (${m.words[0]}) needs a port.`);
  const props = (m.children ?? []).filter((c) => !(c.words[0] === 'session' && c.words[1] === 'user-enabled') && !(c.words[0] === 'ratio' && c.words[1] === '1'));
  const nodeObj = t.find('ltm node', node);
  let address = props.find((c) => c.words[0] === 'address')?.words[1];
  if (!nodeObj && !address) throw notFound('ltm node', node);
  if (nodeObj) {
    const have = t.children(nodeObj.head, nodeObj.end).find((c) => c.words[0] === 'address')?.words[1];
    if (address && have && address !== have) throw new F5EditError(`01070734:3: Configuration error: pool member ${node}:${port} address ${address} differs from its node's ${have}`);
    address = have ?? address;
  } else t.create('ltm node', node, [{ words: ['address', address!] }]);
  return { words: [`${node}:${port}`], children: [...props.filter((c) => c.words[0] !== 'address'), { words: ['address', address!] }] };
}

function poolMembers(t: F5Text, pool: F5Object): (Child & { name: string })[] {
  const ms = t.children(pool.head, pool.end).find((c) => c.words[0] === 'members');
  return ms ? t.children(ms.n, ms.end).map((c) => ({ ...c, name: unquote(c.words[0]!) })) : [];
}

function modifyProp(t: F5Text, kind: string, name: string, p: PrintEntry & { verb?: string }): void {
  const obj = () => t.find(kind, name)!;
  const [key, ...value] = p.words as [string, ...string[]];
  if (key === 'members' && kind === 'ltm pool') {
    const ms = () => t.children(obj().head, obj().end).find((c) => c.words[0] === 'members');
    if (p.verb === 'none' || p.verb === 'replace-all-with') { const m = ms(); if (m) t.lines.splice(m.n, m.end - m.n + 1); t.set(obj().head, obj().end, 'members', undefined); if (p.verb === 'none') return; }
    for (const m of p.children ?? []) {
      const mname = fullName(m.words[0]!);
      const block = ms();
      const have = block ? t.children(block.n, block.end).find((c) => fullName(c.words[0]!) === mname) : undefined;
      const missing = () => new F5EditError(`01020036:3: The requested pool member (${name} ${memberNode(mname).node} ${memberNode(mname).port}) was not found.`);
      if (p.verb === 'delete') { if (!have) throw missing(); t.lines.splice(have.n, have.end - have.n + 1); const b = ms()!; if (b.end === b.n + 1) t.lines.splice(b.n, 2); continue; }
      if (p.verb === 'modify') {
        if (!have) throw missing();
        for (const c of m.children ?? []) {
          const [k2, v2] = c.words;
          const drop = (k2 === 'ratio' && v2 === '1') || (k2 === 'session' && v2 === 'user-enabled') || (k2 === 'state' && v2 === 'user-up');
          const cur = t.children(block!.n, t.blockEnd(block!.n)).find((x) => fullName(x.words[0]!) === mname)!;
          t.set(cur.n, cur.end, k2!, drop ? undefined : c.words.slice(1));
        }
        continue;
      }
      if (have) throw new F5EditError(`01020066:3: The requested pool member (${name} ${memberNode(mname).node} ${memberNode(mname).port}) already exists.`);
      const e = withAddress(t, { words: [m.words[0]!], children: m.children ?? [] });
      const b = ms();
      if (b) t.insert(b.n, b.end, e);
      else t.insert(obj().head, obj().end, { words: ['members'], children: [e] });
    }
    return;
  }
  if (p.children) throw new F5EditError(`Syntax Error: "${key}" cannot be modified by lbdesk's model of tmsh`);
  const o = obj();
  if (key === 'pool' && kind === 'ltm virtual' && value[0] !== 'none' && !t.find('ltm pool', value[0]!)) throw notFound('ltm pool', fullName(value[0]!));
  const dropped = (key === 'session' && value[0] === 'user-enabled') || (key === 'load-balancing-mode' && value[0] === 'round-robin') || (key === 'state' && value[0] === 'user-up') || value[0] === 'none';
  t.set(o.head, o.end, key, dropped ? undefined : value);
}

/** The running config after a list of tmsh commands (as `render --onto` shows it). */
export function applyF5Commands(text: string, commands: string[]): string {
  const t = new F5Text(text);
  for (const c of commands) applyF5Command(t, c);
  return t.text;
}
