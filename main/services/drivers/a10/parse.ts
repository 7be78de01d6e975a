// An A10 Thunder/AX (ACOS 2.x and 4.x) `show running-config` as objects: `slb server`,
// `slb service-group`, `slb virtual-server` and `health monitor` blocks with the lines lbdesk
// models, every other statement kept with its lines. Lines are 0-based; a block runs from its
// head to the next top-level line; `!` lines are separators or comments.
import { splitAdxWords } from '../adx/parse';

export { splitAdxWords as splitA10Words, quoteName } from '../adx/parse';

export interface A10Line { n: number; text: string; words: string[]; indent: number }

export interface A10Port { port: number; proto: string; line: A10Line; disabled: boolean }

export interface A10Server {
  name: string;
  address: string;
  head: A10Line;
  body: A10Line[];
  disabled: boolean;
  weight?: number;
  ports: A10Port[];
  /** `health-check NAME`; `health-check-disable` / `no health-check` (ACOS 2) set `checkOff`. */
  healthCheck?: string;
  checkOff: boolean;
  unmodelled: A10Line[];
}

export interface A10Member {
  server: string;
  port: number;
  line: A10Line;
  /** The line and its nested lines (4.x `disable`, `priority 1`). */
  lines: A10Line[];
  disabled: boolean;
  /** ACOS 2.x `member s1:80` (on one line) or 4.x `member s1 80` (a sub-mode). */
  form: 2 | 4;
}

export interface A10Group {
  name: string;
  protocol: string;
  head: A10Line;
  body: A10Line[];
  /** `method X` (4.x) or `lb-method X`; the word the box used. */
  method?: { word: string; value: string };
  healthCheck?: string;
  checkOff: boolean;
  members: A10Member[];
  unmodelled: A10Line[];
}

export interface A10VPort {
  port: number;
  proto: string;
  /** The first head; `entries` each head with its lines, in order (a port may be entered again). */
  line: A10Line;
  entries: A10Line[][];
  /** `port 80 tcp range 10`: a range of virtual ports (not modelled), as the last head says. */
  range?: number;
  serviceGroup?: string;
  disabled: boolean;
  unmodelled: A10Line[];
}

export interface A10Virtual { name: string; address: string; head: A10Line; body: A10Line[]; disabled: boolean; ports: A10VPort[]; unmodelled: A10Line[] }

export interface A10Monitor {
  name: string;
  head: A10Line;
  body: A10Line[];
  method?: { type: string; port?: number; path?: string; words: string[] };
  timers: { interval?: number; retry?: number; timeout?: number; upRetry?: number };
  unmodelled: A10Line[];
}

export interface A10Other { head: A10Line; body: A10Line[] }

export interface A10Config {
  lines: string[];
  /** 2 when the header says `!version 2.` or a member is written `s1:80`; else 4. */
  acos: 2 | 4;
  servers: A10Server[];
  groups: A10Group[];
  virtuals: A10Virtual[];
  monitors: A10Monitor[];
  others: A10Other[];
  /** The same object entered again: the later block's line; `was` the address it had before, when it changed. */
  reentered: { line: number; kind: string; name: string; was?: string }[];
}

const num = (w: string | undefined) => (w !== undefined && /^\d+$/.test(w) ? Number(w) : undefined);

/** `port 80 tcp` (server and virtual port heads). */
function portHead(w: string[]): { port: number; proto: string } | undefined {
  const port = num(w[1]);
  return w[0] === 'port' && port !== undefined && w[2] ? { port, proto: w[2] } : undefined;
}

/** `member s1 80` (4.x) or `member s1:80 [disable] [priority N]` (2.x). */
export function memberHead(w: string[]): { server: string; port: number; form: 2 | 4; rest: string[] } | undefined {
  if (w[0] !== 'member' || !w[1]) return undefined;
  const p4 = num(w[2]);
  if (p4 !== undefined) return { server: w[1], port: p4, form: 4, rest: w.slice(3) };
  const m = /^(.+):(\d+)$/.exec(w[1]);
  return m ? { server: m[1]!, port: Number(m[2]), form: 2, rest: w.slice(2) } : undefined;
}

