// Editing a workspace without losing anything: every edit splices the source text at the
// nodes' ranges, so comments, key order, quoting, alignment and every untouched byte survive.
// The result is re-parsed and compared with the intended data; if the splice could not express
// the edit, the yaml Document API does it instead (comments kept, spacing normalised).
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { fieldOrder, insertBefore } from './field-order';
import type { PathSegment } from './problem';
import { documentData } from './aliases';
import { appendItem, cut, EditError, insertPair, keyText, replaceValue, start, type Splice, type Target } from './splice';

export { EditError };

interface DocState {
  text: string;
  lines: LineCounter;
}
const STATE = new WeakMap<Document, DocState>();

/** Parses `text` into a Document that remembers its source (for positions and lossless edits). */
export function createDocument(text: string): Document {
  const lines = new LineCounter();
  // logLevel 'error': yaml would otherwise print Node warnings (e.g. for collection keys) to stderr.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  // A byte-order mark is no column: line 1 starts after it, as an editor shows it.
  if (text.charCodeAt(0) === 0xfeff && lines.lineStarts[0] === 0) lines.lineStarts[0] = 1;
  STATE.set(doc, { text, lines });
  return doc;
}

/** The text of a document: exactly its source plus the edits made through these helpers. */
export function documentToText(doc: Document): string {
  return STATE.get(doc)?.text ?? doc.toString();
}

/** Line positions of the document's current text. */
export function documentLines(doc: Document): LineCounter {
  let st = STATE.get(doc);
  if (!st) {
    const fresh = createDocument(doc.toString());
    adopt(doc, fresh);
    st = STATE.get(doc)!;
  }
  return st.lines;
}

function adopt(doc: Document, fresh: Document): void {
  Object.assign(doc, fresh);
  STATE.set(doc, STATE.get(fresh)!);
}

// ---------------------------------------------------------------- finding the target

function resolvePath(doc: Document, path: readonly PathSegment[]): Target | undefined {
  let node = doc.contents as Node | null;
  let inFlow = false;
  let pair: Pair | undefined;
  let parent: Node | null = null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const lastSeg = i === path.length - 1;
    if (!node) return undefined;
    if (isMap(node)) {
      inFlow ||= node.flow === true;
      parent = node;
      pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return lastSeg ? { parent, inFlow, node: undefined } : undefined;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof seg === 'number') {
      inFlow ||= node.flow === true;
      parent = node;
      pair = undefined;
      if (seg < 0 || seg >= node.items.length) return lastSeg ? { parent, inFlow, node: undefined } : undefined;
      node = node.items[seg] as Node | null;
    } else if (isScalar(node) && node.value === null) {
      return undefined;
    } else if (isScalar(node)) {
      throw new EditError(`cannot edit inside ${JSON.stringify(node.value)}: it is not a mapping or a list`);
    } else {
      throw new EditError('cannot edit through an alias or a complex key');
    }
  }
  return { parent, inFlow, pair, node };
}

// ---------------------------------------------------------------- applying and verifying

type Json = unknown;
type Op =
  | { kind: 'set'; path: PathSegment[]; value: Json }
  | { kind: 'delete'; path: PathSegment[] }
  | { kind: 'add'; path: PathSegment[]; value: Json }
  | { kind: 'addMany'; path: PathSegment[]; values: Json[] }
  | { kind: 'remove'; path: PathSegment[]; index: number }
  | { kind: 'rename'; path: PathSegment[]; key: string };

/** A deep copy of plain data that keeps NaN and the infinities (YAML has them, JSON not). */
function clone<T>(v: T): T {
  if (v === undefined) return v;
  const NUM = '\u0000number';
  const text = JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? { [NUM]: String(x) } : x));
  return JSON.parse(text, (_k, x) => (x !== null && typeof x === 'object' && NUM in x ? Number(x[NUM]) : x)) as T;
}

