// What a NetScaler command does to the running config's text: the lines `show ns runningConfig`
// prints afterwards. A new line goes after the last line of its kind (ns.conf lists objects by
// kind), a changed option is replaced where it is, a removed object takes its binds with it;
// every other line is untouched.
import { DEFAULT_LB_METHOD, DEFAULT_WEIGHT, nsOptions, quoteNs, splitNsWords } from './parse';

export class NsEditError extends Error {}

/**
 * The order ns.conf lists an `add lb monitor` line's options in (the command reference's
 * synopsis order); an option not listed goes last. A `set` merges into the add line there.
 */
const MONITOR_OPTS = ['action', 'respcode', 'httprequest', 'rtsprequest', 'customheaders', 'maxforwards', 'send', 'recv', 'query', 'querytype',
  'lrtm', 'deviation', 'interval', 'resptimeout', 'resptimeoutthresh', 'retries', 'failureretries', 'alertretries', 'successretries', 'downtime',
  'destip', 'destport', 'state', 'reverse', 'transparent', 'iptunnel', 'tos', 'tosid', 'secure'];
const optRe = (opt: string) => new RegExp(`\\s-${opt}((?:\\s+(?!-[A-Za-z])(?:"(?:[^"\\\\]|\\\\.)*"|\\S+))*)`, 'i');

const words = (l: string) => splitNsWords(l.replace(/\r$/, '').trim());
const key = (w: string[], n: number) => w.slice(0, n).map((x) => x.toLowerCase()).join(' ');

export class NsText {
  readonly lines: string[];
  private readonly cr: string;

  constructor(text: string) {
    this.lines = text.split('\n');
    this.cr = this.lines.length > 1 && this.lines[0]!.endsWith('\r') ? '\r' : '';
  }

  get text(): string { return this.lines.join('\n'); }

  /** Lines whose words satisfy `pred`. */
  where(pred: (w: string[]) => boolean): number[] {
    const out: number[] = [];
    this.lines.forEach((l, i) => { if (pred(words(l))) out.push(i); });
    return out;
  }

  server(name: string): number { return this.where((w) => key(w, 2) === 'add server' && w[2] === name)[0] ?? -1; }
  group(name: string): number { return this.where((w) => key(w, 2) === 'add servicegroup' && w[2] === name)[0] ?? -1; }
  vserver(name: string): number { return this.where((w) => key(w, 3) === 'add lb vserver' && w[3] === name)[0] ?? -1; }
  member(group: string, server: string, port: string): number {
    return this.where((w) => key(w, 2) === 'bind servicegroup' && w[2] === group && w[3] === server && w[4] === port)[0] ?? -1;
  }
  /** Service groups that have `server` as a member. */
  groupsOf(server: string): string[] {
    return [...new Set(this.where((w) => key(w, 2) === 'bind servicegroup' && w[3] === server && /^\d+$/.test(w[4] ?? '')).map((i) => words(this.lines[i]!)[2]!))];
  }

  /** Inserts after the last line `after` finds, else after `fallback`'s last, else at the end. */
  private insert(line: string, ...anchors: ((w: string[]) => boolean)[]): void {
    for (const a of anchors) {
      const at = this.where(a).pop();
      if (at !== undefined) { this.lines.splice(at + 1, 0, line + this.cr); return; }
    }
    let end = this.lines.length;
    while (end > 0 && /^\s*(Done)?\s*$/.test(this.lines[end - 1]!)) end--;
    this.lines.splice(end, 0, line + this.cr);
  }

  private drop(pred: (w: string[]) => boolean): void {
    for (const i of this.where(pred).reverse()) this.lines.splice(i, 1);
  }

  /** Sets (or with `value` undefined removes) `-opt value` on line i, in place. */
  private option(i: number, opt: string, value: string | undefined): void {
    const raw = this.lines[i]!.replace(/\r$/, '');
    const re = new RegExp(`\\s-${opt}\\s+("(?:[^"\\\\]|\\\\.)*"|\\S+)`, 'i');
    const next = value === undefined ? raw.replace(re, '') : re.test(raw) ? raw.replace(re, ` -${opt} ${value}`) : `${raw} -${opt} ${value}`;
    this.lines[i] = next + this.cr;
  }

