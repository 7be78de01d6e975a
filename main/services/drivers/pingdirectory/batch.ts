// dsconfig batch files: one `dsconfig SUBCOMMAND --name-option NAME [--type T] (--set|--add|--remove|--reset) …`
// per command, `\` continuing a line, `#` comments and blank lines ignored (the product's batch
// mode, and what `config-diff` prints). Parsed into commands and objects; written back the same way.

/** Each object kind lbdesk reads or writes, with the option that names it. */
export const KINDS = {
  'external-server': '--server-name',
  'ldap-health-check': '--check-name',
  'load-balancing-algorithm': '--algorithm-name',
  'request-processor': '--processor-name',
  'subtree-view': '--view-name',
  'client-connection-policy': '--policy-name',
  location: '--location-name',
} as const;
export type Kind = keyof typeof KINDS;
export const isKind = (k: string): k is Kind => Object.prototype.hasOwnProperty.call(KINDS, k);

export interface DsCommand {
  /** 0-based line the command starts on. */
  line: number;
  /** 0-based line it ends on (its last continuation line). */
  end: number;
  /** The command as written, continuation lines joined. */
  text: string;
  /** `create`, `set`, `delete`, … and the object kind (`external-server`), when the subcommand has that shape. */
  verb: string;
  kind: string;
  name?: string;
  type?: string;
  /** Property changes in order: op is set, add, remove or reset. */
  changes: { op: 'set' | 'add' | 'remove' | 'reset'; prop: string; value: string }[];
  /** Options lbdesk does not read (kept as written). */
  other: string[];
  /** Why the line is not a dsconfig command lbdesk understands, if it is not. */
  bad?: string;
}

/** Shell-like words: single and double quotes, backslash escapes; `prop<file` stays one word. */
export function words(s: string): string[] | undefined {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return undefined;
      cur += s.slice(i + 1, end); i = end; inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === '\\' && j + 1 < s.length) j++;
        cur += s[j];
      }
      if (j >= s.length) return undefined;
      i = j; inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i]; inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = ''; inWord = false;
    } else {
      cur += c; inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

export function parseBatch(text: string): DsCommand[] {
  const lines = text.split(/\r?\n/);
  const out: DsCommand[] = [];
  // A line that starts with an option continues the command above it: Ping's published config-diff
  // output wraps long commands that way, without a backslash.
  const option = (l: string | undefined) => l !== undefined && /^\s*--[a-zA-Z]/.test(l);
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let joined = lines[i]!;
    for (;;) {
      if (/\\\s*$/.test(joined) && i + 1 < lines.length) joined = joined.replace(/\\\s*$/, ' ') + lines[++i]!;
      else if (option(lines[i + 1]) && !joined.trim().startsWith('#') && joined.trim()) joined = `${joined} ${lines[++i]!}`;
      else break;
    }
    const t = joined.trim();
    if (!t || t.startsWith('#')) continue;
    out.push(parseCommand(t, start, i));
  }
  return out;
}

