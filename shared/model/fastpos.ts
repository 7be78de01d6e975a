// Field positions without the yaml Document: js-yaml's parse events rebuilt into a tree of node
// start offsets. Used to place the problems of a big workspace quickly; it must agree with
// `locate` on the Document, and gives up (undefined) on anything it cannot mirror exactly.
import { load } from 'js-yaml';
import type { PathSegment } from './problem';
import type { Position } from './locate';
import { CORE_LIKE } from './fastload';
import { MAX_DEPTH } from './limits';

/** Tags and directives change what a node's range covers; leave those files to the Document. */
const UNMIRRORED = /(?:^|[\s[{,])![^\s]|^%/m;
/** Aliases: js-yaml reports no node for them (loose on purpose: a plain `a *b` also gives up). */
const ALIAS = /(?:^|[\s[{,])\*[^\s]/;
/** A lone CR is a line break to YAML; the fast tree counts lines at LF. */
const LONE_CR = /\r(?!\n)/;

/** Skips spaces, line breaks and comments: where the node's own text begins. */
function contentStart(text: string, pos: number): number {
  let p = pos;
  for (;;) {
    const c = text.charCodeAt(p);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) p++;
    else if (c === 0x23 /* # */) {
      const nl = text.indexOf('\n', p);
      if (nl < 0) return text.length;
      p = nl + 1;
    } else return p;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export type Locator = (path: readonly PathSegment[], at: 'value' | 'key') => Position;

const SCALAR = 1;
const MAPPING = 2;
const SEQUENCE = 3;
const KIND: Record<string, number> = { scalar: SCALAR, mapping: MAPPING, sequence: SEQUENCE };

/** A locator for `text`, or undefined when the fast tree cannot be trusted to match `locate`. */
export function fastLocator(text: string): Locator | undefined {
  if (UNMIRRORED.test(text) || ALIAS.test(text) || LONE_CR.test(text)) return undefined;
  // js-yaml drops a byte-order mark before counting: its offsets would be off by it.
  if (text.charCodeAt(0) === 0xfeff) return undefined;
  // Flat arrays, one entry per node in parse order: big files have hundreds of thousands.
  const start: number[] = [];
  const parent: number[] = [];
  const kind: number[] = [];
  const value: unknown[] = [];
  const stack: number[] = [];
  try {
    load(text, {
      schema: CORE_LIKE,
      maxDepth: MAX_DEPTH,
      listener(event, state) {
        const s = state as unknown as { position: number; kind: string | null; result: unknown };
        if (event === 'open') {
          stack.push(start.length);
          start.push(s.position);
          parent.push(stack.length > 1 ? stack[stack.length - 2]! : -1);
          kind.push(0);
          value.push(undefined);
        } else {
          const i = stack.pop()!;
          kind[i] = KIND[s.kind ?? ''] ?? 0;
          if (kind[i] === SCALAR) value[i] = s.result;
        }
      },
    } as Parameters<typeof load>[1]);
  } catch {
    return undefined;
  }
  const n = start.length;
  if (n === 0) return undefined;

  // Children in order: first child and next sibling.
  const first = new Int32Array(n).fill(-1);
  const next = new Int32Array(n).fill(-1);
  const count = new Int32Array(n);
  for (let j = n - 1; j >= 0; j--) {
    const p = parent[j]!;
    if (p < 0) continue;
    next[j] = first[p]!;
    first[p] = j;
    count[p]!++;
  }
  // A collection item is reported twice (the item, then the collection itself): skip the wrapper.
  const wrapper = (i: number) => count[i] === 1 && kind[i] !== SCALAR && start[first[i]!] === start[i] && kind[first[i]!] === kind[i];
  const unwrap = (i: number) => {
    while (wrapper(i)) i = first[i]!;
    return i;
  };
  for (let i = 0; i < n; i++) {
    if (wrapper(i)) continue;
    if (kind[i] === MAPPING && count[i]! % 2 !== 0) return undefined;
    // An empty list item has no key to point at, and the two parsers place it differently.
    if (kind[i] === SEQUENCE) for (let c = first[i]!; c >= 0; c = next[c]!) if (kind[c] === 0) return undefined;
  }
  // Each collection's children as an array, made on first use: walking the sibling chain for
  // every lookup made placing the problems of a long list quadratic.
  const children = new Map<number, Int32Array>();
  const childrenOf = (i: number) => {
    let list = children.get(i);
    if (!list) {
      list = new Int32Array(count[i]!);
      for (let c = first[i]!, m = 0; c >= 0; c = next[c]!) list[m++] = c;
      children.set(i, list);
    }
    return list;
  };
  const childAt = (i: number, k: number) => childrenOf(i)[k] ?? -1;
  /** A mapping's key node by its text (the first, should a key repeat). */
  const keys = new Map<number, Map<string, number>>();
  const keyOf = (i: number, name: string) => {
    let byName = keys.get(i);
    if (!byName) {
      byName = new Map();
      const list = childrenOf(i);
      for (let m = list.length - 2; m >= 0; m -= 2) if (kind[list[m]!] === SCALAR) byName.set(String(value[list[m]!]), list[m]!);
      keys.set(i, byName);
    }
    return byName.get(name) ?? -1;
  };

  const starts = lineStarts(text);
  const position = (offset: number): Position => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  };
  const startOf = (i: number) => contentStart(text, start[i]!);

  return (path, at) => {
    let node = unwrap(0);
    let offset = startOf(node);
    let keyOffset: number | undefined;
    for (const seg of path) {
      keyOffset = undefined;
      if (kind[node] === MAPPING) {
        const key = keyOf(node, String(seg));
        if (key < 0) return position(offset);
        keyOffset = startOf(key);
        node = unwrap(next[key]!);
        // An empty value (`key:`) has no text of its own: point at its key, as `locate` does.
        offset = kind[node] === 0 ? keyOffset : startOf(node);
      } else if (kind[node] === SEQUENCE && typeof seg === 'number' && seg < count[node]!) {
        node = unwrap(childAt(node, seg));
        offset = startOf(node);
      } else {
        return position(offset);
      }
    }
    return position(at === 'key' && keyOffset !== undefined ? keyOffset : offset);
  };
}
