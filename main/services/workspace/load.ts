// The one way a workspace comes off the disk (or from a window's unsaved text) for the lab and
// every CLI command: a file that cannot be read at all is "unreadable" with one sentence naming
// it; anything else wrong (too big, not UTF-8, not YAML, invalid) is a list of problems, each at
// file:line:col, so every caller reports a bad file the same way.
import type { Document } from 'yaml';
import { documentLines } from '../../../shared/model/document';
import { MAX_WORKSPACE_BYTES } from '../../../shared/model/limits';
import { locate, type Position } from '../../../shared/model/locate';
import { formatProblem, problemCounts, type PathSegment, type Problem } from '../../../shared/model/problem';
import type { Workspace } from '../../../shared/model/schema';
import { parseWorkspace } from '../../../shared/model/validate';
import { loadWorkspaceFile, WorkspaceFileError } from './store';

export interface LoadedOk {
  ok: true;
  workspace: Workspace;
  /** Warnings only. */
  problems: Problem[];
  /** The file's text (or the unsaved text given). */
  text: string;
  /** Where a field is in the text; the positions are built only when asked (a big site's cost a second). */
  where(at: PathSegment[]): Position;
}

export interface LoadRefused {
  ok: false;
  /** True when the file could not be read at all: `message` says why, `problems` is empty. */
  unreadable: boolean;
  /** Every problem, errors and warnings, as file:line:col (file as the caller showed it). */
  problems: Problem[];
  /** One line for the end of a report: `cannot read F: …` or `F is not a valid workspace (N errors)`. */
  message: string;
  /** The first errors in one line, for a refusal that cannot print a list (a reload, a window). */
  reason: string;
  /** The text, when it could be read. */
  text?: string;
}

export type LoadOutcome = LoadedOk | LoadRefused;

/** Reads `path` (or takes `text`) and validates it; `shown` is how problems name the file. */
export async function loadWorkspace(path: string, opts: { text?: string; shown?: string } = {}): Promise<LoadOutcome> {
  const shown = opts.shown ?? path;
  let parsed: { workspace?: Workspace; problems: Problem[]; doc: Document; text: string };
  if (opts.text !== undefined) {
    const text = opts.text;
    const result = parseWorkspace(text, path);
    parsed = { workspace: result.workspace, problems: result.problems, get doc() { return result.doc; }, text };
  } else {
    try {
      parsed = await loadWorkspaceFile(path);
    } catch (e) {
      if (!(e instanceof WorkspaceFileError)) throw e;
      if (e.code === 'unreadable' || e.code === 'not-a-file') return { ok: false, unreadable: true, problems: [], message: e.message, reason: e.message };
      // Too big or not text: a problem at the place it starts, like any other.
      const message = e.code === 'too-large' ? `file is larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB: refused` : 'not UTF-8 text: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)';
      const problem: Problem = { severity: 'error', file: shown, line: e.at?.line ?? 1, col: e.at?.col ?? 1, path: '(root)', message };
      return refused([problem], shown);
    }
  }
  const problems = parsed.problems.map((p) => (p.file === shown ? p : { ...p, file: shown }));
  if (!parsed.workspace || problemCounts(problems).errors > 0) return { ...refused(problems, shown), text: parsed.text };
  const done = parsed;
  return { ok: true, workspace: parsed.workspace, problems, text: parsed.text, where: (at) => locate(done.doc, documentLines(done.doc), at) };
}

export function refused(problems: Problem[], shown: string): LoadRefused {
  const errors = problems.filter((p) => p.severity === 'error');
  const counts = problemCounts(problems);
  const n = Math.max(counts.errors, 1);
  const first = errors.slice(0, 3).map(formatProblem).join('; ');
  const more = n > 3 ? ` (and ${counts.more ? 'more than ' : ''}${n - 3} more)` : '';
  return {
    ok: false,
    unreadable: false,
    problems,
    message: `${shown} is not a valid workspace (${counts.more ? 'more than ' : ''}${n} error${n === 1 ? '' : 's'})`,
    reason: first ? `${first}${more}` : `${shown} is not a valid workspace`,
  };
}

export interface ValidateResult {
  problems: Problem[];
  exitCode: 0 | 1 | 2;
  /** For exit 2: why the file could not be validated at all (names the file). */
  fatal?: string;
}

/** `lbdesk validate`: 0 valid (warnings allowed), 1 invalid, 2 unreadable. */
export async function validateFile(path: string): Promise<ValidateResult> {
  const r = await loadWorkspace(path);
  if (r.ok) return { problems: r.problems, exitCode: 0 };
  if (r.unreadable) return { problems: [], exitCode: 2, fatal: r.message };
  return { problems: r.problems, exitCode: 1 };
}
