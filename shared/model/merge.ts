// Three-way merge of a workspace's text: base (what the window last read or wrote), theirs (the
// file on disk now), mine (the editor's text). By lines, so every comment, blank line and byte
// that neither side touched stays exactly as it was; a change only one side made is taken; where
// both changed the same lines differently the user chooses, and nothing is dropped unsaid.
import { diffArrays } from 'diff';
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import type { PathSegment } from './problem';

/** One side's change: base lines [start, end) replaced by `lines`. */
interface Hunk { start: number; end: number; lines: string[]; side: 'mine' | 'theirs' }

export type MergeChunk =
  /** Lines neither side changed. */
  | { kind: 'same'; lines: string[] }
  /** Changed on one side only, or the same way on both ('both'): taken as is. */
  | { kind: 'mine' | 'theirs' | 'both'; base: string[]; mine: string[]; theirs: string[]; baseLine: number; mineLine: number; theirsLine: number }
  /** Both sides changed these lines differently: the user chooses. */
  | { kind: 'conflict'; base: string[]; mine: string[]; theirs: string[]; baseLine: number; mineLine: number; theirsLine: number; why?: string };

export type ChangeChunk = Exclude<MergeChunk, { kind: 'same' }>;
export type Side = 'mine' | 'theirs';

export interface Merge {
  chunks: MergeChunk[];
  /** How many chunks are conflicts. */
  conflicts: number;
  /** Changes made on disk (taken or in conflict). */
  theirsChanges: number;
}

/** Lines, each without its '\n' (a '\r' stays on its line): joined with '\n' they are the text again. */
const split = (text: string): string[] => text.split('\n');

function hunks(base: string[], other: string[], side: Hunk['side']): Hunk[] {
  const out: Hunk[] = [];
  let i = 0;
  let open: Hunk | undefined;
  for (const part of diffArrays(base, other)) {
    if (!part.added && !part.removed) {
      if (open) out.push(open);
      open = undefined;
      i += part.value.length;
      continue;
    }
    open ??= { start: i, end: i, lines: [], side };
    if (part.removed) {
      i += part.value.length;
      open.end = i;
    } else open.lines.push(...part.value);
  }
  if (open) out.push(open);
  return out;
}

