// What an ADX command does to the running config's text: the lines `show running-config`
// prints afterwards. New objects go after the last object of their kind, new lines at the end
// of their block, a changed setting replaces its line where it is; everything else is untouched.
import { quoteName, splitAdxWords } from './parse';

export class AdxEditError extends Error {}

const top = (l: string) => l !== '' && !/^\s/.test(l);
/** The second word of a block's head: `server real`, `server remote-name` (a real server too), `server virtual`. */
export type AdxKind = 'real' | 'remote-name' | 'virtual';
const KINDS: readonly string[] = ['real', 'remote-name', 'virtual'];
const wordsOf = (l: string) => splitAdxWords(l.trim());

export class AdxText {
  readonly lines: string[];
  /** Index of the head line of the block being configured (after `server real N A`). */
  private at = -1;

  constructor(text: string) {
    this.lines = text.split('\n');
  }

  get text(): string { return this.lines.join('\n'); }

  /** The head line of `server real|virtual NAME`, or -1. */
  find(kind: AdxKind, name: string): number {
    return this.lines.findIndex((l) => top(l) && (([a, b, c]) => a === 'server' && b === kind && c === name)(wordsOf(l)));
  }

  /** Index after the block's last indented line. */
  end(head: number): number {
    let i = head + 1;
    while (i < this.lines.length && /^\s+\S/.test(this.lines[i]!)) i++;
    return i;
  }

  /** The block being configured, or -1 at the top level. */
  get current(): number { return this.at; }
  body(head: number): string[] { return this.lines.slice(head + 1, this.end(head)); }

  enter(kind: AdxKind, name: string, address: string): void {
    let at = this.find(kind, name);
    if (at < 0) {
      const after = this.lastOf(kind) ?? (kind === 'virtual' ? this.lastOf('remote-name') : undefined) ?? (kind !== 'real' ? this.lastOf('real') : undefined);
      let pos: number;
      if (after !== undefined) {
        pos = this.end(after);
        if (this.lines[pos] === '!') pos++;
      } else {
        const first = this.lines.findIndex((l) => top(l) && /^server (real|remote-name|virtual) /.test(l));
        const endLine = this.lines.findIndex((l) => l.trim() === 'end');
        pos = first >= 0 && kind !== 'virtual' ? first : endLine >= 0 ? endLine : this.lines.length - (this.lines[this.lines.length - 1] === '' ? 1 : 0);
      }
      this.lines.splice(pos, 0, `server ${kind} ${quoteName(name)} ${address}`, '!');
      at = pos;
    }
    this.at = at;
  }

  private lastOf(kind: AdxKind): number | undefined {
    let last: number | undefined;
    this.lines.forEach((l, i) => { if (top(l) && l.startsWith(`server ${kind} `)) last = i; });
    return last;
  }

  remove(kind: AdxKind, name: string): boolean {
    const at = this.find(kind, name);
    if (at < 0) return false;
    let end = this.end(at);
    if (this.lines[end] === '!') end++;
    this.lines.splice(at, end - at);
    return true;
  }

  exit(): void { this.at = -1; }

  private indexIn(pred: (w: string[]) => boolean): number {
    const end = this.end(this.at);
    for (let i = this.at + 1; i < end; i++) if (pred(wordsOf(this.lines[i]!))) return i;
    return -1;
  }

  private append(line: string): void {
    this.lines.splice(this.end(this.at), 0, ` ${line}`);
  }

  /** Sets a line, replacing the one `same` finds (in place), else appending. */
  private set(line: string, same: (w: string[]) => boolean): void {
    const i = this.indexIn(same);
    if (i >= 0) this.lines[i] = ` ${line}`;
    else this.append(line);
  }

  private drop(pred: (w: string[]) => boolean): boolean {
    let dropped = false;
    for (let i = this.indexIn(pred); i >= 0; i = this.indexIn(pred)) { this.lines.splice(i, 1); dropped = true; }
    return dropped;
  }

