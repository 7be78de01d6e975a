// The UI's plain-JS mirror of the workspace and how one edit changes it: the same result the
// document helpers give the file (the document worker tests hold the two to that).
import type { EditOp } from '../document/protocol';
import { getIn, updateIn } from '../lib/tree';

export type Raw = Record<string, unknown>;

/** One edit applied to the mirror the way the document helpers apply it to the file; a new root. */
export function mirror(root: Raw, op: EditOp): Raw {
  switch (op.op) {
    case 'set':
      return updateIn(root, op.path, () => clone(op.value)) as Raw;
    case 'delete':
      // Like the document helper: removing what is not there changes nothing.
      return getIn(root, op.path) === undefined ? root : (updateIn(root, op.path, () => undefined) as Raw);
    case 'add':
      return updateIn(root, op.list, (list) => (Array.isArray(list) ? [...list, clone(op.item)] : [clone(op.item)])) as Raw;
    case 'addMany': {
      const items = clone(op.items) as unknown[];
      return updateIn(root, op.list, (list) => (Array.isArray(list) ? [...list, ...items] : items)) as Raw;
    }
    case 'remove':
      return updateIn(root, op.list, (list) => (Array.isArray(list) ? list.filter((_, i) => i !== op.index) : list)) as Raw;
  }
}

export const clone = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
/** Reactive proxies cannot cross to a worker: edits carry plain data. */
export const plain = (v: unknown): unknown => clone(v);

export { sameData } from '../lib/tree';
