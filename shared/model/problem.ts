// One validation finding, with where it is in the file and which field it is about.

import { oneLine } from './text-rules';

export type PathSegment = string | number;

/**
 * A validation error or warning.
 *
 * `path` is the field in a readable, index-based form: object keys joined with `.`, list
 * positions in brackets, keys that are not plain words quoted in brackets:
 * `groups[0].members[1].weight`, `healthCheck.ldap.expect["cn;x"]`. Two special paths:
 * `(root)` for the document as a whole and `(yaml)` for YAML syntax errors.
 * `line` and `col` are 1-based; `segments` is the same path as data, for jumping to the field.
 */
export interface Problem {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
  segments?: PathSegment[];
  /**
   * On the line that ends a long list: what it stands for. `more`: counting stopped at the cap,
   * so there are more than the counts say.
   */
  omitted?: { errors: number; warnings: number; more?: true };
}

/** Errors and warnings in a list, counting those a final "… and N more" line stands for. */
export function problemCounts(problems: readonly Problem[]): { errors: number; warnings: number; more?: true } {
  let errors = 0;
  let warnings = 0;
  let more = false;
  for (const p of problems) {
    if (p.omitted) {
      errors += p.omitted.errors;
      warnings += p.omitted.warnings;
      more ||= p.omitted.more === true;
    } else if (p.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings, ...(more ? { more: true as const } : {}) };
}

export const ROOT_PATH = '(root)';
export const SYNTAX_PATH = '(yaml)';

const WORD = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `groups[0].members[1].weight` for ['groups', 0, 'members', 1, 'weight']; `(root)` for []. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (WORD.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out || ROOT_PATH;
}

/** `file:line:col: path: message`, warnings marked `warning: ` after the location. */
export function formatProblem(p: Problem): string {
  const where = `${visible(p.file)}:${p.line}:${p.col}: `;
  return `${where}${p.severity === 'warning' ? 'warning: ' : ''}${visible(p.path)}: ${visible(p.message)}`;
}

/**
 * Control characters shown as escapes: a value from the file (or a file name) must not move the
 * terminal's cursor, colour it, clear it, or break a problem over two lines.
 */
export const visible = oneLine;

/** In file order; errors before warnings at the same place. */
export function sortProblems(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
