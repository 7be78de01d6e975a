// Turns a contract "source" (a file, maybe with unsaved text) into a valid workspace, or a refusal
// that names the first problems as file:line:col sentences.
import { ApiError } from '../../../shared/api/contract';
import { documentLines, formatProblem, parseWorkspace, type Problem } from '../../../shared/model';
import { locate, type Position } from '../../../shared/model/locate';
import type { PathSegment } from '../../../shared/model/problem';
import type { Workspace } from '../../../shared/model/schema';
import { checkReadableWorkspace, checkWorkspacePath, checkWorkspaceText } from '../files/guard';
import { loadWorkspaceFile } from '../workspace';

export async function loadSource(src: { path: string; text?: string }): Promise<{ workspace: Workspace; problems: Problem[]; path: string; where(at: PathSegment[]): Position }> {
  // The page names the file: only a workspace file is read (a problem message quotes the text),
  // and unsaved text still needs a workspace path (templates are found next to it).
  const path = src.text !== undefined ? checkWorkspacePath(src.path) : await checkReadableWorkspace(src.path);
  let parsed;
  if (src.text !== undefined) parsed = parseWorkspace(src.text, path);
  else {
    const loaded = await loadWorkspaceFile(path);
    // Its problems could quote a file that is not a workspace: such a file is refused.
    checkWorkspaceText(loaded.text, path);
    parsed = loaded;
  }
  const errors = parsed.problems.filter((p) => p.severity === 'error');
  if (!parsed.workspace || errors.length > 0) {
    const shown = errors.slice(0, 3).map(formatProblem).join('; ');
    const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
    throw new ApiError('refused', `the workspace has errors: ${shown}${more}`);
  }
  const done = parsed;
  // Positions from the Document, built only when asked (a big site's costs a second).
  const where = (at: PathSegment[]) => locate(done.doc, documentLines(done.doc), at);
  return { workspace: parsed.workspace, problems: parsed.problems, path, where };
}
