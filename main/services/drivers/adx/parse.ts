// An ADX (ServerIron) `show running-config` as objects: `server real` and `server virtual`
// blocks with the lines lbdesk models, every other statement kept with its lines. Lines are
// 0-based; a block runs from its head to the line before the next top-level line or `!`.

/** One line split into words; a double-quoted word keeps its spaces (quotes removed). */
export interface AdxLine {
  n: number;
  text: string;
  words: string[];
}

export interface RealPort {
  name: string;
  line: number;
  disabled: boolean;
  /** `port P keepalive` (true), `no port P keepalive` (false), neither (undefined). */
  keepalive?: boolean;
  l4Only: boolean;
  /** `port P url "HEAD /"`. */
  url?: { method: string; path: string };
}

export interface AdxReal {
  name: string;
  address: string;
  /** `server remote-name`: a real server beyond a router; the same block, bound the same way. */
  remote: boolean;
  head: AdxLine;
  body: AdxLine[];
  disabled: boolean;
  weight?: { words: string[] };
  ports: Map<string, RealPort>;
  /** Body lines lbdesk does not model (kept on the box). */
  unmodelled: AdxLine[];
}

export interface Bind { vport: string; real: string; rport: string; line: number }

export interface VirtualPort { name: string; line: number; sticky: boolean; disabled: boolean }

export interface AdxVirtual {
  name: string;
  address: string;
  head: AdxLine;
  body: AdxLine[];
  predictor?: string;
  ports: Map<string, VirtualPort>;
  binds: Bind[];
  unmodelled: AdxLine[];
}

/** A top-level statement lbdesk does not model, with its indented lines. */
export interface AdxOther { head: AdxLine; body: AdxLine[] }

export interface AdxConfig {
  lines: string[];
  reals: AdxReal[];
  virtuals: AdxVirtual[];
  others: AdxOther[];
  /** The same object entered twice: the second block's line and the first's name. */
  reentered: { line: number; kind: 'real' | 'virtual'; name: string }[];
}

export function splitAdxWords(text: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) words.push(m[1] ?? m[2]!);
  return words;
}

