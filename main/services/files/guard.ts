// The API opens and writes workspace files only: an absolute, normalised path to a .yaml/.yml
// regular file outside hidden folders (the read rule of files/read.ts). This keeps a compromised
// page from reading keys or writing elsewhere.
import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, normalize, resolve } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { ApiError } from '../../../shared/api/contract';
import { fastLoad } from '../../../shared/model/fastload';
import { isInside, readChecked, ReadRefused, refuseHidden } from './read';

export const WORKSPACE_EXTENSIONS = new Set(['.yaml', '.yml']);
export const MAX_WORKSPACE_BYTES = 16 * 1024 * 1024;

/**
 * Paths the hidden-folder rule lets through: lbdesk's own folder (the demo copy, often below
 * ~/.local) and files the user chose outside the page (a native dialog, the command line).
 */
const ownFolders = new Set<string>();

/** Workspaces at or below `dir` may be opened although it is hidden: lbdesk or the user chose it, not the page. */
export function trustOwnFolder(dir: string): void {
  ownFolders.add(resolve(dir));
  try {
    ownFolders.add(realpathSync(dir));
  } catch {
    // Made on first use; its given path is enough until then.
  }
}

/** The read rule's refusals as the contract's. */
export function asApiError(e: unknown): unknown {
  if (!(e instanceof ReadRefused)) return e;
  return new ApiError(e.code === 'not-found' ? 'not-found' : 'refused', e.message);
}

function refuseHiddenWorkspace(clean: string, real: string = clean): void {
  if ([...ownFolders].some((f) => isInside(clean, f)) && [...ownFolders].some((f) => isInside(real, f))) return;
  try {
    refuseHidden(clean, real);
  } catch (e) {
    throw asApiError(e);
  }
}

function checkPlainPath(path: string): string {
  if (path.includes('\0')) throw new ApiError('refused', 'a path may not contain NUL bytes');
  if (!isAbsolute(path)) throw new ApiError('refused', `not an absolute path: ${path}`);
  return normalize(path);
}

export function checkWorkspacePath(path: string): string {
  const clean = checkPlainPath(path);
  if (!WORKSPACE_EXTENSIONS.has(extname(clean).toLowerCase())) {
    throw new ApiError('refused', `only workspace files (.yaml, .yml) can be opened or saved: ${clean}`);
  }
  refuseHiddenWorkspace(clean);
  return clean;
}

/**
 * A config file the page names (to import): absolute, a regular file of at most `max` bytes, not
 * in or through a hidden folder; its bytes are read once, here.
 */
export function readConfigFile(path: string, max: number): Buffer {
  const clean = checkPlainPath(path);
  try {
    return readChecked(clean, { max }).bytes;
  } catch (e) {
    throw asApiError(e);
  }
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
  // A new file: its folder may be a link into a hidden one.
  else refuseHiddenWorkspace(clean, join(await realpath(dirname(clean)).catch(() => dirname(clean)), basename(clean)));
  return clean;
}

/** A link named *.yaml must not lead to a key or any other file that is not a workspace. */
async function checkLinkTarget(clean: string): Promise<void> {
  const real = await realpath(clean);
  refuseHiddenWorkspace(clean, real);
  if (!WORKSPACE_EXTENSIONS.has(extname(real).toLowerCase())) {
    throw new ApiError('refused', `${clean} links to a file that is not a workspace (.yaml, .yml)`);
  }
}

/**
 * A folder to list in the in-page file browser: absolute, without NUL bytes, not hidden (nor a
 * link into a hidden folder): its file names are not the page's to see.
 */
export async function checkDirPath(dir: string): Promise<string> {
  const clean = checkPlainPath(dir);
  refuseHiddenWorkspace(clean, await realpath(clean).catch(() => clean));
  return clean;
}

/**
 * The page may only read lbdesk workspaces: any YAML file (a token in ~/.config/gh/hosts.yml, a
 * Kubernetes secret) would otherwise come back whole through workspace.read, or be quoted in a
 * validation message, and a save could write a CI workflow. A workspace is a mapping with a
 * top-level `lbdesk` key in its first (only) document. Text that does not parse (a workspace
 * being repaired) needs an unindented `lbdesk:` line before any second document.
 */
export function checkWorkspaceText(text: string, path: string): void {
  if (!hasFormatKey(text)) throw new ApiError('refused', `${path} is not an lbdesk workspace: it has no top-level "lbdesk:" format key (add "lbdesk: 1" to open it)`);
}

/**
 * The first line with content (after blank lines, comments, directives and a bare `---`): at
 * column 0 and reading `lbdesk:` it can only be the first key of a block mapping at the root.
 */
const FORMAT_KEY_FIRST = /^\uFEFF?(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\r?\n|---[ \t]*(?:#[^\n]*)?\r?\n)*lbdesk[ \t]*:(?:[ \t]|\r?\n|$)/;

function hasFormatKey(text: string): boolean {
  // How lbdesk writes them (and every example): no parse at all (a 10,000-server site saves and
  // opens without it).
  if (FORMAT_KEY_FIRST.test(text)) return true;
  // The fast loader for most other files (a 10,000-server site in tens of ms), the Document otherwise.
  const fast = fastLoad(text);
  if (fast.ok) return fast.data !== null && typeof fast.data === 'object' && !Array.isArray(fast.data) && Object.prototype.hasOwnProperty.call(fast.data, 'lbdesk');
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, logLevel: 'silent' });
  if (doc.errors.length === 0) {
    const root = doc.contents;
    return isMap(root) && root.items.some((p) => isScalar(p.key) && p.key.value === 'lbdesk');
  }
  const first = text.replace(/^\uFEFF/, '').split(/^(?:---|\.\.\.)(?:[ \t]|$)/m)[0]!;
  return /^["']?lbdesk["']?[ \t]*:/m.test(first);
}
