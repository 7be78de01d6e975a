// Electron main process: one hardened window on the app:// protocol, the contract over IPC, the
// native menu, one instance, and a quit that stops the lab cleanly. The decisions live in small
// Electron-free files (policy, protocol, menu, window-state, quit, secrets …); this file wires them.
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, session, shell } from 'electron';
import { join } from 'node:path';
import { VERSION } from '../../shared/version';
import { EVENT_CHANNEL } from '../../shared/api/channels';
import type { ApiEvent, MenuCommand } from '../../shared/api/contract';
import { createAppServices, type AppServices } from '../services/api/wiring';
import { dataDir } from '../services/paths';
import { bindIpc, forwardEvents } from './ipc';
import { checkedOpenExternal } from './external';
import { APP_ORIGIN } from './protocol';
import { forbiddenSwitch } from './policy';
import { hardenContents, hardenSession, registerAppScheme } from './session';
import { createMainWindow, focusWindow } from './window';
import { captureState, loadWindowState, saveWindowState } from './window-state';
import { buildMenuTemplate } from './menu';
import { workspaceArgument } from './single-instance';
import { QuitSequence } from './quit';
import { SafeStorageSecretStore, secretsFile } from './secrets';
import { FileLog } from './log';

export const DOCS_URL = 'https://lbdesk.io/docs/';

const dev = !app.isPackaged;
const data = dataDir();
const log = new FileLog(join(data, 'logs'), { echo: dev }).write;
const OUT = join(__dirname, '..');

// Chromium's profile (caches, local storage) lives with lbdesk's own files, not in a second folder.
app.setPath('userData', join(data, 'electron'));

const refused = app.isPackaged ? forbiddenSwitch(process.argv) : undefined;
if (refused) {
  log('error', `refusing to start with ${refused}: debugging switches are disabled in packaged builds`);
  app.exit(2);
} else if (!app.requestSingleInstanceLock()) {
  // Another lbdesk is running: it receives our command line (`second-instance`) and opens the file.
  app.quit();
} else {
  start();
}

