// Zod's structural issues, reworded for a field engineer and pinned to a field path.
import type { z } from 'zod';
import type { PathSegment } from './problem';
import { closest, didYouMean } from './similar';

/** A finding before it has a place in the file. `at: 'key'` points at a key's name, not its value. */
export interface Issue {
  severity: 'error' | 'warning';
  path: PathSegment[];
  message: string;
  at?: 'key';
}

type Raw = z.core.$ZodIssue;

/** The raw value at `path`, or `undefined` when some part of the path is absent. */
export function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function hasKey(data: unknown, path: readonly PathSegment[]): boolean {
  const parent = valueAt(data, path.slice(0, -1));
  const last = path[path.length - 1];
  return last !== undefined && parent !== null && typeof parent === 'object' && Object.prototype.hasOwnProperty.call(parent, last);
}

/** The value as a user would call it, e.g. `the text "80"`, `a list`. */
export function describe(v: unknown): string {
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    case 'number':
      return Number.isNaN(v) ? 'not-a-number (.nan)' : Number.isFinite(v) ? `the number ${v}` : 'infinity';
    case 'boolean':
      return String(v);
    case 'object':
      return 'a mapping';
    default:
      return typeof v;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

/** Zod's own wording; anything else is a message the schema chose and is kept as is. */
const GENERIC = /^(Invalid|Too (small|big)|Unrecognized)/;

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return shown.length === 1 ? `must be ${shown[0]}` : `must be one of: ${shown.join(', ')}`;
}

function unionMessage(issue: Extract<Raw, { code: 'invalid_union' }>, value: unknown): string {
  if (!GENERIC.test(issue.message)) return issue.message;
  const values: unknown[] = [];
  const expected = new Set<string>();
  for (const branch of issue.errors) {
    for (const e of branch) {
      if (e.code === 'invalid_value') values.push(...e.values);
      else if (e.code === 'invalid_type') expected.add(EXPECTED[e.expected] ?? e.expected);
    }
  }
  if (values.length) return `${oneOf(values)} (not ${describe(value)})`;
  if (expected.size) return `expected ${[...expected].join(' or ')}, not ${describe(value)}`;
  return 'has the wrong form';
}

function message(issue: Raw, data: unknown, path: PathSegment[]): string {
  const value = valueAt(data, path);
  const missing = path.length > 0 && !hasKey(data, path);
  if (missing && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    return path.length === 1 && path[0] === 'lbdesk' ? 'required field is missing (the format version: lbdesk: 1)' : 'required field is missing';
  }
  switch (issue.code) {
    case 'invalid_type': {
      const quotedNumber = (issue.expected === 'number' || issue.expected === 'int') && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
      const base = GENERIC.test(issue.message) ? `expected ${EXPECTED[issue.expected] ?? issue.expected}` : issue.message;
      return `${base}, not ${describe(value)}${quotedNumber ? ' (remove the quotes)' : ''}`;
    }
    case 'invalid_value': {
      const base = GENERIC.test(issue.message) ? oneOf(issue.values) : issue.message;
      // `lbdesk: "1"`: the right value, quoted. Suggesting "1" for "1" helps nobody.
      const quoted = typeof value === 'string' && issue.values.some((v) => typeof v !== 'string' && String(v) === value.trim());
      const hint = quoted ? ' (remove the quotes)' : typeof value === 'string' ? didYouMean(value, issue.values.map(String)) : '';
      return `${base}, not ${describe(value)}${hint}`;
    }
    case 'invalid_union':
      return unionMessage(issue, value);
    case 'too_small':
    case 'too_big': {
      if (!GENERIC.test(issue.message)) return value === undefined ? issue.message : `${issue.message}, not ${describe(value)}`;
      const small = issue.code === 'too_small';
      const bound = small ? issue.minimum : issue.maximum;
      if (issue.origin === 'string') return small && Number(bound) === 1 ? 'must not be empty' : `must be ${small ? 'at least' : 'at most'} ${bound} characters`;
      if (issue.origin === 'array') return small && Number(bound) === 1 ? 'must not be empty' : `must have ${small ? 'at least' : 'at most'} ${bound} items`;
      return `must be ${small ? 'at least' : 'at most'} ${bound}`;
    }
    case 'invalid_key':
      return `key ${JSON.stringify(path[path.length - 1])} ${issue.issues[0]?.message ?? 'is not allowed here'}`;
    default:
      return GENERIC.test(issue.message) ? 'is not valid here' : issue.message;
  }
}

/** Keys a strict object at `path` of `schema` accepts (for "did you mean"). */
export function keysAt(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let cur = unwrap(schema as unknown as ZodLike);
  for (const seg of path) {
    if (!cur) return [];
    const def = cur._zod.def;
    if (def.type === 'object' && typeof seg === 'string') cur = unwrap(def.shape?.[seg]);
    else if (def.type === 'array' && typeof seg === 'number') cur = unwrap(def.element);
    else return [];
  }
  const def = cur?._zod.def;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

interface ZodLike {
  _zod: { def: { type: string; shape?: Record<string, ZodLike>; element?: ZodLike; innerType?: ZodLike; in?: ZodLike } };
}

function unwrap(s: ZodLike | undefined): ZodLike | undefined {
  let cur = s;
  for (let i = 0; cur && i < 10; i++) {
    const def = cur._zod.def;
    if (def.innerType) cur = def.innerType;
    else if (def.type === 'pipe' && def.in) cur = def.in;
    else break;
  }
  return cur;
}

/** One Issue per problem; an unknown-keys issue becomes one Issue per key, pointing at the key. */
/** Zod's issues reworded, the first `limit` of them (a list past the cap is not shown). */
export function zodIssues(issues: readonly Raw[], data: unknown, schema: z.ZodType, limit = Infinity): Issue[] {
  const out: Issue[] = [];
  // "adress" for "address" is one mistake: report the unknown key, not also the missing one.
  const meant = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
    const known = keysAt(schema, path);
    for (const key of issue.keys) {
      if (out.length >= limit) return out;
      const guess = closest(key, known);
      if (guess !== undefined) meant.add(JSON.stringify([...path, guess]));
      const why = key === '<<' ? ' (YAML merge keys are not supported: write the fields out, or use an alias for the whole mapping)' : guess === undefined ? '' : ` (did you mean "${guess}"?)`;
      out.push({ severity: 'error', path: [...path, key], at: 'key', message: `unknown key ${JSON.stringify(key)}${why}` });
    }
  }
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') continue;
    if (out.length >= limit) return out;
    const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
    if (meant.has(JSON.stringify(path)) && !hasKey(data, path)) continue;
    out.push({ severity: 'error', path, message: message(issue, data, path) });
  }
  return out;
}
