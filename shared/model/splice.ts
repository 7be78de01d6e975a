// The text splices behind the document editor: where a node's text starts and ends, and the
// exact replacement text for each kind of edit. Pure functions of the source text and nodes.
import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { blockLines, flowText, isCollection, isEmptyCollection, isPlainSafe, scalarText, type Style } from './render';

export class EditError extends Error {}

/** A replacement of text[at, end) by `text`. */
export interface Splice {
  at: number;
  end: number;
  text: string;
}

/** Where an edit lands: the value node (undefined when the key or index is new) and its parent. */
export interface Target {
  parent: Node | null;
  /** True when some collection on the path is in flow style. */
  inFlow: boolean;
  pair?: Pair;
  node?: Node | null;
}

type Json = unknown;


/** Where the line holding `pos` starts; line 1 after a byte-order mark (it is no column). */
const lineStart = (text: string, pos: number) => {
  const at = text.lastIndexOf('\n', pos - 1) + 1;
  return at === 0 && text.charCodeAt(0) === 0xfeff && pos > 0 ? 1 : at;
};
/** Just past the newline that ends the line holding `pos` (or the end of the text). */
function lineEndIncl(text: string, pos: number): number {
  if (pos > 0 && text[pos - 1] === '\n') return pos;
  const i = text.indexOf('\n', pos);
  return i < 0 ? text.length : i + 1;
}
const colOf = (text: string, pos: number) => pos - lineStart(text, pos);
const onlySpaceBefore = (text: string, pos: number) => /^[ \t]*$/.test(text.slice(lineStart(text, pos), pos));
const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

export function start(node: Node | null | undefined): number {
  if (!node?.range) throw new EditError('node has no source position');
  return node.range[0];
}

/** Where a node's own content ends (block collections: the end of their last value). */
function contentEnd(node: Node | null | undefined): number | undefined {
  if (!node?.range) return undefined;
  if (isMap(node) && !node.flow) {
    const last = node.items[node.items.length - 1];
    return last ? pairEnd(last) : node.range[1];
  }
  if (isSeq(node) && !node.flow) {
    const last = node.items[node.items.length - 1] as Node | null | undefined;
    return contentEnd(last) ?? node.range[1];
  }
  return node.range[1];
}

function pairEnd(pair: Pair): number {
  const v = contentEnd(pair.value as Node | null);
  if (v !== undefined) return v;
  const k = pair.key as Node | null;
  if (k?.range) return k.range[1];
  throw new EditError('pair has no source position');
}


/**
 * The user's quoting style, kept when a value is replaced. Quotes the old value needed are not
 * a style: an empty string, or a half-typed `127.0` that reads as a number, had to be quoted;
 * the value typed after it is written plain when it can be.
 */
function styleOf(node: Node | null | undefined, inFlow: boolean): Style | undefined {
  if (!node || !isScalar(node)) return undefined;
  const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
  if (quoted && (typeof node.value !== 'string' || !isPlainSafe(node.value, inFlow, false))) return undefined;
  return node.type as Style | undefined;
}