/** A block's body as first-level lines, each with its deeper-indented lines. */
function nest(body: A10Line[]): { line: A10Line; kids: A10Line[] }[] {
  const out: { line: A10Line; kids: A10Line[] }[] = [];
  const base = body[0]?.indent ?? 0;
  for (const l of body) {
    if (l.indent > base && out.length) out[out.length - 1]!.kids.push(l);
    else out.push({ line: l, kids: [] });
  }
  return out;
}

function serverOf(o: A10Server): void {
  for (const { line: l, kids } of nest(o.body)) {
    const w = l.words;
    const p = portHead(w);
    if (p) {
      const port: A10Port = { ...p, line: l, disabled: false };
      if (!o.ports.some((x) => x.port === p.port && x.proto === p.proto)) o.ports.push(port);
      if (w.length > 3) o.unmodelled.push(l);   // `port 80 tcp range 10`: port 80 modelled, the range kept
      for (const k of kids) if (k.words.join(' ') === 'disable') port.disabled = true; else if (k.words.join(' ') !== 'enable') o.unmodelled.push(k);
      continue;
    }
    o.unmodelled.push(...kids);
    const s = w.join(' ');
    if (s === 'disable') o.disabled = true;
    else if (s === 'enable') o.disabled = false;
    else if (w[0] === 'weight' && num(w[1]) !== undefined && w.length === 2) o.weight = num(w[1]);
    else if (w[0] === 'health-check' && w[1] && w.length === 2) { o.healthCheck = w[1]; o.checkOff = false; }
    else if (s === 'health-check-disable' || s === 'no health-check') o.checkOff = true;
    else o.unmodelled.push(l);
  }
}

function groupOf(o: A10Group): void {
  for (const { line: l, kids } of nest(o.body)) {
    const w = l.words;
    const m = memberHead(w);
    if (m) {
      const member: A10Member = { server: m.server, port: m.port, line: l, lines: [l, ...kids], disabled: false, form: m.form };
      const flags = m.form === 2 ? m.rest : kids.map((k) => k.words.join(' '));
      for (const f of flags) if (f === 'disable') member.disabled = true; else if (f === 'enable') member.disabled = false;
      o.members.push(member);
      continue;
    }
    o.unmodelled.push(...kids);
    if ((w[0] === 'method' || w[0] === 'lb-method') && w[1]) o.method = { word: w[0], value: w.slice(1).join(' ') };
    else if (w[0] === 'health-check' && w[1] && w.length === 2) { o.healthCheck = w[1]; o.checkOff = false; }
    else if (w.join(' ') === 'health-check-disable' || w.join(' ') === 'no health-check') o.checkOff = true;
    else o.unmodelled.push(l);
  }
}

function virtualOf(o: A10Virtual): void {
  for (const { line: l, kids } of nest(o.body)) {
    const p = portHead(l.words);
    const range = l.words[3] === 'range' && num(l.words[4]) !== undefined && l.words.length === 5 ? num(l.words[4]) : undefined;
    if (p && (l.words.length === 3 || range !== undefined)) {
      // Entered again (as ACOS allows): one port; the later head sets or clears the range.
      let vp = o.ports.find((x) => x.port === p.port && x.proto === p.proto);
      if (!vp) { vp = { ...p, line: l, entries: [], disabled: false, unmodelled: [] }; o.ports.push(vp); }
      vp.entries.push([l, ...kids]);
      if (range !== undefined) vp.range = range; else delete vp.range;
      for (const k of kids) {
        if (k.words[0] === 'service-group' && k.words[1] && k.words.length === 2) vp.serviceGroup = k.words[1];
        else if (k.words.join(' ') === 'disable') { vp.disabled = true; vp.unmodelled.push(k); }
        else if (k.words.join(' ') === 'enable') { vp.disabled = false; vp.unmodelled.push(k); }
        else vp.unmodelled.push(k);
      }
      continue;
    }
    o.unmodelled.push(...kids);
    if (l.words.join(' ') === 'disable') { o.disabled = true; o.unmodelled.push(l); } else o.unmodelled.push(l);
  }
}