function parseCommand(text: string, line: number, end: number): DsCommand {
  const cmd: DsCommand = { line, end, text, verb: '', kind: '', changes: [], other: [] };
  let w = words(text.replace(/^\$\s+/, ''));
  if (!w) return { ...cmd, bad: 'an unclosed quote' };
  if (/(^|\/)dsconfig$/.test(w[0] ?? '')) w = w.slice(1);
  const sub = w[0] ?? '';
  const m = /^(create|set|delete|get|list)-(.+?)(-prop|s)?$/.exec(sub);
  if (!m) return { ...cmd, bad: `"${sub}" is not a dsconfig subcommand lbdesk reads` };
  cmd.verb = m[1]!;
  cmd.kind = m[2]!;
  const nameOpt = isKind(cmd.kind) ? KINDS[cmd.kind] : undefined;
  for (let i = 1; i < w.length; i++) {
    const o = w[i]!;
    const arg = w[i + 1];
    if (o === nameOpt && arg !== undefined) { cmd.name = arg; i++; continue; }
    if (o === '--type' && arg !== undefined) { cmd.type = arg; i++; continue; }
    const op = /^--(set|add|remove|reset)$/.exec(o)?.[1] as DsCommand['changes'][number]['op'] | undefined;
    if (op && arg !== undefined) {
      i++;
      if (op === 'reset') { cmd.changes.push({ op, prop: arg, value: '' }); continue; }
      const colon = arg.indexOf(':');
      const lt = arg.indexOf('<');
      // `password<FILE`: the value is read from a file on the proxy; never a secret in this file.
      if (lt > 0 && (colon < 0 || lt < colon)) { cmd.other.push(`${o} ${arg}`); continue; }
      if (colon <= 0) return { ...cmd, bad: `${o} ${arg}: not PROPERTY:VALUE` };
      cmd.changes.push({ op, prop: arg.slice(0, colon), value: arg.slice(colon + 1) });
      continue;
    }
    cmd.other.push(o);
  }
  return cmd;
}

/** An object as it stands after the batch: its type and each property's values. */
export interface DsObject {
  kind: Kind;
  name: string;
  type?: string;
  props: Map<string, string[]>;
  /** The commands that made it, by 0-based line. */
  lines: number[];
}

/** Applies the create/set/delete commands of the kinds lbdesk knows, in order. */
export function objectsOf(cmds: DsCommand[]): Map<string, DsObject> {
  const objs = new Map<string, DsObject>();
  for (const c of cmds) {
    if (c.bad || !isKind(c.kind) || c.name === undefined) continue;
    const key = `${c.kind}\n${c.name}`;
    if (c.verb === 'delete') { objs.delete(key); continue; }
    if (c.verb !== 'create' && c.verb !== 'set') continue;
    const o: DsObject = objs.get(key) ?? { kind: c.kind, name: c.name, type: c.type, props: new Map<string, string[]>(), lines: [] };
    if (c.verb === 'create') o.type = c.type;
    o.lines.push(c.line);
    applyChanges(o.props, c.changes);
    objs.set(key, o);
  }
  return objs;
}

export function applyChanges(props: Map<string, string[]>, changes: DsCommand['changes']): void {
  // Within one command, several --set of one multi-valued property give all its values.
  const setHere = new Set<string>();
  for (const ch of changes) {
    const have = props.get(ch.prop) ?? [];
    if (ch.op === 'reset') props.delete(ch.prop);
    else if (ch.op === 'set') { props.set(ch.prop, setHere.has(ch.prop) ? [...have, ch.value] : [ch.value]); setHere.add(ch.prop); }
    else if (ch.op === 'add') props.set(ch.prop, have.includes(ch.value) ? have : [...have, ch.value]);
    else props.set(ch.prop, have.filter((v) => v !== ch.value));
  }
}

/** One word as the shell (and dsconfig's batch reader) takes it back. */
export function quote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** A command in the docs' style: one option per continuation line. */
export function formatCommand(sub: string, args: string[][]): string {
  return [`dsconfig ${sub}`, ...args.map((a) => `    ${a.map(quote).join(' ')}`)].join(' \\\n');
}

/** A command on one line (for --commands and the inverse). */
export function oneLine(sub: string, args: string[][]): string {
  return [`dsconfig ${sub}`, ...args.map((a) => a.map(quote).join(' '))].join(' ');
}

/** dsconfig durations: "500 ms", "5 s"; parsed back to milliseconds. */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
const UNITS: Record<string, number> = { ms: 1, millisecond: 1, milliseconds: 1, s: 1000, second: 1000, seconds: 1000, m: 60_000, minute: 60_000, minutes: 60_000, h: 3_600_000, hour: 3_600_000, hours: 3_600_000 };
export function parseDsDuration(v: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(v);
  const f = m && UNITS[m[2]!.toLowerCase()];
  return m && f ? Math.round(Number(m[1]) * f) : undefined;
}