/** Replaces an existing value node. */
export function replaceValue(text: string, t: Target, value: Json): Splice {
  const node = t.node!;
  const eol = eolOf(text);
  const from = start(node);
  const blockColl = (isMap(node) || isSeq(node)) && !node.flow;
  if (blockColl && !t.inFlow && isCollection(value) && !isEmptyCollection(value)) {
    const ind = colOf(text, from);
    const lines = blockLines(value, ind);
    return { at: from, end: lineEndIncl(text, contentEnd(node)!), text: lines.join(eol).slice(ind) + eol };
  }
  const piece = isCollection(value) ? flowText(value) : scalarText(value, { inFlow: t.inFlow, style: styleOf(node, t.inFlow) });
  if (blockColl) {
    // Collapse the block onto the key's line (`members: []`), keeping the key line's comment.
    const keyNode = t.pair?.key as Node | undefined;
    if (keyNode?.range) {
      const colon = text.indexOf(':', keyNode.range[1]);
      const keyLineEnd = lineEndIncl(text, colon + 1);
      const rest = text.slice(colon + 1, keyLineEnd).replace(/\r?\n$/, '');
      const comment = /^\s*#/.test(rest) ? rest : '';
      return { at: colon + 1, end: lineEndIncl(text, contentEnd(node)!), text: ` ${piece}${comment}${eol}` };
    }
    return { at: from, end: lineEndIncl(text, contentEnd(node)!), text: piece + eol };
  }
  const end = node.range![1];
  const emptyNull = from === end;
  if (emptyNull && !t.inFlow && isCollection(value) && !isEmptyCollection(value) && t.pair?.key) {
    // `key:` with nothing after it (maybe a comment): write the block below the key's line, so
    // the comment stays on it.
    const ind = colOf(text, start(t.pair.key as Node)) + 2;
    const at = lineEndIncl(text, from);
    const needsBreak = at > 0 && text[at - 1] !== '\n';
    return { at, end: at, text: (needsBreak ? eol : '') + blockLines(value, ind).join(eol) + eol };
  }
  const pad = emptyNull && !/\s/.test(text[from - 1] ?? ' ') ? ' ' : '';
  // `key:   # comment` with no value: the value goes before the comment, spaced from it.
  if (emptyNull && text[from] === '#') return { at: from, end, text: `${pad}${piece} ` };
  // Block scalars (`|`, `>`) own their final line break; keep one after the new value.
  const tail = end > from && text[end - 1] === '\n' ? eol : '';
  return { at: from, end, text: pad + piece + tail };
}

/**
 * From a line start, past the comment lines indented deeper than `minIndent - 1` that follow:
 * they belong to the entry above (the example ends its last appliance with such a block), so
 * a new entry goes after them, not between the entry and its comments.
 */
function afterOwnComments(text: string, at: number, minIndent: number): number {
  let p = at;
  for (;;) {
    const m = /^([ \t]*)#[^\n]*(?:\n|$)/.exec(text.slice(p, p + 4096));
    if (!m || m[1]!.length < minIndent || m[0].length === 0) return p;
    p += m[0].length;
    if (p >= text.length) return p;
  }
}

export function keyText(key: string, inFlow: boolean): string {
  return scalarText(key, { inFlow, key: true });
}

/** Adds `key: value` to a mapping: before the pair `before` when given (and placeable), else last. */
export function insertPair(text: string, map: YAMLMap, inFlow: boolean, key: string, value: Json, before?: Pair): Splice {
  const eol = eolOf(text);
  const items = map.items as Pair[];
  const beforeKey = before?.key as Node | undefined;
  if (map.flow || inFlow) {
    const entry = `${keyText(key, true)}: ${flowText(value)}`;
    if (items.length === 0) return { at: start(map), end: map.range![1], text: `{ ${entry} }` };
    if (beforeKey?.range) {
      // A flow mapping written one entry per line: a line of its own, above the next one's comments.
      if (onlySpaceBefore(text, start(beforeKey))) {
        const col = colOf(text, start(beforeKey));
        const at = aboveOwnComments(text, lineStart(text, start(beforeKey)), col);
        return { at, end: at, text: `${' '.repeat(col)}${entry},${eol}` };
      }
      return { at: start(beforeKey), end: start(beforeKey), text: `${entry}, ` };
    }
    const at = pairEnd(items[items.length - 1]!);
    return { at, end: at, text: `, ${entry}` };
  }
  const first = items[0]?.key as Node | undefined;
  if (!first) throw new EditError('empty block map');
  const ind = colOf(text, start(first));
  const pad = ' '.repeat(ind);
  let line: string;
  if (isCollection(value) && !isEmptyCollection(value)) line = `${pad}${keyText(key, false)}:${eol}${blockLines(value, ind + 2).join(eol)}`;
  else line = `${pad}${keyText(key, false)}: ${isCollection(value) ? flowText(value) : scalarText(value)}`;
  // Before a pair that starts its own line (not the first of a `- ` entry), above its comments.
  if (beforeKey?.range && onlySpaceBefore(text, start(beforeKey))) {
    const at = aboveOwnComments(text, lineStart(text, start(beforeKey)), ind);
    return { at, end: at, text: line + eol };
  }
  const at = afterOwnComments(text, lineEndIncl(text, pairEnd(items[items.length - 1]!)), ind + 1);
  const needsBreak = at > 0 && text[at - 1] !== '\n';
  return { at, end: at, text: (needsBreak ? eol : '') + line + eol };
}