function monitorOf(o: A10Monitor, headWords: string[]): void {
  // ACOS 2.x puts the timers on the head: `health monitor HM1 interval 5 retry 3 timeout 5 up-retry 9`.
  const timers = (w: string[]): boolean => {
    let any = false;
    for (let i = 0; i + 1 < w.length; i += 2) {
      const v = num(w[i + 1]);
      const k = ({ interval: 'interval', retry: 'retry', timeout: 'timeout', 'up-retry': 'upRetry' } as const)[w[i] as 'interval'];
      if (!k || v === undefined) return false;
      o.timers[k] = v;
      any = true;
    }
    return any && w.length % 2 === 0;
  };
  timers(headWords.slice(3));
  for (const { line: l, kids } of nest(o.body)) {
    o.unmodelled.push(...kids);
    const w = l.words;
    if (w[0] === 'method' && w[1]) {
      const at = (k: string) => { const i = w.indexOf(k); return i > 1 ? w[i + 1] : undefined; };
      const url = w.indexOf('url');
      o.method = { type: w[1], port: num(at('port')), ...(url > 1 && w[url + 2] ? { path: w[url + 2] } : {}), words: w };
    } else if (!timers(w)) o.unmodelled.push(l);
  }
}

export function parseA10(text: string): A10Config {
  const lines = text.split('\n');
  const cfg: A10Config = { lines, acos: /^!.*\bversion 2\.\d/m.test(text) ? 2 : 4, servers: [], groups: [], virtuals: [], monitors: [], others: [], reentered: [] };
  let body: A10Line[] | undefined;
  const blocks: { kind: string; head: A10Line; body: A10Line[] }[] = [];
  lines.forEach((raw, n) => {
    const t = raw.replace(/\r$/, '');
    if (t.trim() === '') return;
    if (/^\s*!/.test(t)) { if (/^!/.test(t)) body = undefined; return; }
    const indent = /^\s*/.exec(t)![0].length;
    const l: A10Line = { n, text: t, words: splitAdxWords(t.trim()), indent };
    if (indent > 0 && body) { body.push(l); return; }
    const w = l.words;
    const kind = w[0] === 'slb' && ['server', 'service-group', 'virtual-server'].includes(w[1]!) && w[2] ? w[1]!
      : w[0] === 'health' && w[1] === 'monitor' && w[2] ? 'monitor' : 'other';
    const b = { kind, head: l, body: [] as A10Line[] };
    blocks.push(b);
    body = b.body;
  });
  for (const b of blocks) {
    const w = b.head.words;
    const name = w[2]!;
    // Entered again (with or without its address): one object; a new address is the later one, as on the box.
    const again = <T extends { name: string; body: A10Line[]; address?: string }>(list: T[]): T | undefined => {
      const o = list.find((x) => x.name === name);
      if (!o) return undefined;
      const moved = o.address !== undefined && w[3] !== undefined && w.length === 4 && w[3] !== o.address ? o.address : undefined;
      if (moved !== undefined) o.address = w[3]!;
      cfg.reentered.push({ line: b.head.n, kind: b.kind, name, ...(moved !== undefined ? { was: moved } : {}) });
      o.body.push(...b.body);
      return o;
    };
    if (b.kind === 'server' && (again(cfg.servers) || (w[3] && w.length === 4))) {
      if (!cfg.servers.some((x) => x.name === name)) cfg.servers.push({ name, address: w[3]!, head: b.head, body: b.body, disabled: false, ports: [], checkOff: false, unmodelled: [] });
    } else if (b.kind === 'service-group' && (again(cfg.groups) || w.length <= 4)) {
      if (!cfg.groups.some((x) => x.name === name)) cfg.groups.push({ name, protocol: w[3] ?? 'tcp', head: b.head, body: b.body, checkOff: false, members: [], unmodelled: [] });
    } else if (b.kind === 'virtual-server' && (again(cfg.virtuals) || (w[3] && w.length === 4))) {
      if (!cfg.virtuals.some((x) => x.name === name)) cfg.virtuals.push({ name, address: w[3]!, head: b.head, body: b.body, disabled: false, ports: [], unmodelled: [] });
    } else if (b.kind === 'monitor') {
      if (!again(cfg.monitors)) cfg.monitors.push({ name, head: b.head, body: b.body, timers: {}, unmodelled: [] });
    } else cfg.others.push({ head: b.head, body: b.body });
  }
  // Re-entered blocks were appended to the first one's body: read each object once, whole.
  for (const o of cfg.servers) serverOf(o);
  for (const o of cfg.groups) groupOf(o);
  for (const o of cfg.virtuals) virtualOf(o);
  for (const o of cfg.monitors) monitorOf(o, o.head.words);
  if (cfg.groups.some((g) => g.members.some((m) => m.form === 2))) cfg.acos = 2;
  return cfg;
}
