// The contract's behaviour, shared by the Electron app and browser mode. Transport-free:
// each transport only parses frames and calls `dispatch` with these handlers.
import { readdir, stat, copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve, extname } from 'node:path';
import { homedir, platform } from 'node:os';
import { ApiError, type ApiProblem, type AppInfo } from '../../../shared/api/contract';
import { VERSION } from '../../../shared/version';
import { plainSecretField } from '../../../shared/model/secret-scan';
import type { SecretStore } from '../secrets/types';
import { checkDirPath, checkReadableWorkspace, checkWorkspaceText, checkWritableWorkspace, WORKSPACE_EXTENSIONS } from '../files/guard';
import { RecentFiles } from '../files/recent';
import { readWorkspaceText, WorkspaceFileError } from '../workspace';
import type { EventSink, Handlers } from './dispatch';

/** Load/save/validate of workspace files (main/services/workspace). */
export interface WorkspaceStore {
  save(path: string, text: string): Promise<{ backupPath?: string }>;
  validateText(text: string, path: string): ApiProblem[];
}

export interface HandlerDeps {
  shell: AppInfo['shell'];
  dataDir: string;
  /** The shipped demo workspace, copied to the data folder on first start. */
  demoSource: string;
  secrets: SecretStore;
  store: WorkspaceStore;
  emit: EventSink;
  /** Opening a URL in the user's browser: only the app has one to offer. */
  openExternal?: (url: string) => Promise<boolean>;
  /** The workspace the window opens first (`serve --ui WS`: the file the lab runs), before the recent list. */
  startPath?: string;
  /** Native file dialogs: only the app has them; browser mode uses the in-page browser. */
  dialogs?: { open(): Promise<string | null>; save(suggested?: string): Promise<string | null> };
  /** More handlers (lab, check, appliances) added by the services that own them. */
  extra?: Partial<Handlers>;
}

export function createHandlers(deps: HandlerDeps): Partial<Handlers> {
  const recent = new RecentFiles(deps.dataDir);
  const demoPath = join(deps.dataDir, 'demo', 'lab-site-a.yaml');

  async function ensureDemo(): Promise<string> {
    try {
      await stat(demoPath);
    } catch {
      await mkdir(dirname(demoPath), { recursive: true });
      await copyFile(deps.demoSource, demoPath);
    }
    return demoPath;
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

  async function readWorkspace(path: string) {
    const clean = await checkReadableWorkspace(path);
    const { text, mtimeMs } = await workspaceText(clean);
    await recent.add(clean);
    return { path: clean, text, mtimeMs };
  }

  async function sourceText(src: { path: string; text?: string }): Promise<string> {
    if (src.text !== undefined) return src.text;
    return (await workspaceText(await checkReadableWorkspace(src.path))).text;
  }

  return {
    'app.info': async () => {
      const first = deps.startPath ?? (await recent.list())[0];
      return { version: VERSION, shell: deps.shell, platform: platform(), startPath: first ?? (await ensureDemo()) };
    },
    'workspace.demo': async () => readWorkspace(await ensureDemo()),
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
      deps.emit('workspace.changed', { path: clean, mtimeMs: info.mtimeMs });
      return { path: clean, mtimeMs: info.mtimeMs, backupPath };
    },
    'workspace.recent': async () => recent.list(),
    'workspace.browse': async ({ dir, files }) => {
      const shown = (n: string) => files === 'any' || WORKSPACE_EXTENSIONS.has(extname(n).toLowerCase());
      const where = dir === undefined ? resolve(homedir()) : checkDirPath(dir);
      const items = await readdir(where, { withFileTypes: true });
      const entries = items
        .filter((d) => !d.name.startsWith('.') && (d.isDirectory() || (d.isFile() && shown(d.name))))
        .map((d) => ({ name: d.name, path: join(where, d.name), kind: d.isDirectory() ? ('dir' as const) : ('file' as const) }))
        .sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'dir' ? -1 : 1));
      const parent = dirname(where);
      return { dir: where, parent: parent === where ? undefined : parent, entries };
    },
    'workspace.validate': async (src) => deps.store.validateText(await sourceText(src), src.path),
    'dialog.openFile': async () => (deps.dialogs ? deps.dialogs.open() : null),
    'dialog.saveFile': async ({ suggested }) => (deps.dialogs ? deps.dialogs.save(suggested) : null),
    'secrets.set': async ({ name, value }) => deps.secrets.set(name, value),
    'secrets.has': async ({ name }) => deps.secrets.has(name),
    'secrets.delete': async ({ name }) => deps.secrets.delete(name),
    'shell.openExternal': async ({ url }) => {
      if (!deps.openExternal) throw new ApiError('unsupported', 'opening links is only available in the desktop app');
      return deps.openExternal(url);
    },
    ...deps.extra,
  };
}