/** From a line start, back over the comment lines at exactly `indent` just above: the next key's own. */
function aboveOwnComments(text: string, at: number, indent: number): number {
  let p = at;
  while (p > 0) {
    const prev = lineStart(text, p - 1);
    const m = /^([ \t]*)#/.exec(text.slice(prev, p));
    if (!m || m[1]!.length !== indent) return p;
    p = prev;
  }
  return p;
}

export function appendItem(text: string, seq: YAMLSeq, inFlow: boolean, value: Json): Splice {
  const eol = eolOf(text);
  const items = seq.items as (Node | null)[];
  if (seq.flow && !inFlow && items.length === 0 && isCollection(value) && !Array.isArray(value) && !isEmptyCollection(value)) {
    // The first entry of an empty `key: []` in a block mapping: a block list, one entry per line
    // (as the example workspace writes members), so the next change is one line of a diff.
    const from = start(seq);
    const lineStartAt = text.lastIndexOf('\n', from - 1) + 1;
    const keyCol = /^[\s-]*/.exec(text.slice(lineStartAt, from))![0].length;
    const lineEnd = lineEndIncl(text, seq.range![1]);
    const rest = text.slice(seq.range![1], lineEnd).replace(/\r?\n$/, '');
    let cutFrom = from;
    while (cutFrom > lineStartAt && text[cutFrom - 1] === ' ') cutFrom--;
    return { at: cutFrom, end: lineEnd, text: `${rest}${eol}${' '.repeat(keyCol + 2)}- ${flowText(value)}${eol}` };
  }
  if (seq.flow || inFlow) {
    const piece = isCollection(value) ? flowText(value) : scalarText(value, { inFlow: true });
    if (items.length === 0) return { at: start(seq), end: seq.range![1], text: `[${piece}]` };
    const at = contentEnd(items[items.length - 1])!;
    return { at, end: at, text: `, ${piece}` };
  }
  const ind = colOf(text, start(seq));
  const pad = ' '.repeat(ind);
  const prev = items[items.length - 1];
  const prevFlow = prev && (isMap(prev) || isSeq(prev)) && prev.flow;
  let line: string;
  if (isCollection(value) && !isEmptyCollection(value) && !prevFlow && !Array.isArray(value)) {
    line = blockLines([value], ind).join(eol);
  } else {
    line = `${pad}- ${isCollection(value) ? flowText(value) : scalarText(value)}`;
  }
  const at = afterOwnComments(text, lineEndIncl(text, contentEnd(prev)!), ind + 1);
  const needsBreak = at > 0 && text[at - 1] !== '\n';
  return { at, end: at, text: (needsBreak ? eol : '') + line + eol };
}

/** Removes item `i` of a collection (pairs of a map, entries of a list). */
export function cut(text: string, coll: YAMLMap | YAMLSeq, i: number): Splice {
  const items = coll.items as (Pair | Node | null)[];
  const begin = (x: Pair | Node | null): number => (x && 'key' in x ? start(x.key as Node) : start(x as Node));
  const finish = (x: Pair | Node | null): number => (x && 'key' in x ? pairEnd(x) : contentEnd(x as Node)!);
  const item = items[i]!;
  if (coll.flow) {
    if (i < items.length - 1) return { at: begin(item), end: begin(items[i + 1]!), text: '' };
    return { at: finish(items[i - 1]!), end: finish(item), text: '' };
  }
  let from = begin(item);
  if (isSeq(coll)) {
    // Back up over the `- ` indicator.
    let p = from - 1;
    while (p >= 0 && /\s/.test(text[p]!)) p--;
    if (text[p] !== '-') throw new EditError('list item without its indicator');
    from = p;
  }
  if (onlySpaceBefore(text, from)) return { at: lineStart(text, from), end: lineEndIncl(text, finish(item)), text: '' };
  // `- name: web` : the next key moves up behind the indicator.
  const next = items[i + 1];
  if (next) return { at: from, end: begin(next), text: '' };
  throw new EditError('cannot remove the only entry on a shared line');
}
