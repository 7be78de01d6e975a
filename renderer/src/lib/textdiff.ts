// A config diff people can read: rows with word-level changes, grouped into the file's sections
// (haproxy `backend web`, keepalived `virtual_server …`), the lbdesk header line kept apart (its
// hash changes with every edit, it is not a change of its own).
import { diffArrays, parsePatch } from 'diff';

export interface Seg { text: string; changed: boolean }
export interface Row { kind: 'ctx' | 'add' | 'del' | 'gap'; text: string; oldNo?: number; newNo?: number; segs?: Seg[]; skipped?: number }
export interface Section { name: string; rows: Row[]; added: number; removed: number }
export interface Header { before?: string; after?: string }
export interface TextDiff { sections: Section[]; added: number; removed: number; header: Header; changed: boolean }

const HEADER = /^# lbdesk: /;
/** Word diffs cost O(n·d): past this a changed line is shown whole. */
const WORD_LIMIT = 600;

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out.at(-1) === '') out.pop();
  return out;
}

/** The hash a header names, for the diff's title line. */
export function headerHash(line: string | undefined): string | undefined {
  return line ? /sha256 ([0-9a-f]{12})/.exec(line)?.[1] : undefined;
}

/** Two whole texts (a history version, the running config, the rendered one). */
export function compareTexts(before: string, after: string): TextDiff {
  const a = lines(before);
  const b = lines(after);
  const header: Header = {};
  if (a.length && HEADER.test(a[0]!)) header.before = a.shift();
  if (b.length && HEADER.test(b[0]!)) header.after = b.shift();
  const off = { a: header.before ? 2 : 1, b: header.after ? 2 : 1 };
  const rows: Row[] = [];
  let i = 0;
  let j = 0;
  for (const part of diffArrays(a, b)) {
    for (const text of part.value) {
      if (part.added) rows.push({ kind: 'add', text, newNo: off.b + j++ });
      else if (part.removed) rows.push({ kind: 'del', text, oldNo: off.a + i++ });
      else rows.push({ kind: 'ctx', text, oldNo: off.a + i++, newNo: off.b + j++ });
    }
  }
  return finish(rows, header);
}

/** A unified patch (what `appliance.diff` sends): its hunks, the lines between them as gaps. */
export function comparePatch(patch: string): TextDiff {
  const rows: Row[] = [];
  const header: Header = {};
  const file = parsePatch(patch)[0];
  let nextOld = 1;
  for (const h of file?.hunks ?? []) {
    if (h.oldStart > nextOld) rows.push({ kind: 'gap', text: '', skipped: h.oldStart - nextOld });
    let o = h.oldStart;
    let n = h.newStart;
    for (const raw of h.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      if (mark === '\\') continue;
      if (mark === '-' && o === 1 && HEADER.test(text)) { header.before = text; o++; continue; }
      if (mark === '+' && n === 1 && HEADER.test(text)) { header.after = text; n++; continue; }
      if (mark === '+') rows.push({ kind: 'add', text, newNo: n++ });
      else if (mark === '-') rows.push({ kind: 'del', text, oldNo: o++ });
      else rows.push({ kind: 'ctx', text, oldNo: o++, newNo: n++ });
    }
    nextOld = o;
  }
  return finish(rows, header);
}

/** A line at the left margin that opens a block: `backend web`, `virtual_server 192.0.2.10 80 {`, `servers:`. */
function sectionName(text: string): string | undefined {
  if (!text || /^[\s#;}!]/.test(text)) return undefined;
  return text.replace(/\s*\{\s*$/, '').trim();
}

function finish(rows: Row[], header: Header): TextDiff {
  words(rows);
  const sections: Section[] = [];
  let cur: Section = { name: 'start of file', rows: [], added: 0, removed: 0 };
  // Only the lines of a row that are shown count: after a gap (a short patch) the section is
  // unknown until a line opens one, so it is named by its first line number.
  const named = (x: Section) => x.rows.some((r) => r.kind !== 'gap');
  for (const r of rows) {
    const name = r.kind === 'gap' ? undefined : sectionName(r.text);
    if (r.kind === 'gap' && cur.rows.length) {
      sections.push(cur);
      cur = { name: '', rows: [], added: 0, removed: 0 };
    } else if (name !== undefined && named(cur)) {
      sections.push(cur);
      cur = { name, rows: [], added: 0, removed: 0 };
    } else if (name !== undefined) cur.name = name;
    if (!cur.name && r.kind !== 'gap') cur.name = `from line ${r.newNo ?? r.oldNo}`;
    cur.rows.push(r);
    if (r.kind === 'add') cur.added++;
    if (r.kind === 'del') cur.removed++;
  }
  if (cur.rows.length) sections.push(cur);
  const added = sections.reduce((s, x) => s + x.added, 0);
  const removed = sections.reduce((s, x) => s + x.removed, 0);
  return { sections, added, removed, header, changed: added + removed > 0 };
}

/** Pairs each run of removed lines with the added lines after it and marks the words that differ. */
function words(rows: Row[]): void {
  for (let k = 0; k < rows.length;) {
    if (rows[k]!.kind !== 'del') { k++; continue; }
    const dels: Row[] = [];
    while (k < rows.length && rows[k]!.kind === 'del') dels.push(rows[k++]!);
    const adds: Row[] = [];
    while (k < rows.length && rows[k]!.kind === 'add') adds.push(rows[k++]!);
    for (let p = 0; p < Math.min(dels.length, adds.length); p++) {
      const d = dels[p]!;
      const a = adds[p]!;
      if (d.text.length + a.text.length > WORD_LIMIT) continue;
      // Whole tokens between spaces: an address or `weight 85` reads as one changed word.
      const parts = diffArrays(d.text.split(/(\s+)/), a.text.split(/(\s+)/));
      d.segs = parts.filter((x) => !x.added).map((x) => ({ text: x.value.join(''), changed: !!x.removed }));
      a.segs = parts.filter((x) => !x.removed).map((x) => ({ text: x.value.join(''), changed: !!x.added }));
    }
  }
}

/** Side by side: context on both sides, a run of removed lines beside the added lines that replace it. */
export function pairRows(rows: Row[]): { left?: Row; right?: Row; gap?: Row }[] {
  const out: { left?: Row; right?: Row; gap?: Row }[] = [];
  for (let k = 0; k < rows.length;) {
    const r = rows[k]!;
    if (r.kind === 'gap') { out.push({ gap: r }); k++; continue; }
    if (r.kind === 'ctx') { out.push({ left: r, right: r }); k++; continue; }
    const dels: Row[] = [];
    while (k < rows.length && rows[k]!.kind === 'del') dels.push(rows[k++]!);
    const adds: Row[] = [];
    while (k < rows.length && rows[k]!.kind === 'add') adds.push(rows[k++]!);
    for (let p = 0; p < Math.max(dels.length, adds.length); p++) out.push({ left: dels[p], right: adds[p] });
  }
  return out;
}
