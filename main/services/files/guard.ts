// The API opens and writes workspace files only: an absolute, normalised path to a .yaml/.yml
// regular file. This keeps a compromised page from reading keys or writing elsewhere.
import { stat } from 'node:fs/promises';
import { extname, isAbsolute, normalize } from 'node:path';
import { ApiError } from '../../../shared/api/contract';

export const WORKSPACE_EXTENSIONS = new Set(['.yaml', '.yml']);
export const MAX_WORKSPACE_BYTES = 16 * 1024 * 1024;

export function checkWorkspacePath(path: string): string {
  if (path.includes('\0')) throw new ApiError('refused', 'a path may not contain NUL bytes');
  if (!isAbsolute(path)) throw new ApiError('refused', `not an absolute path: ${path}`);
  const clean = normalize(path);
  if (!WORKSPACE_EXTENSIONS.has(extname(clean).toLowerCase())) {
    throw new ApiError('refused', `only workspace files (.yaml, .yml) can be opened or saved: ${clean}`);
  }
  return clean;
}

export async function checkReadableWorkspace(path: string): Promise<string> {
  const clean = checkWorkspacePath(path);
  const info = await stat(clean);
  if (!info.isFile()) throw new ApiError('refused', `not a regular file: ${clean}`);
  if (info.size > MAX_WORKSPACE_BYTES) throw new ApiError('refused', `${clean} is larger than 16 MiB`);
  return clean;
}
