// The API opens and writes workspace files only: an absolute, normalised path to a .yaml/.yml
// regular file. This keeps a compromised page from reading keys or writing elsewhere.
import { realpath, stat } from 'node:fs/promises';
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
  await checkLinkTarget(clean);
  return clean;
}

/** A path to save to: a workspace path that, if it exists, is (or links to) a workspace file. */
export async function checkWritableWorkspace(path: string): Promise<string> {
  const clean = checkWorkspacePath(path);
  const info = await stat(clean).catch(() => undefined);
  if (info && !info.isFile()) throw new ApiError('refused', `not a regular file: ${clean}`);
  if (info) await checkLinkTarget(clean);
  return clean;
}

/** A link named *.yaml must not lead to a key or any other file that is not a workspace. */
async function checkLinkTarget(clean: string): Promise<void> {
  const real = await realpath(clean);
  if (!WORKSPACE_EXTENSIONS.has(extname(real).toLowerCase())) {
    throw new ApiError('refused', `${clean} links to a file that is not a workspace (.yaml, .yml)`);
  }
}

/** A folder to list in the in-page file browser: absolute, without NUL bytes. */
export function checkDirPath(dir: string): string {
  if (dir.includes('\0')) throw new ApiError('refused', 'a path may not contain NUL bytes');
  if (!isAbsolute(dir)) throw new ApiError('refused', `not an absolute path: ${dir}`);
  return normalize(dir);
}

/** A top-level `lbdesk:` key (block or flow style, quoted or not), at the start of a line. */
const FORMAT_KEY = /^(?:\uFEFF)?\{?[ \t]*["']?lbdesk["']?[ \t]*:/m;

/**
 * The page may only read lbdesk workspaces: any YAML file (a token in ~/.config/gh/hosts.yml, a
 * Kubernetes secret) would otherwise come back whole through workspace.read, or quoted in a
 * validation message. Every workspace has the format key.
 */
export function checkWorkspaceText(text: string, path: string): void {
  if (!FORMAT_KEY.test(text)) throw new ApiError('refused', `${path} is not an lbdesk workspace: it has no top-level "lbdesk:" format key (add "lbdesk: 1" to open it)`);
}

