// One validation finding, with where it is in the file and which field it is about.

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
  const where = `${p.file}:${p.line}:${p.col}: `;
  return `${where}${p.severity === 'warning' ? 'warning: ' : ''}${p.path}: ${p.message}`;
}

/** In file order; errors before warnings at the same place. */
export function sortProblems(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
