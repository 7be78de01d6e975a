// The app area and the shell behind it: what the window around the page offers. The desktop
// app (main/app) builds its shell from Electron; browser mode uses `browserShell`, which says
// plainly what it lacks.
import { platform } from 'node:os';
import { ApiError, type AppInfo } from '../../../shared/api/contract';
import { VERSION } from '../../../shared/version';
import type { AreaHandlers } from './dispatch';
import type { WorkspaceFiles } from './workspace';
import { trustOwnFolder } from '../files/guard';

export interface AppShell {
  kind: AppInfo['shell'];
  /** Native file dialogs; null when cancelled (or when there are none: the page has its own browser). */
  openFileDialog(): Promise<string | null>;
  saveFileDialog(suggested?: string): Promise<string | null>;
  /** Opens a URL in the user's browser; false when the URL is refused. */
  openExternal(url: string): Promise<boolean>;
  /** Called with the path of every workspace read, written or opened as the demo. */
  opened(path: string): void;
  /** The workspace the OS asked to open at launch, handed out once. */
  takeLaunchFile(): string | undefined;
  /** Current warnings for the user (e.g. secrets kept for this session only). */
  warnings(): string[];
}

/** Browser mode: no native dialogs (the page browses in itself), no way to open links, no OS. */
export function browserShell(): AppShell {
  return {
    kind: 'browser',
    openFileDialog: async () => null,
    saveFileDialog: async () => null,
    openExternal: async () => {
      throw new ApiError('unsupported', 'opening links is only available in the desktop app');
    },
    opened: () => undefined,
    takeLaunchFile: () => undefined,
    warnings: () => [],
  };
}

export interface AppDeps {
  shell: AppShell;
  files: WorkspaceFiles;
  /** The workspace the window opens first (`serve --ui WS`: the file the lab runs), before the recent list. */
  startPath?: string;
}

/** A path the user chose outside the page (launch file, command line, native dialog) passes the hidden-folder rule. */
function chosen<T extends string | null | undefined>(path: T): T {
  if (path) trustOwnFolder(path);
  return path;
}

export function appHandlers({ shell, files, startPath }: AppDeps): AreaHandlers<'app'> {
  chosen(startPath);
  return {
    'app.info': async () => {
      const first = chosen(shell.takeLaunchFile()) ?? startPath ?? (await files.recent.list())[0] ?? (await files.demo());
      const warnings = shell.warnings();
      return { version: VERSION, shell: shell.kind, platform: platform(), startPath: first, ...(warnings.length ? { warnings } : {}) };
    },
    'dialog.openFile': async () => chosen(await shell.openFileDialog()),
    'dialog.saveFile': async ({ suggested }) => chosen(await shell.saveFileDialog(suggested)),
    'shell.openExternal': async ({ url }) => shell.openExternal(url),
  };
}
