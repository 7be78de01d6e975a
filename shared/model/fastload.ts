// A fast reader for the common case: a workspace with no anchors, read by js-yaml with a schema
// that resolves plain scalars exactly like `yaml`'s YAML 1.2 core schema (null, bool, int, float).
// `yaml`'s Document API is ~10x slower; it is still used for every problem's position and for
// editing, so the fast path may only ever say "this text parses to this data".
import { load, Type, FAILSAFE_SCHEMA, YAMLException } from 'js-yaml';
import { MAX_DEPTH } from './limits';

const nullType = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (s: string) => s === '' || ('~nN'.includes(s[0]!) && /^(?:~|[Nn]ull|NULL)$/.test(s)),
  construct: () => null,
  predicate: (v: unknown) => v === null,
});
const boolType = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (s: string) => 'tTfF'.includes(s[0]!) && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s),
  construct: (s: string) => s[0] === 't' || s[0] === 'T',
  predicate: (v: unknown) => typeof v === 'boolean',
});
const intType = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (s: string) => '0123456789+-'.includes(s[0]!) && /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/.test(s),
  construct: (s: string) => (s.startsWith('0o') ? parseInt(s.slice(2), 8) : s.startsWith('0x') ? parseInt(s.slice(2), 16) : parseInt(s, 10)),
  predicate: (v: unknown) => Number.isInteger(v),
});
const floatType = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (s: string) =>
    '0123456789+-.'.includes(s[0]!) &&
    (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s) ||
    /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s) ||
    /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s)),
  construct: (s: string) => {
    if (s.startsWith('.') || s.startsWith('-.') || s.startsWith('+.')) {
      const tail = s.slice(-3).toLowerCase();
      if (tail === 'nan') return Number.NaN;
      if (tail === 'inf') return s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    }
    return parseFloat(s);
  },
  predicate: (v: unknown) => typeof v === 'number',
});

export const CORE_LIKE = FAILSAFE_SCHEMA.extend({ implicit: [nullType, boolType, intType, floatType] });

export type FastLoad =
  | { ok: true; data: unknown }
  /** Anchors (aliases are expanded only by the bounded `yaml` path), or a syntax error. */
  | { ok: false; reason: 'anchors' | 'syntax' }
  /** Deeper than MAX_DEPTH: refused without the slow parser, which would recurse that deep. */
  | { ok: false; reason: 'depth'; line: number; col: number };

/**
 * Text the two readers would read differently, left to the Document path: a %YAML directive
 * (yaml switches schema for 1.1), null keys (js-yaml names them "null", yaml ""), and
 * collections as keys (`[a]: 1`, `? [a]`: each names them in its own way).
 */
const DIFFERENT = /^%|(?:^|[\s{,?])(?:~|null|Null|NULL)[ \t]*:(?:[ \t]|$)|[\]}][ \t]*:(?:[ \t]|$)|^[ \t-]*\?(?:[ \t]|$)/m;

/** An anchor property (`&name`) where YAML allows one; a match inside a quoted string only costs speed. */
const ANCHOR = /(?:^|[\s[{,])&[^\s[\]{},]/m;

export function fastLoad(text: string): FastLoad {
  if (DIFFERENT.test(text)) return { ok: false, reason: 'syntax' };
  // Aliases need anchors; without any, js-yaml refuses an alias and the Document path reports it.
  if (ANCHOR.test(text)) return { ok: false, reason: 'anchors' };
  try {
    return { ok: true, data: load(text, { schema: CORE_LIKE, maxDepth: MAX_DEPTH } as Parameters<typeof load>[1]) };
  } catch (err) {
    if (err instanceof YAMLException && /maxDepth/.test(err.reason)) {
      const mark = err.mark as { line: number; column: number } | undefined;
      return { ok: false, reason: 'depth', line: (mark?.line ?? 0) + 1, col: (mark?.column ?? 0) + 1 };
    }
    return { ok: false, reason: 'syntax' };
  }
}
