// Line edits on a config the appliance holds: collected first, applied in one pass, so every
// line no edit touches comes out byte for byte.
export class LineEdits {
  private readonly replaced = new Map<number, string[]>();
  private readonly after = new Map<number, string[]>();
  private readonly before = new Map<number, string[]>();

  constructor(readonly lines: string[]) {}

  get size(): number {
    return this.replaced.size + this.after.size + this.before.size;
  }

  /** Replaces line i (by no lines to delete it). */
  replace(i: number, lines: string[]): void {
    this.replaced.set(i, lines);
  }

  remove(from: number, to: number): void {
    for (let i = from; i < to; i++) this.replaced.set(i, []);
  }

  isRemoved(i: number): boolean {
    return this.replaced.get(i)?.length === 0;
  }

  /** The line as it will be written (after an earlier replace of it). */
  current(i: number): string | undefined {
    const r = this.replaced.get(i);
    return r ? r[0] : this.lines[i];
  }

  insertAfter(i: number, lines: string[]): void {
    this.after.set(i, [...(this.after.get(i) ?? []), ...lines]);
  }

  insertBefore(i: number, lines: string[]): void {
    this.before.set(i, [...(this.before.get(i) ?? []), ...lines]);
  }

  apply(): string {
    if (!this.size) return this.lines.join('\n');
    const out: string[] = [];
    this.lines.forEach((line, i) => {
      const b = this.before.get(i);
      if (b) out.push(...b);
      const r = this.replaced.get(i);
      if (r) out.push(...r);
      else out.push(line);
      const a = this.after.get(i);
      if (a) out.push(...a);
    });
    return out.join('\n');
  }
}

/** The leading blanks of a line (to indent an inserted line like its neighbours). */
export function indentOf(line: string | undefined): string {
  return /^[ \t]*/.exec(line ?? '')![0];
}

/** The line ending the file uses (`\r` kept at the end of each line). */
export function crOf(line: string | undefined): string {
  return line?.endsWith('\r') ? '\r' : '';
}

/** The first of the comment lines glued above line `i` (no blank between), not above `floor`. */
export function attachedFrom(lines: string[], i: number, floor: number): number {
  let k = i;
  while (k - 1 > floor && /^\s*[#!]/.test(lines[k - 1]!) && !/lbdesk: owned, sha256/.test(lines[k - 1]!)) k--;
  return k;
}

/** Removes lines [from, to) and one blank line that separated them from what follows (or precedes, at the end). */
export function removeLines(edits: LineEdits, from: number, to: number): void {
  const lines = edits.lines;
  let end = to;
  const start = from;
  let atEnd = true;
  for (let i = to; i < lines.length && atEnd; i++) atEnd = edits.isRemoved(i) || lines[i]!.trim() === '';
  if (!atEnd && lines[end]?.trim() === '') end++;
  else if (atEnd) {
    let k = start - 1;
    while (k >= 0 && edits.isRemoved(k)) k--;
    if (k >= 0 && lines[k]!.trim() === '') edits.remove(k, k + 1);
  }
  edits.remove(start, end);
}