/** A name as the CLI takes it: quoted when it holds a space or a quote-worthy character. */
export function quoteName(name: string): string {
  return /^[^\s"]+$/.test(name) ? name : `"${name.replace(/"/g, '')}"`;
}

function realBody(real: AdxReal, l: AdxLine): void {
  const w = l.words;
  const port = (name: string): RealPort => {
    let p = real.ports.get(name);
    if (!p) { p = { name, line: l.n, disabled: false, l4Only: false }; real.ports.set(name, p); }
    return p;
  };
  if (w[0] === 'port' && w[1] && w.length === 2) { port(w[1]); return; }
  if (w[0] === 'port' && w[1] && w[1] !== 'default') {
    const p = port(w[1]);
    if (w[2] === 'keepalive' && w.length === 3) { p.keepalive = true; return; }
    if (w[2] === 'disable' && w.length === 3) { p.disabled = true; real.unmodelled.push(l); return; }
    if (w[2] === 'l4-check-only' && w.length === 3) { p.l4Only = true; return; }
    if (w[2] === 'url' && w[3] !== undefined && w.length === 4) {
      const [method, path] = w[3].trim().split(/\s+/);
      p.url = { method: path === undefined ? 'GET' : method!, path: path ?? method ?? '/' };
      return;
    }
  }
  if (w[0] === 'no' && w[1] === 'port' && w[2] && w[3] === 'keepalive' && w.length === 4) { port(w[2]).keepalive = false; return; }
  if (w[0] === 'weight' && w.length >= 2 && w.slice(1).every((x) => /^\d+$/.test(x))) { real.weight = { words: w.slice(1) }; return; }
  if (w[0] === 'disable' && w.length === 1) { real.disabled = true; return; }
  if (w[0] === 'enable' && w.length === 1) { real.disabled = false; return; }
  real.unmodelled.push(l);
}

function virtualBody(v: AdxVirtual, l: AdxLine): void {
  const w = l.words;
  const port = (name: string): VirtualPort => {
    let p = v.ports.get(name);
    if (!p) { p = { name, line: l.n, sticky: false, disabled: false }; v.ports.set(name, p); }
    return p;
  };
  if (w[0] === 'port' && w[1] && w[1] !== 'default' && w.length === 2) { port(w[1]); return; }
  if (w[0] === 'port' && w[1] && w[1] !== 'default' && w[2] === 'sticky' && w.length === 3) { port(w[1]).sticky = true; return; }
  if (w[0] === 'port' && w[1] && w[1] !== 'default' && w[2] === 'disable' && w.length === 3) { port(w[1]).disabled = true; v.unmodelled.push(l); return; }
  if (w[0] === 'bind' && w[1] && w.length >= 4 && w.length % 2 === 0) {
    // A bind typed again (a re-entered block) is the same bind on the box.
    for (let i = 2; i + 1 < w.length; i += 2) {
      if (!v.binds.some((b) => b.vport === w[1] && b.real === w[i] && b.rport === w[i + 1])) v.binds.push({ vport: w[1], real: w[i]!, rport: w[i + 1]!, line: l.n });
    }
    return;
  }
  if (w[0] === 'no' && w[1] === 'port' && w[2] && w[2] !== 'default' && w[3] === 'sticky' && w.length === 4) { port(w[2]).sticky = false; return; }
  if (w[0] === 'predictor' && w[1] && w.length === 2) { v.predictor = w[1]; return; }
  v.unmodelled.push(l);
}

const HEADS: Record<string, 'real' | 'virtual' | undefined> = { real: 'real', 'real-name-or-ip': 'real', 'remote-name': 'real', virtual: 'virtual', 'virtual-name-or-ip': 'virtual' };

export function parseAdx(text: string): AdxConfig {
  const lines = text.split('\n');
  const cfg: AdxConfig = { lines, reals: [], virtuals: [], others: [], reentered: [] };
  let current: { add(l: AdxLine): void } | undefined;
  lines.forEach((raw, n) => {
    const t = raw.replace(/\r$/, '');
    if (t.trim() === '' || /^\s*!/.test(t)) { if (/^!/.test(t)) current = undefined; return; }
    const l: AdxLine = { n, text: t, words: splitAdxWords(t.trim()) };
    if (/^\s/.test(t) && current) { current.add(l); return; }
    const w = l.words;
    // `server virtual vi1 192.0.2.1`, or the CLI's `server virtual-name-or-ip vi1`; entered again
    // without its address (as an engineer types it), the lines still belong to that object.
    const kind = w[0] === 'server' ? HEADS[w[1] ?? ''] : undefined;
    const list: (AdxReal | AdxVirtual)[] = kind === 'real' ? cfg.reals : cfg.virtuals;
    const known = kind && w[2] ? list.find((o) => o.name === w[2]) : undefined;
    if (kind && w[2] && ((w[3] && w.length === 4) || (known && w.length === 3))) {
      let obj = known;
      if (obj) cfg.reentered.push({ line: n, kind, name: obj.name });
      else if (kind === 'real') cfg.reals.push(obj = { name: w[2], address: w[3]!, remote: w[1] === 'remote-name', head: l, body: [], disabled: false, ports: new Map(), unmodelled: [] });
      else cfg.virtuals.push(obj = { name: w[2], address: w[3]!, head: l, body: [], ports: new Map(), binds: [], unmodelled: [] });
      const o = obj;
      current = { add: (b) => { o.body.push(b); if (kind === 'real') realBody(o as AdxReal, b); else virtualBody(o as AdxVirtual, b); } };
      return;
    }
    const other: AdxOther = { head: l, body: [] };
    cfg.others.push(other);
    current = { add: (b) => other.body.push(b) };
  });
  return cfg;
}
