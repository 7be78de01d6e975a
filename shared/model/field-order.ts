// The order a workspace's fields are written in (the schema's, which is the example
// workspace's): a field added later goes to its place, so `{ server: web1, weight: 100 }` given
// a port becomes `{ server: web1, port: 8081, weight: 100 }`, as every other member reads.
import type { z } from 'zod';
import type { PathSegment } from './problem';
import { workspaceSchema } from './schema';

interface Def {
  type: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  in?: unknown;
  options?: unknown[];
}
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The schemas a value at this place may follow (several for a union). */
function unwrap(s: unknown, out: Def[] = []): Def[] {
  const d = defOf(s);
  if (!d) return out;
  if (d.type === 'optional' || d.type === 'default' || d.type === 'nullable' || d.type === 'prefault' || d.type === 'catch') return unwrap(d.innerType, out);
  if (d.type === 'pipe') return unwrap(d.in, out);
  if (d.type === 'union') {
    for (const o of d.options ?? []) unwrap(o, out);
    return out;
  }
  out.push(d);
  return out;
}

/** The field names of the mapping at `path`, in the schema's order; empty when it is not known. */
export function fieldOrder(path: readonly PathSegment[], root: z.ZodType = workspaceSchema): string[] {
  let here = unwrap(root);
  for (const seg of path) {
    const next: unknown[] = [];
    for (const d of here) {
      if (typeof seg === 'number' && d.type === 'array') next.push(d.element);
      else if (typeof seg === 'string' && d.type === 'object' && d.shape && Object.prototype.hasOwnProperty.call(d.shape, seg)) next.push(d.shape[seg]);
    }
    here = next.flatMap((s) => unwrap(s));
    if (here.length === 0) return [];
  }
  const keys: string[] = [];
  for (const d of here) if (d.type === 'object' && d.shape) for (const k of Object.keys(d.shape)) if (!keys.includes(k)) keys.push(k);
  return keys;
}

/**
 * Where a new `key` goes among a mapping's `existing` keys: before the first of them that the
 * schema writes after it; undefined (the end) when none does or the key is not the schema's.
 */
export function insertBefore(order: readonly string[], existing: readonly string[], key: string): string | undefined {
  const rank = order.indexOf(key);
  if (rank < 0) return undefined;
  return existing.find((k) => order.indexOf(k) > rank);
}
