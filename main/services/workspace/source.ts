// Turns a contract "source" (a file, maybe with unsaved text) into a valid workspace, or a refusal
// that names the first problems as file:line:col sentences.
import { ApiError } from '../../../shared/api/contract';
import { stat, readFile } from 'node:fs/promises';
import { checkReadableWorkspace, checkWorkspacePath, checkWorkspaceText } from '../files/guard';
import { MAX_WORKSPACE_BYTES } from '../../../shared/model/limits';
import { loadWorkspace, refused, type LoadedOk } from './load';
import { INLINE_BELOW, validateText } from './validate-text';

/** Big text is validated off this thread first: a big bad workspace never stops the host's loop. */
async function bigText(src: { text?: string }, path: string): Promise<string | undefined> {
  if (src.text !== undefined) return src.text.length >= INLINE_BELOW ? src.text : undefined;
  const size = (await stat(path)).size;
  if (size < INLINE_BELOW || size > MAX_WORKSPACE_BYTES) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await readFile(path));
  } catch {
    return undefined; // not UTF-8: said by the loader, at the place it starts
  }
}

export async function loadSource(src: { path: string; text?: string }): Promise<LoadedOk & { path: string }> {
  // The page names the file: only a workspace file is read (a problem message quotes the text),
  // and unsaved text still needs a workspace path (templates are found next to it).
  const path = src.text !== undefined ? checkWorkspacePath(src.path) : await checkReadableWorkspace(src.path);
  const big = await bigText(src, path);
  if (big !== undefined) {
    const problems = await validateText(big, path);
    if (problems.some((p) => p.severity === 'error')) {
      if (src.text === undefined) checkWorkspaceText(big, path);
      throw new ApiError('refused', `the workspace has errors: ${refused(problems, path).reason}`);
    }
  }
  const loaded = await loadWorkspace(path, { text: src.text ?? big });
  if (loaded.ok) {
    // Its problems could quote a file that is not a workspace: such a file is refused.
    if (src.text === undefined) checkWorkspaceText(loaded.text, path);
    return { ...loaded, path };
  }
  if (loaded.unreadable) throw new ApiError('refused', loaded.message);
  if (src.text === undefined && loaded.text !== undefined) checkWorkspaceText(loaded.text, path);
  throw new ApiError('refused', `the workspace has errors: ${loaded.reason}`);
}