  /** Sets (`value` a string of one or more words) or removes a monitor option on its add line, in ns.conf's order. */
  private monitorOption(i: number, opt: string, value: string | undefined): void {
    const raw = this.lines[i]!.replace(/\r$/, '');
    const re = optRe(opt);
    if (value === undefined) { this.lines[i] = raw.replace(re, '') + this.cr; return; }
    if (re.test(raw)) { this.lines[i] = raw.replace(re, ` -${opt} ${value}`) + this.cr; return; }
    const rank = (o: string) => { const r = MONITOR_OPTS.indexOf(o.toLowerCase()); return r < 0 ? MONITOR_OPTS.length : r; };
    const later = [...raw.matchAll(/\s-([A-Za-z]+)/g)].find((m) => rank(m[1]!) > rank(opt));
    this.lines[i] = (later ? `${raw.slice(0, later.index)} -${opt} ${value}${raw.slice(later.index)}` : `${raw} -${opt} ${value}`) + this.cr;
  }

  monitor(name: string): number { return this.where((w) => key(w, 3) === 'add lb monitor' && w[3] === name)[0] ?? -1; }
  /** Lines binding monitor `name` to a service group or service. */
  monitorBinds(name: string): number[] {
    return this.where((w) => (key(w, 2) === 'bind servicegroup' || key(w, 2) === 'bind service') && nsOptions(w).opts.get('monitorname')?.[0] === name);
  }