function expected(before: Json, op: Op): Json {
  const root = { r: clone(before) } as Record<string, Json>;
  const path: PathSegment[] = ['r', ...op.path];
  let cur = root as Record<PathSegment, Json>;
  const upto = op.kind === 'set' || op.kind === 'delete' || op.kind === 'rename' ? path.length - 1 : path.length;
  const adding = op.kind === 'add' || op.kind === 'addMany';
  for (let i = 0; i < upto; i++) {
    const seg = path[i]!;
    if (cur[seg] === null || typeof cur[seg] !== 'object') {
      if (op.kind === 'delete') return before;
      cur[seg] = (adding && i === upto - 1) || typeof path[i + 1] === 'number' ? [] : {};
    }
    cur = cur[seg] as Record<PathSegment, Json>;
  }
  const last = path[path.length - 1]!;
  if (op.kind === 'set') cur[last] = clone(op.value);
  else if (op.kind === 'delete') {
    if (Array.isArray(cur)) cur.splice(Number(last), 1);
    else delete cur[last];
  } else if (op.kind === 'add') (cur as unknown as Json[]).push(clone(op.value));
  else if (op.kind === 'addMany') (cur as unknown as Json[]).push(...clone(op.values));
  else if (op.kind === 'remove') (cur as unknown as Json[]).splice(op.index, 1);
  else {
    const entries = Object.entries(cur).map(([k, v]) => [k === String(last) ? op.key : k, v] as const);
    for (const k of Object.keys(cur)) delete cur[k];
    for (const [k, v] of entries) cur[k] = v;
  }
  return root.r;
}

function same(a: Json, b: Json): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

const toJS = (doc: Document) => documentData(doc) as Json;

/** Tries the splice; falls back to the Document API; commits only what re-parses to `want`. */
function commit(doc: Document, op: Op, splice: () => Splice | undefined): void {
  if (doc.errors.length) throw new EditError('the document has YAML errors; fix them before editing fields');
  const before = toJS(doc);
  const want = expected(before, op);
  const text = documentToText(doc);
  let edit: Splice | undefined;
  try {
    edit = splice();
  } catch (e) {
    if (!(e instanceof EditError)) throw e;
  }
  if (edit) {
    const fresh = createDocument(text.slice(0, edit.at) + edit.text + text.slice(edit.end));
    if (fresh.errors.length === 0 && same(toJS(fresh), want)) return adopt(doc, fresh);
  }
  // Last resort: the Document API keeps comments but re-spaces the file.
  try {
    const alt = createDocument(text);
    if (op.kind === 'set') alt.setIn(op.path, op.value);
    else if (op.kind === 'delete') alt.deleteIn(op.path);
    else if (op.kind === 'add') alt.addIn(op.path, op.value);
    else if (op.kind === 'addMany') for (const v of op.values) alt.addIn(op.path, v);
    else if (op.kind === 'remove') alt.deleteIn([...op.path, op.index]);
    else throw new EditError('rename');
    const fresh = createDocument(alt.toString());
    if (fresh.errors.length === 0 && same(toJS(fresh), want)) return adopt(doc, fresh);
  } catch {
    /* reported below */
  }
  throw new EditError(`cannot apply the edit at ${op.path.join('.')}`);
}

// ---------------------------------------------------------------- public helpers

/** Sets the value at `path`, creating missing mappings on the way. */
export function setField(doc: Document, path: PathSegment[], value: Json): void {
  if (path.length === 0) throw new EditError('cannot replace the whole document');
  const t = resolvePath(doc, path);
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1]!;
  if (!t) {
    // Some ancestor is missing or empty: set the nearest one to a mapping that holds the rest.
    return setField(doc, parentPath, typeof last === 'number' ? (last === 0 ? [value] : bad(path)) : { [last]: value });
  }
  commit(doc, { kind: 'set', path, value }, () => {
    const text = documentToText(doc);
    if (t.node !== undefined) return replaceValue(text, t, value);
    if (t.parent && isMap(t.parent) && typeof last === 'string') return insertPair(text, t.parent, t.inFlow, last, value, placeFor(t.parent, parentPath, last));
    if (t.parent && isSeq(t.parent) && last === t.parent.items.length) return appendItem(text, t.parent, t.inFlow, value);
    if (t.parent === null) return bad(path);
    return undefined;
  });
}

/** The pair a new `key` goes before, in the schema's field order (none: it goes last). */
function placeFor(map: YAMLMap, mapPath: PathSegment[], key: string): Pair | undefined {
  const pairs = (map.items as Pair[]).filter((p) => isScalar(p.key));
  const next = insertBefore(fieldOrder(mapPath), pairs.map((p) => String((p.key as Scalar).value)), key);
  return next === undefined ? undefined : pairs.find((p) => String((p.key as Scalar).value) === next);
}

function bad(path: PathSegment[]): never {
  throw new EditError(`cannot set ${path.join('.')}: no such place`);
}

