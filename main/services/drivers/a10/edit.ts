// What ACOS commands do to the running config's text: the lines `show running-config` prints
// afterwards. An ACOS CLI is a stack of modes (`slb server s1 IP` -> `port 80 tcp` -> ...);
// `exit` leaves one. New objects go after the last object of their kind (each followed by `!`),
// a setting replaces its line where it is, a new sub-mode line goes at the end of its block.
import { memberHead, quoteName, splitA10Words } from './parse';

export class A10EditError extends Error {}

const KINDS = ['slb server', 'slb service-group', 'slb virtual-server', 'health monitor'];
/** The order `show running-config` lists objects in: health monitors before the servers that name them. */
const ORDER = ['health monitor', 'slb server', 'slb service-group', 'slb virtual-server'];
/** The order ACOS prints a health monitor's settings in (batfish's captured configs: retry, up-retry, interval, …, method). */
const MONITOR_ORDER = ['retry', 'up-retry', 'interval', 'override-port', 'method'];
const kindOf = (w: string[]) => KINDS.find((k) => `${w[0]} ${w[1]}` === k);
const indentOf = (l: string) => /^\s*/.exec(l)![0].length;
const wordsOf = (l: string) => splitA10Words(l.trim());
const isComment = (l: string) => /^\s*!/.test(l);

/** Which setting a line is: a new line with the same key replaces it. */
function keyOf(w: string[]): string {
  const s = w.join(' ');
  if (s === 'disable' || s === 'enable') return 'state';
  if (w[0] === 'health-check' || s === 'health-check-disable' || s === 'no health-check') return 'health-check';
  if (w[0] === 'method' || w[0] === 'lb-method') return 'method';
  if (w[0] === 'member') return `member ${memberHead(w)?.server ?? w[1]}:${memberHead(w)?.port ?? ''}`;
  return w[0] ?? '';
}

/** A line that opens a sub-mode in its block: `port 80 tcp` (server, virtual port), `member s1 80` (4.x). */
function subMode(kind: string, w: string[]): boolean {
  if (w[0] === 'port' && /^\d+$/.test(w[1] ?? '') && w[2] && w.length === 3) return kind === 'slb server' || kind === 'slb virtual-server';
  return kind === 'slb service-group' && memberHead(w)?.form === 4 && w.length === 3;
}

export class A10Text {
  readonly lines: string[];
  /** Head line indexes of the modes entered, outermost first. */
  private stack: number[] = [];

  constructor(text: string) { this.lines = text.split('\n'); }

  get text(): string { return this.lines.join('\n'); }
  get depth(): number { return this.stack.length; }
  /** The top-level object being configured (`slb server`…), if any. */
  get kind(): string | undefined { return this.stack.length ? kindOf(wordsOf(this.lines[this.stack[0]!]!)) : undefined; }

  /** The head of a top-level object: `slb server NAME`, `health monitor NAME`. */
  find(kind: string, name: string): number {
    return this.lines.findIndex((l) => indentOf(l) === 0 && !isComment(l) && ((w) => kindOf(w) === kind && w[2] === name)(wordsOf(l)));
  }

  /** Index after the block's last deeper-indented line (indented comments included). */
  end(head: number): number {
    const base = indentOf(this.lines[head]!);
    let i = head + 1;
    while (i < this.lines.length && this.lines[i]!.trim() !== '' && indentOf(this.lines[i]!) > base) i++;
    return i;
  }

  /** Direct child lines of a block: [index, words]. */
  private children(head: number): [number, string[]][] {
    const end = this.end(head);
    const out: [number, string[]][] = [];
    let want: number | undefined;
    for (let i = head + 1; i < end; i++) {
      const l = this.lines[i]!;
      if (isComment(l)) continue;
      want ??= indentOf(l);
      if (indentOf(l) === want) out.push([i, wordsOf(l)]);
    }
    return out;
  }

  private childIndent(head: number): string {
    const first = this.children(head)[0];
    return ' '.repeat(first ? indentOf(this.lines[first[0]]!) : indentOf(this.lines[head]!) + 2);
  }

