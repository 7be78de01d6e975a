// Turns a contract "source" (a file, maybe with unsaved text) into a valid workspace, or a refusal
// that names the first problems as file:line:col sentences.
import { ApiError } from '../../../shared/api/contract';
import { checkReadableWorkspace, checkWorkspacePath, checkWorkspaceText } from '../files/guard';
import { loadWorkspace, type LoadedOk } from './load';

export async function loadSource(src: { path: string; text?: string }): Promise<LoadedOk & { path: string }> {
  // The page names the file: only a workspace file is read (a problem message quotes the text),
  // and unsaved text still needs a workspace path (templates are found next to it).
  const path = src.text !== undefined ? checkWorkspacePath(src.path) : await checkReadableWorkspace(src.path);
  const loaded = await loadWorkspace(path, { text: src.text });
  if (loaded.ok) {
    // Its problems could quote a file that is not a workspace: such a file is refused.
    if (src.text === undefined) checkWorkspaceText(loaded.text, path);
    return { ...loaded, path };
  }
  if (loaded.unreadable) throw new ApiError('refused', loaded.message);
  if (src.text === undefined && loaded.text !== undefined) checkWorkspaceText(loaded.text, path);
  throw new ApiError('refused', `the workspace has errors: ${loaded.reason}`);
}
