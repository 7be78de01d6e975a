// From a field path to the YAML node that holds it, and from a node to line:col.
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import type { PathSegment } from './problem';

interface Found {
  /** The node at the path, when all of it exists. */
  node?: Node;
  /** The map pair whose value is `node` (or whose key is the last segment found). */
  pair?: Pair;
  /** Source offset of the deepest part of the path that exists (a value, or a key without one). */
  offset?: number;
  /** How many segments were found. */
  depth: number;
}

function keyMatches(pair: Pair, key: PathSegment): boolean {
  const k = pair.key;
  if (isScalar(k)) return String(k.value) === String(key);
  // A collection key (`? [a, b]`) reaches the schema as its flow text, "[ a, b ]".
  if ((isSeq(k) || isMap(k)) && typeof key === 'string') return key.startsWith(isSeq(k) ? '[' : '{');
  return k === key;
}

/**
 * Follows `path` through maps and lists (and through aliases to their anchors). `aliasAt` is the
 * first alias passed: a problem past it is placed there, where the user wrote the entry (a second
 * `*s` of a server is a duplicate where `*s` is, not at the anchor).
 */
function follow(doc: Document, path: readonly PathSegment[]): Found & { aliasAt?: number } {
  let node = doc.contents as Node | null;
  let pair: Pair | undefined;
  let offset = node?.range?.[0];
  let aliasAt: number | undefined;
  for (let i = 0; i < path.length; i++) {
    if (node && isAlias(node)) {
      aliasAt ??= node.range?.[0];
      node = (node.resolve(doc) as Node | undefined) ?? null;
    }
    if (!node) return { pair, offset, depth: i, aliasAt };
    const seg = path[i]!;
    if (isMap(node)) {
      pair = node.items.find((p) => isPair(p) && keyMatches(p, seg));
      if (!pair) return { offset, depth: i, aliasAt };
      node = (pair.value as Node | null) ?? null;
      // An empty value (`key:`) has no text of its own: point at its key.
      const empty = !node?.range || (isScalar(node) && node.range[0] === node.range[1]);
      offset = (empty ? (isScalar(pair.key) ? pair.key.range?.[0] : undefined) : node!.range![0]) ?? offset;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | null | undefined;
      pair = undefined;
      if (item === undefined) return { offset, depth: i, aliasAt };
      node = item;
      offset = node?.range?.[0] ?? offset;
    } else {
      return { offset, depth: i, aliasAt };
    }
  }
  return { node: node ?? undefined, pair, offset, depth: path.length, aliasAt };
}

/** The path of the map key or list item at a source offset (the deepest one that holds it). */
export function pathAt(doc: Document, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  const inside = (n: { range?: [number, number, number] | null } | null | undefined) => !!n?.range && offset >= n.range[0] && offset < n.range[2];
  let node = doc.contents as Node | null;
  for (let depth = 0; node && depth < 64; depth++) {
    let next: Node | null = null;
    if (isMap(node)) {
      for (const p of node.items) {
        if (!isPair(p) || !isScalar(p.key)) continue;
        if (inside(p.key)) return [...path, String(p.key.value)];
        if (inside(p.value as Node | null)) {
          path.push(String(p.key.value));
          next = p.value as Node;
          break;
        }
      }
    } else if (isSeq(node)) {
      const i = node.items.findIndex((item) => inside(item as Node | null));
      if (i >= 0) {
        path.push(i);
        next = node.items[i] as Node;
      }
    }
    node = next;
  }
  return path;
}

export interface Position {
  line: number;
  col: number;
}

export function positionOf(offset: number, lines: LineCounter): Position {
  const { line, col } = lines.linePos(offset);
  return { line, col };
}

/**
 * Where a problem about `path` should point: the value when it exists (`at: 'key'` points at
 * an unknown key's name instead); for a missing field, the nearest part of its path that exists.
 */
export function locate(doc: Document, lines: LineCounter, path: readonly PathSegment[], at: 'value' | 'key' = 'value'): Position {
  const found = follow(doc, path);
  if (found.aliasAt !== undefined) return positionOf(found.aliasAt, lines);
  const key = found.pair?.key as Node | null | undefined;
  if (at === 'key' && found.depth === path.length && key?.range) return positionOf(key.range[0], lines);
  return found.offset === undefined ? { line: 1, col: 1 } : positionOf(found.offset, lines);
}
