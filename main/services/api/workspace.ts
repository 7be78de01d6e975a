// The workspace area: open, save, browse and validate workspace files.
import { readdir, stat, copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve, extname } from 'node:path';
import { homedir } from 'node:os';
import { ApiError, type ApiProblem } from '../../../shared/api/contract';
import { plainSecretField } from '../../../shared/model/secret-scan';
import { checkDirPath, checkReadableWorkspace, checkWorkspaceText, checkWritableWorkspace, trustOwnFolder, WORKSPACE_EXTENSIONS } from '../files/guard';
import { RecentFiles } from '../files/recent';
import { readWorkspaceText, WorkspaceFileError } from '../workspace';
import type { AreaHandlers, EventSink } from './dispatch';

/** Load/save/validate of workspace files (main/services/workspace). */
export interface WorkspaceStore {
  save(path: string, text: string): Promise<{ backupPath?: string }>;
  /** Off the event loop for big text: other calls are answered meanwhile. */
  validateText(text: string, path: string): Promise<ApiProblem[]>;
}

export interface WorkspaceDeps {
  store: WorkspaceStore;
  emit: EventSink;
  /** Called with the path of every workspace read, written or opened as the demo (the shell's recent documents). */
  opened(path: string): void;
  /** The workspace file the page has open now, at the version it read or wrote (watched for others' saves). */
  follow?(path: string, mtimeMs: number): void;
}

/** The files the workspace area keeps: the recent list and the demo copy (app.info reads both). */
export class WorkspaceFiles {
  readonly recent: RecentFiles;
  private readonly demoPath: string;
  /** `demoSource`: the shipped demo workspace, copied to the data folder on first use. */
  constructor(dataDir: string, private readonly demoSource: string) {
    this.recent = new RecentFiles(dataDir);
    this.demoPath = join(dataDir, 'demo', 'lab-site-a.yaml');
    // The data folder is often below a hidden one (~/.local/share): the demo copy is lbdesk's own.
    trustOwnFolder(dirname(this.demoPath));
  }
  async demo(): Promise<string> {
    try {
      await stat(this.demoPath);
    } catch {
      await mkdir(dirname(this.demoPath), { recursive: true });
      await copyFile(this.demoSource, this.demoPath);
    }
    return this.demoPath;
  }
}

/** The text of a workspace file, refused (never decoded with U+FFFD) when it is not UTF-8. */
async function workspaceText(clean: string): Promise<{ text: string; mtimeMs: number }> {
  try {
    const read = await readWorkspaceText(clean);
    checkWorkspaceText(read.text, clean);
    return read;
  } catch (err) {
    if (!(err instanceof WorkspaceFileError)) throw err;
    const hint = err.code === 'not-text' ? ': convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8) and open it again' : '';
    throw new ApiError('refused', `${err.message}${hint}`);
  }
}

export function workspaceHandlers(deps: WorkspaceDeps, files: WorkspaceFiles): AreaHandlers<'workspace'> {
  const { recent } = files;

  async function readWorkspace(path: string) {
    const clean = await checkReadableWorkspace(path);
    const { text, mtimeMs } = await workspaceText(clean);
    await recent.add(clean);
    deps.opened(clean);
    deps.follow?.(clean, mtimeMs);
    return { path: clean, text, mtimeMs };
  }

  async function sourceText(src: { path: string; text?: string }): Promise<string> {
    if (src.text !== undefined) return src.text;
    return (await workspaceText(await checkReadableWorkspace(src.path))).text;
  }

  return {
    'workspace.demo': async () => readWorkspace(await files.demo()),
    'workspace.read': async ({ path }) => readWorkspace(path),
    'workspace.write': async ({ path, text, expectedMtimeMs }) => {
      const clean = await checkWritableWorkspace(path);
      // Only workspaces are written, and only over workspaces: not a CI workflow, a
      // pre-commit config or any other YAML another program runs.
      checkWorkspaceText(text, clean);
      const existing = await readWorkspaceText(clean).catch(() => undefined);
      if (existing) checkWorkspaceText(existing.text, clean);
      // Anything else invalid is saved (nothing is lost), but never a secret typed into a field
      // that takes a secret's name: that would put it in the file in plain text.
      // Scanned only when the text may have such a field (a 10,000-server site saves without
      // the parse); a key can be quoted or spelt with escapes, so the test is loose on purpose.
      // (Any backslash: escapes in quoted keys, an escaped line break; any '*': an alias as the key.)
      const mayHoldSecret = /secret|\\|\*/i.test(text);
      const leak = mayHoldSecret ? plainSecretField(text) : undefined;
      if (leak) {
        throw new ApiError('refused', `not saved: ${leak} holds something that is not a secret's name; store the secret in the secret store and put its name there`);
      }
      if (expectedMtimeMs !== undefined) {
        const current = await stat(clean).catch(() => undefined);
        if (current && Math.abs(current.mtimeMs - expectedMtimeMs) > 1) {
          throw new ApiError('conflict', `${clean} was changed on disk since it was opened; reload it or save under another name`);
        }
      }
      const { backupPath } = await deps.store.save(clean, text);
      const info = await stat(clean);
      await recent.add(clean);
      deps.opened(clean);
      deps.follow?.(clean, info.mtimeMs);
      deps.emit('workspace.changed', { path: clean, mtimeMs: info.mtimeMs });
      return { path: clean, mtimeMs: info.mtimeMs, backupPath };
    },
    'workspace.recent': async () => recent.list(),
    'workspace.browse': async ({ dir, files }) => {
      const shown = (n: string) => files === 'any' || WORKSPACE_EXTENSIONS.has(extname(n).toLowerCase());
      const where = dir === undefined ? resolve(homedir()) : await checkDirPath(dir);
      const items = await readdir(where, { withFileTypes: true });
      const entries = items
        .filter((d) => !d.name.startsWith('.') && (d.isDirectory() || (d.isFile() && shown(d.name))))
        .map((d) => ({ name: d.name, path: join(where, d.name), kind: d.isDirectory() ? ('dir' as const) : ('file' as const) }))
        .sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'dir' ? -1 : 1));
      const parent = dirname(where);
      return { dir: where, parent: parent === where ? undefined : parent, entries };
    },
    'workspace.validate': async (src) => deps.store.validateText(await sourceText(src), src.path),
  };
}