  /** Enters a top-level object, creating it (with a `!` after) when new. */
  enter(words: string[]): void {
    const kind = kindOf(words)!;
    let at = this.find(kind, words[2]!);
    if (at < 0) {
      let after: number | undefined;
      let before: number | undefined;
      const order = ORDER.indexOf(kind);
      this.lines.forEach((l, i) => {
        const k = indentOf(l) === 0 && !isComment(l) ? kindOf(wordsOf(l)) : undefined;
        if (k && ORDER.indexOf(k) <= order) after = i;
        else if (k && before === undefined) before = i;
      });
      let pos: number;
      if (after !== undefined) {
        // Right after that block's own `!` (a section's second `!` stays below the new block), and
        // after comment lines glued to no object below (left by an object removed from here).
        pos = this.end(after);
        if (/^!\s*$/.test(this.lines[pos] ?? '')) pos++;
        let c = pos;
        while (c < this.lines.length && /^!\s*\S/.test(this.lines[c]!)) c++;
        if (c > pos && (c === this.lines.length || /^!\s*$/.test(this.lines[c]!))) pos = c;
      } else if (before !== undefined) {
        // The first object of a later kind: the new block goes above it and the comments glued to it.
        pos = before;
        while (pos > 0 && /^!\s*\S/.test(this.lines[pos - 1]!)) pos--;
      } else {
        const endLine = this.lines.findIndex((l) => l.trim() === 'end');
        pos = endLine >= 0 ? endLine : this.lines.length - (this.lines[this.lines.length - 1] === '' ? 1 : 0);
      }
      this.lines.splice(pos, 0, [words[0], words[1], ...words.slice(2).map(quoteName)].join(' '), '!');
      at = pos;
    }
    this.stack = [at];
  }

  remove(kind: string, name: string): boolean {
    const at = this.find(kind, name);
    if (at < 0) return false;
    let end = this.end(at);
    if (/^!\s*$/.test(this.lines[end] ?? '')) end++;
    this.lines.splice(at, end - at);
    this.stack = [];
    return true;
  }

  exit(): void { this.stack.pop(); }
  leave(): void { this.stack = []; }

  /** One command inside the current mode; false when it is not one this editor knows. */
  sub(command: string): boolean {
    const head = this.stack[this.stack.length - 1];
    if (head === undefined) throw new A10EditError('not in a configuration block');
    const kind = this.kind!;
    const w = wordsOf(command);
    const no = w[0] === 'no' && w.length > 1;
    const v = no ? w.slice(1) : w;
    const top = this.stack.length === 1;
    const kids = this.children(head);
    const line = (x: string[]) => `${this.childIndent(head)}${x.map((y, i) => (i && /\s/.test(y) ? quoteName(y) : y)).join(' ')}`;
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (top && subMode(kind, v)) {
      const found = kids.find(([, x]) => same(x, v));
      if (no) {
        if (!found) return true;
        this.lines.splice(found[0], this.end(found[0]) - found[0]);
        return true;
      }
      if (found) { this.stack.push(found[0]); return true; }
      const at = this.end(head);
      this.lines.splice(at, 0, line(v));
      this.stack.push(at);
      return true;
    }
    // ACOS 2.x `no health-check` is a setting the box prints as written.
    if (no && !(v[0] === 'health-check' && v.length === 1)) {
      const k = keyOf(v);
      for (const [i] of kids.filter(([, x]) => keyOf(x) === k).reverse()) this.lines.splice(i, this.end(i) - i);
      return true;
    }
    const k = keyOf(w);
    const found = kids.find(([, x]) => keyOf(x) === k);
    if (found) { this.lines[found[0]] = line(w); return true; }
    if (kind === 'health monitor' && top) {
      const rank = (x: string[]) => { const r = MONITOR_ORDER.indexOf(x[0] ?? ''); return r < 0 ? MONITOR_ORDER.indexOf('override-port') : r; };
      const next = kids.find(([, x]) => rank(x) > rank(w));
      this.lines.splice(next ? next[0] : this.end(head), 0, line(w));
      return true;
    }
    // A setting goes before the block's sub-modes (ACOS prints `weight` above the ports).
    const firstSub = kids.find(([, x]) => subMode(kind, x) || x[0] === 'member');
    this.lines.splice(top && firstSub && w[0] !== 'member' ? firstSub[0] : this.end(head), 0, line(w));
    return true;
  }
}

/** The running config after a list of config-mode commands (as `render --onto` shows it). */
export function applyA10Commands(text: string, commands: string[]): string {
  const t = new A10Text(text);
  for (const c of commands) {
    const w = splitA10Words(c.trim());
    if (kindOf(w) && w[2]) t.enter(w);
    else if (w[0] === 'no' && kindOf(w.slice(1)) && w[3]) t.remove(kindOf(w.slice(1))!, w[3]);
    else if (w[0] === 'exit') t.exit();
    else if (w[0] === 'end') t.leave();
    else if (t.depth) { if (!t.sub(c)) throw new A10EditError(`no model for "${c}"`); }
    else throw new A10EditError(`no model for "${c}" at the top level`);
  }
  return t.text;
}
