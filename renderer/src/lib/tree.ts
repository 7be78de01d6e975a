// Paths into the workspace document: arrays of keys and indexes, and one string form for lookups.
export type Path = (string | number)[];

/** `targetSets.0.leastLoad.mpsFactor`: the key used for field ids, error lookup and jumps. */
export function pathKey(path: Path): string {
  return path.join('.');
}

/** Accepts `a.b[0].c`, `a.b.0.c`, `/a/b/0/c` or an array, and gives the Path. */
export function parsePath(text: string | Path): Path {
  if (Array.isArray(text)) return text;
  return text
    .replace(/\[(\d+)\]/g, '.$1')
    .split(/[./]/)
    .filter((s) => s.length > 0)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Reads a plain JS value at a path (undefined when any step is missing). */
export function getIn(root: unknown, path: Path): unknown {
  let cur: unknown = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** Writes a plain JS value at a path, creating containers; undefined deletes the key. */
export function setIn(root: Record<string, unknown>, path: Path, value: unknown): void {
  if (path.length === 0) return;
  let cur = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    let next = cur[k];
    if (next === null || typeof next !== 'object') {
      next = typeof path[i + 1] === 'number' ? [] : {};
      cur[k] = next;
    }
    cur = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
    else delete cur[last];
  } else cur[last] = value;
}

/**
 * A copy of `root` with the value at `path` replaced by `fn(old)` (undefined removes it):
 * containers along the path are copied, everything else is shared. Missing containers are made.
 */
export function updateIn(root: unknown, path: Path, fn: (old: unknown) => unknown): unknown {
  if (path.length === 0) return fn(root);
  const [k, ...rest] = path as [string | number, ...Path];
  const base: Record<string | number, unknown> | unknown[] =
    Array.isArray(root) ? [...root] : root && typeof root === 'object' ? { ...(root as object) } : typeof k === 'number' ? [] : {};
  const next = updateIn((base as Record<string | number, unknown>)[k], rest, fn);
  if (next === undefined && rest.length === 0) {
    if (Array.isArray(base) && typeof k === 'number') base.splice(k, 1);
    else delete (base as Record<string | number, unknown>)[k];
  } else (base as Record<string | number, unknown>)[k] = next;
  return base;
}

/** The lists of named objects at the top of a workspace. */
export const ITEM_LISTS = ['servers', 'groups', 'services', 'targetSets', 'appliances'] as const;
export type ItemList = (typeof ITEM_LISTS)[number];

export function isItemList(k: unknown): k is ItemList {
  return typeof k === 'string' && (ITEM_LISTS as readonly string[]).includes(k);
}

/**
 * The smallest subtree an edit at `path` lives in: one item of a top-level list (`servers.3`),
 * or one top-level key. Undo snapshots and UI refreshes work on this unit.
 */
export function itemRoot(path: Path): Path {
  if (isItemList(path[0]) && typeof path[1] === 'number') return path.slice(0, 2);
  return path.slice(0, 1);
}

export function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => String(path[i]) === String(k));
}

/**
 * Same data? Edits keep the identity of what they did not touch, so comparing two versions of a big
 * workspace only walks the paths that changed. A key set to undefined counts as absent.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameData(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const ka = keys(ao);
  return ka.length === keys(bo).length && ka.every((k) => sameData(ao[k], bo[k]));
}