  /** Applies one command; false when it is not one this editor models. */
  apply(command: string): boolean {
    const w = splitNsWords(command.trim());
    const { positional: p, opts } = nsOptions(w);
    const k2 = key(w, 2);
    const k3 = key(w, 3);
    const line = command.trim();
    if (k2 === 'add server' && p.length === 4) { this.insert(line, (x) => key(x, 2) === 'add server'); return true; }
    if (k2 === 'rm server' && p.length === 3) { this.drop((x) => (key(x, 2) === 'add server' || key(x, 2) === 'disable server') && x[2] === p[2]); return true; }
    if ((k2 === 'disable server' || k2 === 'enable server') && p.length === 3) {
      const i = this.server(p[2]!);
      this.drop((x) => key(x, 2) === 'disable server' && x[2] === p[2]);
      if (i >= 0) this.option(this.server(p[2]!), 'state', k2 === 'disable server' ? 'DISABLED' : undefined);
      return true;
    }
    if (k2 === 'add servicegroup' && p.length === 4) { this.insert(line, (x) => key(x, 2) === 'add servicegroup', (x) => key(x, 2) === 'add server'); return true; }
    if (k2 === 'rm servicegroup' && p.length === 3) { this.drop((x) => (key(x, 2) === 'add servicegroup' || key(x, 2) === 'bind servicegroup') && x[2] === p[2]); return true; }
    if (k2 === 'bind servicegroup' && p.length === 5) {
      const weight = opts.get('weight')?.[0];
      const text = `bind serviceGroup ${quoteNs(p[2]!)} ${quoteNs(p[3]!)} ${p[4]}${weight && Number(weight) !== DEFAULT_WEIGHT ? ` -weight ${weight}` : ''}`;
      const ofGroup = (x: string[]) => key(x, 2) === 'bind servicegroup' && x[2] === p[2] && /^\d+$/.test(x[4] ?? '');
      this.insert(text, ofGroup, (x) => key(x, 2) === 'bind servicegroup' && /^\d+$/.test(x[4] ?? ''), (x) => key(x, 2) === 'add servicegroup' && x[2] === p[2]);
      return true;
    }
    if (k2 === 'bind servicegroup' && p.length === 3 && opts.has('monitorname')) {
      this.insert(line, (x) => key(x, 2) === 'bind servicegroup' && x[2] === p[2]);
      return true;
    }
    if (k2 === 'unbind servicegroup' && p.length === 3 && opts.get('monitorname')?.length === 1) {
      const m = opts.get('monitorname')![0];
      this.drop((x) => key(x, 2) === 'bind servicegroup' && x[2] === p[2] && nsOptions(x).positional.length === 3 && nsOptions(x).opts.get('monitorname')?.[0] === m);
      return true;
    }
    if (k3 === 'add lb monitor' && p.length === 5) {
      // After the other monitors; the first one goes above the service groups that bind it.
      const first = this.where((x) => key(x, 2) === 'add servicegroup')[0];
      if (this.monitor(p[3]!) < 0 && !this.where((x) => key(x, 3) === 'add lb monitor').length && first !== undefined) {
        let at = first;
        while (at > 0 && this.lines[at - 1]!.trim() === '') at--;
        this.lines.splice(at, 0, line + this.cr);
        return true;
      }
      this.insert(line, (x) => key(x, 3) === 'add lb monitor', (x) => key(x, 2) === 'add server');
      return true;
    }
    if (k3 === 'rm lb monitor' && p.length >= 4) { this.drop((x) => (key(x, 3) === 'add lb monitor' || key(x, 3) === 'set lb monitor') && x[3] === p[3]); return true; }
    if ((k3 === 'set lb monitor' || k3 === 'unset lb monitor') && p.length === 5 && opts.size) {
      const i = this.monitor(p[3]!);
      if (i < 0) return false;   // a built-in monitor's set line: not modelled
      // The value as written after the option (quotes kept), so the line reads as the box prints it.
      for (const o of opts.keys()) {
        const m = optRe(o).exec(line);
        const name = /\s-([A-Za-z]+)/.exec(m?.[0] ?? '')?.[1] ?? o;
        this.monitorOption(i, name, k3 === 'set lb monitor' ? m?.[1]?.trim() : undefined);
      }
      return true;
    }
    if (k2 === 'unbind servicegroup' && p.length === 5) { this.drop((x) => key(x, 2) === 'bind servicegroup' && x[2] === p[2] && x[3] === p[3] && x[4] === p[4]); return true; }
    if (k2 === 'set servicegroup' && p.length === 5 && opts.has('weight')) {
      const i = this.member(p[2]!, p[3]!, p[4]!);
      if (i < 0) return true;
      const n = Number(opts.get('weight')![0]);
      this.option(i, 'weight', n === DEFAULT_WEIGHT ? undefined : String(n));
      return true;
    }
    if (k3 === 'add lb vserver' && p.length === 7) { this.insert(line, (x) => key(x, 3) === 'add lb vserver', (x) => key(x, 2) === 'add servicegroup'); return true; }
    if (k3 === 'rm lb vserver' && p.length === 4) { this.drop((x) => (key(x, 3) === 'add lb vserver' || key(x, 3) === 'bind lb vserver') && x[3] === p[3]); return true; }
    if (k3 === 'bind lb vserver' && p.length === 5) {
      this.insert(line, (x) => key(x, 3) === 'bind lb vserver' && x[3] === p[3], (x) => key(x, 3) === 'bind lb vserver', (x) => key(x, 3) === 'add lb vserver' && x[3] === p[3]);
      return true;
    }
    if (k3 === 'unbind lb vserver' && p.length === 5) { this.drop((x) => key(x, 3) === 'bind lb vserver' && x[3] === p[3] && x[4] === p[4] && x.length === 5); return true; }
    if ((k3 === 'set lb vserver' || k3 === 'unset lb vserver') && p.length === 4 && opts.size === 1 && (opts.has('lbmethod') || opts.has('persistencetype'))) {
      const i = this.vserver(p[3]!);
      if (i < 0) return true;
      const [name, fallback] = opts.has('lbmethod') ? ['lbMethod', DEFAULT_LB_METHOD] : ['persistenceType', 'NONE'];
      const m = k3 === 'set lb vserver' ? [...opts.values()][0]![0]! : undefined;
      // A default the box does not print; ns.conf keeps `-persistenceType NONE` where it was written.
      const keep = name === 'persistenceType' && /\s-persistenceType\s/i.test(this.lines[i]!);
      this.option(i, name, m === undefined || (m.toUpperCase() === fallback && !keep) ? undefined : m);
      return true;
    }
    return false;
  }
}

/** The running config after a list of commands (as `render --onto` shows it). */
export function applyNsCommands(text: string, commands: string[]): string {
  const t = new NsText(text);
  for (const c of commands) if (!t.apply(c)) throw new NsEditError(`no model for "${c}"`);
  return t.text;
}
