// Multi-selection in a list: plain click picks one, Ctrl/Cmd toggles, Shift takes the range from
// the anchor (the last plain or Ctrl pick) in the order shown (sorted, filtered).
export interface Selection<K> {
  keys: ReadonlySet<K>;
  /** Where a Shift range starts. */
  anchor?: K;
  /** The row the keyboard is on (its editor is open). */
  cursor?: K;
}

export interface Mods { shift?: boolean; toggle?: boolean }

export const single = <K>(key: K | undefined): Selection<K> => (key === undefined ? { keys: new Set() } : { keys: new Set([key]), anchor: key, cursor: key });

function range<K>(order: readonly K[], from: K | undefined, to: K): Set<K> {
  const a = from === undefined ? -1 : order.indexOf(from);
  const b = order.indexOf(to);
  if (a < 0 || b < 0) return new Set([to]);
  const [lo, hi] = a < b ? [a, b] : [b, a];
  return new Set(order.slice(lo, hi + 1));
}

/** A click (or an arrow key, with Shift for a range) on `key`. */
export function pick<K>(sel: Selection<K>, order: readonly K[], key: K, mods: Mods = {}): Selection<K> {
  if (mods.shift) return { keys: range(order, sel.anchor ?? sel.cursor, key), anchor: sel.anchor ?? sel.cursor ?? key, cursor: key };
  if (mods.toggle) {
    const keys = new Set(sel.keys);
    if (keys.has(key)) keys.delete(key);
    else keys.add(key);
    return { keys, anchor: key, cursor: key };
  }
  return single(key);
}

/** Ctrl+A: every row shown; the cursor stays where it was. */
export function all<K>(sel: Selection<K>, order: readonly K[]): Selection<K> {
  return { keys: new Set(order), anchor: order[0], cursor: sel.cursor ?? order[0] };
}

/** The selected keys in the order shown. */
export function inOrder<K>(sel: Selection<K>, order: readonly K[]): K[] {
  return order.filter((k) => sel.keys.has(k));
}

/** Drops keys that no longer exist (after an undo or a removal), keeping the rest. */
export function keep<K>(sel: Selection<K>, exists: (k: K) => boolean): Selection<K> {
  const keys = new Set([...sel.keys].filter(exists));
  if (keys.size === sel.keys.size) return sel;
  return { keys, anchor: sel.anchor !== undefined && exists(sel.anchor) ? sel.anchor : undefined, cursor: sel.cursor !== undefined && exists(sel.cursor) ? sel.cursor : undefined };
}