/** Removes the field at `path` (a no-op when it is absent). A mapping left empty becomes `{}`. */
export function deleteField(doc: Document, path: PathSegment[]): void {
  const t = resolvePath(doc, path);
  if (!t || t.node === undefined || !t.parent) return;
  const coll = t.parent as YAMLMap | YAMLSeq;
  if (coll.items.length === 1 && path.length > 1) return setField(doc, path.slice(0, -1), isSeq(coll) ? [] : {});
  const last = path[path.length - 1]!;
  const index = isMap(coll) ? coll.items.indexOf(t.pair!) : Number(last);
  commit(doc, { kind: 'delete', path }, () => cut(documentToText(doc), coll, index));
}

/** Appends `value` to the list at `listPath`, creating the list when it is missing. */
export function addItem(doc: Document, listPath: PathSegment[], value: Json): void {
  const t = resolvePath(doc, listPath);
  if (!t || !t.node || !isSeq(t.node)) {
    if (t?.node && !isScalar(t.node)) throw new EditError(`${listPath.join('.')} is not a list`);
    if (t?.node && isScalar(t.node) && t.node.value !== null) throw new EditError(`${listPath.join('.')} is not a list`);
    return setField(doc, listPath, [value]);
  }
  const seq = t.node;
  // inFlow says whether the list sits inside a flow collection; appendItem sees the list's own style.
  commit(doc, { kind: 'add', path: listPath, value }, () => appendItem(documentToText(doc), seq, t.inFlow, value));
}

/**
 * The one splice that appends `values` to an existing list, or undefined when one splice cannot
 * say it (a missing list, an empty `[]` that becomes a block list).
 */
export function appendSplice(doc: Document, listPath: PathSegment[], values: Json[]): Splice | undefined {
  const t = resolvePath(doc, listPath);
  if (!values.length || !t?.node || !isSeq(t.node) || !t.node.items.length) return undefined;
  const text = documentToText(doc);
  const seq = t.node;
  const pieces = values.map((v) => appendItem(text, seq, t.inFlow, v));
  const at = pieces[0]!.at;
  // Every entry goes after the last one: the same place, so the pieces join in order.
  if (pieces.some((p) => p.at !== at || p.end !== at)) return undefined;
  const lead = /^\r?\n/.exec(pieces[0]!.text)?.[0] ?? '';
  return { at, end: at, text: lead + pieces.map((p) => (lead && p.text.startsWith(lead) ? p.text.slice(lead.length) : p.text)).join('') };
}

/**
 * Appends many entries as one edit: one splice and one re-parse for the lot (a paste of 5,000
 * servers), where one addItem each would re-parse the growing file 5,000 times.
 */
export function addItems(doc: Document, listPath: PathSegment[], values: Json[]): void {
  if (!values.length) return;
  let rest = values;
  const t = resolvePath(doc, listPath);
  if (!t?.node || !isSeq(t.node) || !t.node.items.length) {
    // The first entry may create the list or turn `[]` into a block list: addItem knows how.
    addItem(doc, listPath, values[0]);
    rest = values.slice(1);
  }
  if (!rest.length) return;
  commit(doc, { kind: 'addMany', path: listPath, values: rest }, () => appendSplice(doc, listPath, rest));
}

/** Removes entry `index` of the list at `listPath`. */
export function removeItem(doc: Document, listPath: PathSegment[], index: number): void {
  const t = resolvePath(doc, listPath);
  if (!t?.node || !isSeq(t.node)) throw new EditError(`${listPath.join('.')} is not a list`);
  const seq = t.node;
  if (index < 0 || index >= seq.items.length) throw new EditError(`${listPath.join('.')} has no item ${index}`);
  if (seq.items.length === 1) return setField(doc, listPath, []);
  commit(doc, { kind: 'remove', path: listPath, index }, () => cut(documentToText(doc), seq, index));
}

/** Renames the key at `path` in place (for format migrations); its value and comments stay. */
export function renameKey(doc: Document, path: PathSegment[], newKey: string): void {
  const t = resolvePath(doc, path);
  if (!t?.pair || t.node === undefined) throw new EditError(`${path.join('.')} does not exist`);
  const key = t.pair.key as Node;
  commit(doc, { kind: 'rename', path, key: newKey }, () => ({ at: start(key), end: key.range![1], text: keyText(newKey, t.inFlow) }));
}