/** One side's text over base [start, end), from its hunks inside that range. */
function sideText(base: string[], hs: Hunk[], start: number, end: number): string[] {
  const out: string[] = [];
  let i = start;
  for (const h of hs) {
    out.push(...base.slice(i, h.start), ...h.lines);
    i = h.end;
  }
  out.push(...base.slice(i, end));
  return out;
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Hunks of the two sides touch when their base ranges overlap, or both insert at the same place
 * (their order is unknowable). A change next to the other side's change is not a conflict: in a
 * workspace that is another field or another item.
 */
function overlaps(h: Hunk, start: number, end: number): boolean {
  if (h.start < end && start < h.end) return true;
  return h.start === h.end && start === end && h.start === start;
}

export function merge3(baseText: string, mineText: string, theirsText: string): Merge {
  const base = split(baseText);
  const mine = hunks(base, split(mineText), 'mine');
  const theirs = hunks(base, split(theirsText), 'theirs');
  const all = [...mine, ...theirs].sort((a, b) => a.start - b.start || a.end - b.end || (a.side === 'mine' ? -1 : 1));
  const chunks: MergeChunk[] = [];
  let at = 0;
  /** Line numbers (1-based) in mine and in theirs where the next chunk starts. */
  let mineLine = 1;
  let theirsLine = 1;
  let conflicts = 0;
  let theirsChanges = 0;
  for (let k = 0; k < all.length; ) {
    const cluster = [all[k]!];
    let start = all[k]!.start;
    let end = all[k]!.end;
    for (k++; k < all.length && overlaps(all[k]!, start, end); k++) {
      cluster.push(all[k]!);
      start = Math.min(start, all[k]!.start);
      end = Math.max(end, all[k]!.end);
    }
    if (start > at) {
      const lines = base.slice(at, start);
      chunks.push({ kind: 'same', lines });
      mineLine += lines.length;
      theirsLine += lines.length;
    }
    const m = cluster.filter((h) => h.side === 'mine');
    const t = cluster.filter((h) => h.side === 'theirs');
    const b = base.slice(start, end);
    const mineLines = sideText(base, m, start, end);
    const theirsLines = sideText(base, t, start, end);
    const kind = !t.length ? 'mine' : !m.length ? 'theirs' : same(mineLines, theirsLines) ? 'both' : 'conflict';
    chunks.push({ kind, base: b, mine: mineLines, theirs: theirsLines, baseLine: start + 1, mineLine, theirsLine });
    if (kind === 'conflict') conflicts++;
    if (kind === 'theirs' || kind === 'conflict') theirsChanges++;
    mineLine += mineLines.length;
    theirsLine += theirsLines.length;
    at = end;
  }
  if (at < base.length) chunks.push({ kind: 'same', lines: base.slice(at) });
  return { chunks, conflicts, theirsChanges };
}

const yamlBroken = (text: string): boolean => parseDocument(text, { uniqueKeys: false }).errors.length > 0;

/**
 * The merge, checked: if taking every clean change would make text that is not YAML (two edits
 * next to each other that only make sense apart), each change on disk becomes the user's choice.
 */
export function mergeWorkspace(baseText: string, mineText: string, theirsText: string): Merge {
  const m = merge3(baseText, mineText, theirsText);
  if (m.conflicts || !m.theirsChanges || !yamlBroken(mergedText(m, [])) || yamlBroken(mineText) || yamlBroken(theirsText)) return m;
  const why = 'taking both sides here would not be valid YAML';
  const chunks = m.chunks.map((c): MergeChunk => (c.kind === 'theirs' ? { ...c, kind: 'conflict', why } : c));
  return { chunks, conflicts: chunks.filter((c) => c.kind === 'conflict').length, theirsChanges: m.theirsChanges };
}

/** The merged text; `choices[i]` decides the i-th conflict (undefined: mine). */
export function mergedText(m: Merge, choices: readonly (Side | undefined)[]): string {
  const out: string[] = [];
  let n = 0;
  for (const c of m.chunks) {
    if (c.kind === 'same') out.push(...c.lines);
    else if (c.kind === 'theirs') out.push(...c.theirs);
    else if (c.kind === 'conflict') out.push(...(choices[n++] === 'theirs' ? c.theirs : c.mine));
    else out.push(...c.mine);
  }
  return out.join('\n');
}

/** The conflicts, in order. */
export const conflictsOf = (m: Merge) => m.chunks.filter((c): c is Extract<MergeChunk, { kind: 'conflict' }> => c.kind === 'conflict');

/**
 * What keeping mine over the file on disk loses: every line the disk's changes brought that mine
 * does not have there (`dropped`), and how many lines they removed that come back (`restored`).
 */
export function overwriteLoss(m: Merge): { dropped: string[]; restored: number } {
  const dropped: string[] = [];
  let restored = 0;
  for (const c of m.chunks) {
    if (c.kind !== 'theirs' && c.kind !== 'conflict') continue;
    const left = [...c.mine];
    for (const line of c.theirs) {
      const i = left.indexOf(line);
      if (i >= 0) left.splice(i, 1);
      else dropped.push(line);
    }
    const kept = [...c.theirs];
    for (const line of c.base) {
      const i = kept.indexOf(line);
      if (i >= 0) kept.splice(i, 1);
      else if (c.mine.includes(line)) restored++;
    }
  }
  return { dropped, restored };
}

/**
 * The field or item at each line (1-based) of a workspace's text: `['servers', 1, 'weight']`, or
 * the deepest part that holds the line; [] when the text does not parse or the line is outside.
 */
export function pathsAtLines(text: string, lines: readonly number[]): PathSegment[][] {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length) return lines.map(() => []);
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return lines.map((line) => {
    let offset = starts[line - 1];
    if (offset === undefined) return [];
    // The first character of the line that is not blank or a list dash: the thing the line is about.
    while (offset < text.length && /[ \t-]/.test(text[offset]!)) offset++;
    return pathAt(doc.contents as Node | null, offset);
  });
}

export const pathAtLine = (text: string, line: number): PathSegment[] => pathsAtLines(text, [line])[0]!;

function pathAt(root: Node | null, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  let node = root;
  const within = (n: { range?: [number, number, number] | null } | null | undefined) => !!n?.range && n.range[0] <= offset && offset < n.range[2];
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && (within(p.key as Node) || within(p.value as Node) || keyToValue(p.key as Node, p.value as Node, offset)));
      if (!pair) return path;
      path.push(isScalar(pair.key) ? String(pair.key.value) : String(pair.key));
      if (within(pair.key as Node) && !within(pair.value as Node)) return path;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((it) => within(it as Node));
      if (i < 0) return path;
      path.push(i);
      node = node.items[i] as Node;
    } else return path;
  }
}

/** Between a key and its value (the `: ` or a comment there). */
function keyToValue(key: Node | null, value: Node | null, offset: number): boolean {
  return !!key?.range && !!value?.range && key.range[0] <= offset && offset < value.range[0];
}