  /** One command inside the block (`weight 5 0`, `no bind http rs1 http`…). False when it is not one this editor knows. */
  sub(command: string): boolean {
    if (this.at < 0) throw new AdxEditError('not in a server block');
    const w = splitAdxWords(command.trim());
    const no = w[0] === 'no';
    const v = no ? w.slice(1) : w;
    const eq = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    const line = command.trim();
    if (v[0] === 'weight') { if (no) this.drop((x) => x[0] === 'weight'); else this.set(line, (x) => x[0] === 'weight'); return true; }
    if (v[0] === 'predictor' && v.length === 2) { if (no) this.drop((x) => x[0] === 'predictor'); else this.set(line, (x) => x[0] === 'predictor'); return true; }
    if (!no && eq(v, ['disable'])) { this.set('disable', (x) => eq(x, ['disable'])); return true; }
    if (!no && eq(v, ['enable'])) { this.drop((x) => eq(x, ['disable'])); return true; }
    if (v[0] === 'port' && v[1] && v.length === 2) {
      if (no) this.drop((x) => (x[0] === 'port' && x[1] === v[1]) || (x[0] === 'no' && x[1] === 'port' && x[2] === v[1]));
      else if (this.indexIn((x) => eq(x, ['port', v[1]!])) < 0) this.append(`port ${v[1]}`);
      return true;
    }
    if (v[0] === 'port' && v[1] && v[2] === 'url' && v.length === 4) {
      if (no) this.drop((x) => x[0] === 'port' && x[1] === v[1] && x[2] === 'url');
      else this.set(`port ${v[1]} url "${v[3]}"`, (x) => x[0] === 'port' && x[1] === v[1] && x[2] === 'url');
      return true;
    }
    if (v[0] === 'port' && v[1] && v.length === 3 && ['keepalive', 'sticky', 'l4-check-only', 'disable'].includes(v[2]!)) {
      const pos = ['port', v[1], v[2]!];
      const neg = ['no', 'port', v[1], v[2]!];
      // Setting one form removes the other; the default (no line) is no sticky, no keepalive override.
      if (no) { if (!this.drop((x) => eq(x, pos)) && v[2] === 'keepalive') this.append(neg.join(' ')); }
      else if (!this.drop((x) => eq(x, neg))) this.set(pos.join(' '), (x) => eq(x, pos));
      return true;
    }
    if (v[0] === 'port' && v[1] && v.length >= 3) {
      // Any other port setting (`port http server-id 1103`, `port default disable`): one line per setting.
      const same = (x: string[]) => x[0] === 'port' && x[1] === v[1] && x[2] === v[2];
      if (no) this.drop(same);
      else this.set(line, same);
      return true;
    }
    if (v[0] === 'bind' && v[1] && v.length >= 4 && v.length % 2 === 0) {
      const pairs: [string, string][] = [];
      for (let i = 2; i + 1 < v.length; i += 2) pairs.push([v[i]!, v[i + 1]!]);
      if (no) for (const p of pairs) this.unbind(v[1], p);
      else for (const p of pairs) this.bind(v[1], p);
      return true;
    }
    return false;
  }

  /** The real-server ports bound to a virtual port, as `[real, port]`. */
  binds(head: number): { vport: string; real: string; rport: string }[] {
    const out: { vport: string; real: string; rport: string }[] = [];
    for (const l of this.body(head)) {
      const x = wordsOf(l);
      if (x[0] === 'bind' && x[1]) for (let i = 2; i + 1 < x.length; i += 2) out.push({ vport: x[1], real: x[i]!, rport: x[i + 1]! });
    }
    return out;
  }

  private bind(vport: string, [real, rport]: [string, string]): void {
    if (this.binds(this.at).some((b) => b.vport === vport && b.real === real && b.rport === rport)) return;
    const i = this.indexIn((x) => x[0] === 'bind' && x[1] === vport);
    if (i < 0) { this.append(`bind ${vport} ${quoteName(real)} ${rport}`); return; }
    this.lines[i] = `${this.lines[i]!.replace(/\s+$/, '')} ${quoteName(real)} ${rport}`;
  }

  private unbind(vport: string, [real, rport]: [string, string]): void {
    const end = this.end(this.at);
    for (let i = this.at + 1; i < end; i++) {
      const x = wordsOf(this.lines[i]!);
      if (x[0] !== 'bind' || x[1] !== vport) continue;
      const pairs: string[] = [];
      for (let j = 2; j + 1 < x.length; j += 2) if (!(x[j] === real && x[j + 1] === rport)) pairs.push(`${quoteName(x[j]!)} ${x[j + 1]}`);
      if (pairs.length === (x.length - 2) / 2) continue;
      if (pairs.length) this.lines[i] = ` bind ${vport} ${pairs.join(' ')}`;
      else this.lines.splice(i, 1);
      return;
    }
  }
}

/** The running config after a list of config-mode commands (as `render --onto` shows it). */
export function applyAdxCommands(text: string, commands: string[]): string {
  const t = new AdxText(text);
  for (const c of commands) {
    const w = splitAdxWords(c.trim());
    if (w[0] === 'server' && KINDS.includes(w[1]!) && w[2] && w[3]) t.enter(w[1] as AdxKind, w[2], w[3]);
    else if (w[0] === 'no' && w[1] === 'server' && KINDS.includes(w[2]!) && w[3]) { t.remove(w[2] as AdxKind, w[3]); t.exit(); }
    else if (w[0] === 'exit' || w[0] === 'end') t.exit();
    else if (t.current >= 0) { if (!t.sub(c)) throw new AdxEditError(`no model for "${c}"`); }
    else throw new AdxEditError(`no model for "${c}" at the top level`);
  }
  return t.text;
}
