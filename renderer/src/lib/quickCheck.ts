// Instant feedback for the item being edited: its own schema and rules from shared/model, run on
// the spot while the full validation (cross-references, positions) catches up in the document worker.
// A 10,000-server file takes seconds to re-validate whole; one server takes microseconds.
import type { z } from 'zod';
import { applianceSchema, groupSchema, healthTimersSchema, serverSchema, serviceSchema, targetSetResolvedSchema, type TargetSet } from '../../../shared/model/schema';
import { zodIssues, type Issue } from '../../../shared/model/issues';
import { checkTargetSet } from '../../../shared/model/targetsets';
import { duplicateName, isNamedList } from '../../../shared/model/crossref';
import { formatPath, type Problem } from './model';
import { getIn, type Path } from './tree';

const SCHEMAS: Record<string, z.ZodType> = {
  servers: serverSchema,
  groups: groupSchema,
  services: serviceSchema,
  targetSets: targetSetResolvedSchema,
  appliances: applianceSchema,
};

/** Problems of one list item (`servers.3`) or of the global timers, or undefined when not checkable alone. */
export function quickCheck(raw: Record<string, unknown>, root: Path, file: string): Problem[] | undefined {
  const [list, index] = root;
  let schema: z.ZodType | undefined;
  if (typeof list === 'string' && typeof index === 'number') schema = SCHEMAS[list];
  else if (list === 'healthTimers' && root.length === 1) schema = healthTimersSchema;
  if (!schema) return undefined;
  const item = getIn(raw, root);
  if (item === undefined) return [];
  const r = schema.safeParse(item);
  let issues: Issue[];
  if (r.success) {
    issues = list === 'targetSets' && typeof index === 'number' ? checkTargetSet(r.data as TargetSet, index, raw) : [];
  } else {
    issues = zodIssues(r.error.issues, item, schema).map((i) => ({ ...i, path: [...root, ...i.path] }));
  }
  if (typeof list === 'string' && typeof index === 'number') issues.push(...nameClash(raw, list, index));
  // Line 0: the position is known again once the document worker has validated the whole file.
  return issues.map((i) => ({ severity: i.severity, file, line: 0, col: 0, path: formatPath(i.path), message: i.message, segments: i.path }));
}

/** A name another item has too, said as the full validation says it (shared/model/crossref). */
function nameClash(raw: Record<string, unknown>, list: string, index: number): Issue[] {
  const items = raw[list];
  if (!isNamedList(list) || !Array.isArray(items)) return [];
  const name = (items[index] as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string') return [];
  const same = (x: unknown) => (x as { name?: unknown } | null)?.name === name;
  const first = items.findIndex(same);
  const other = first === index ? items.findIndex((x, i) => i > index && same(x)) : first;
  if (other < 0) return [];
  return [{ severity: 'error', path: [list, index, 'name'], message: duplicateName(list, name, other, first === index ? 'also' : 'first') }];
}