function start(): void {
  app.enableSandbox();
  registerAppScheme();
  if (process.platform === 'win32') app.setAppUserModelId('io.lbdesk.app');
  app.setAboutPanelOptions({ applicationName: 'lbdesk', applicationVersion: VERSION, website: DOCS_URL });

  let win: BrowserWindow | undefined;
  let services: AppServices | undefined;
  let pageReady = false;
  let launchFile = workspaceArgument(process.argv, process.cwd());
  let launchFileTaken = false;
  const queued: ApiEvent<'menu.command'>[] = [];

  // The only call to shell.openExternal, behind the URL check.
  const openExternal = (url: string) =>
    checkedOpenExternal(url, (safe) => shell.openExternal(safe)).then((opened) => {
      if (!opened) log('warn', `openExternal refused: ${url.slice(0, 200)}`);
      return opened;
    });

  const sendMenu = (command: MenuCommand, path?: string) => {
    queued.push({ event: 'menu.command', payload: path === undefined ? { command } : { command, path } });
    flushMenu();
  };
  const flushMenu = () => {
    if (!win || win.isDestroyed() || !pageReady) return;
    for (const e of queued.splice(0)) win.webContents.send(EVENT_CHANNEL, e);
  };
  const openFile = (path: string) => {
    if (!launchFileTaken) launchFile = path;
    else sendMenu('open', path);
  };

  app.on('open-file', (event, path) => {
    // macOS: Finder, the dock, file association.
    event.preventDefault();
    openFile(path);
    if (win) focusWindow(win);
  });
  app.on('second-instance', (_event, argv, cwd) => {
    const file = workspaceArgument(argv, cwd);
    if (win) focusWindow(win);
    else if (app.isReady()) openWindow();
    if (file) openFile(file);
  });

  app.on('web-contents-created', (_event, contents) => hardenContents(contents, { openLink: openExternal, log }));

  const rebuildMenu = async () => {
    const list = services?.handlers['workspace.recent'];
    const recent = list ? await Promise.resolve(list({})).catch(() => [] as string[]) : [];
    const template = buildMenuTemplate({
      platform: process.platform,
      dev,
      recent,
      send: sendMenu,
      openDocs: () => void openExternal(DOCS_URL),
      about: () => app.showAboutPanel(),
    });
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  };

  const openWindow = () => {
    void loadWindowState(data).then((saved) => {
      pageReady = false;
      const w = createMainWindow({
        preload: join(OUT, 'preload', 'index.cjs'),
        icon: join(OUT, '..', 'assets', 'icon.png'),
        devTools: dev,
        dataDir: data,
        saved,
        log,
      });
      win = w;
      const stopEvents = services ? forwardEvents(services.events, w.webContents) : () => undefined;
      w.webContents.on('did-start-loading', () => {
        pageReady = false;
      });
      w.webContents.on('did-finish-load', () => {
        pageReady = true;
        flushMenu();
      });
      w.on('closed', () => {
        stopEvents();
        if (win === w) win = undefined;
      });
    });
  };

  const quit = new QuitSequence(
    [
      { name: 'save the window state', timeoutMs: 2_000, run: () => (win && !win.isDestroyed() ? saveWindowState(data, captureState(win)) : undefined) },
      { name: 'stop the lab and services', timeoutMs: 10_000, run: () => services?.stop() },
    ],
    { log },
  );
  app.on('before-quit', (event) => {
    if (!quit.beforeQuit(() => app.quit())) event.preventDefault();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  process.on('uncaughtException', (err) => log('error', `uncaught: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => log('error', `unhandled rejection: ${err instanceof Error ? err.message : String(err)}`));

  app.whenReady().then(async () => {
    hardenSession(session.defaultSession, { rendererDir: join(OUT, 'renderer'), devTools: dev, log });
    const secrets = new SafeStorageSecretStore(secretsFile(data), safeStorage, { log });
    const parent = () => BrowserWindow.getFocusedWindow() ?? win;
    services = createAppServices({
      dataDir: data,
      resourcesDir: app.isPackaged ? process.resourcesPath : join(OUT, '..'),
      secrets,
      shell: {
        kind: 'electron',
        openFileDialog: async () => {
          const options = { filters: [{ name: 'lbdesk workspace', extensions: ['yaml', 'yml'] }], properties: ['openFile' as const] };
          const w = parent();
          const r = w ? await dialog.showOpenDialog(w, options) : await dialog.showOpenDialog(options);
          return r.canceled ? null : (r.filePaths[0] ?? null);
        },
        saveFileDialog: async (suggested) => {
          const options = { defaultPath: suggested, filters: [{ name: 'lbdesk workspace', extensions: ['yaml', 'yml'] }] };
          const w = parent();
          const r = w ? await dialog.showSaveDialog(w, options) : await dialog.showSaveDialog(options);
          return r.canceled ? null : (r.filePath ?? null);
        },
        openExternal,
        // The OS's recent documents and the menu follow every opened or saved workspace.
        opened: (path) => {
          app.addRecentDocument(path);
          void rebuildMenu();
        },
        takeLaunchFile: () => {
          launchFileTaken = true;
          const file = launchFile;
          launchFile = undefined;
          return file;
        },
        warnings: () => secrets.warnings,
      },
    });
    bindIpc(ipcMain, services.handlers, APP_ORIGIN, (method, url) => log('warn', `IPC ${method} refused from ${url ?? 'a missing frame'}`));
    await rebuildMenu();
    openWindow();
    log('info', `lbdesk ${VERSION} started (${dev ? 'development' : 'packaged'})`);
  }).catch((err: Error) => {
    log('error', `start-up failed: ${err.message}`);
    app.exit(1);
  });

  app.on('activate', () => {
    // macOS: the dock icon reopens the window; the lab kept running meanwhile.
    if (!win && app.isReady()) openWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
