// Electron main process: one hardened window on the app:// protocol, the contract over IPC.
import { app, BrowserWindow, dialog, ipcMain, net, protocol, session, shell } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bindIpc, forwardEvents } from './ipc';
import { checkedOpenExternal } from './external';
import { createAppServices } from '../services/api/wiring';
import { dataDir } from '../services/paths';
import { MemorySecretStore } from '../services/secrets/memory';

const APP_ORIGIN = 'app://lbdesk';
const RENDERER_DIR = join(__dirname, '../renderer');

protocol.registerSchemesAsPrivileged([
  { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

async function createWindow(): Promise<void> {
  const services = createAppServices({
    shell: 'electron',
    dataDir: dataDir(),
    resourcesDir: app.isPackaged ? process.resourcesPath : join(__dirname, '../..'),
    secrets: new MemorySecretStore(),
    openExternal: async (url) => checkedOpenExternal(url, (u) => shell.openExternal(u)),
    dialogs: {
      open: async () => {
        const r = await dialog.showOpenDialog({ filters: [{ name: 'lbdesk workspace', extensions: ['yaml', 'yml'] }], properties: ['openFile'] });
        return r.canceled ? null : (r.filePaths[0] ?? null);
      },
      save: async (suggested) => {
        const r = await dialog.showSaveDialog({ defaultPath: suggested, filters: [{ name: 'lbdesk workspace', extensions: ['yaml'] }] });
        return r.canceled ? null : (r.filePath ?? null);
      },
    },
  });
  bindIpc(ipcMain, services.handlers, APP_ORIGIN);

  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    show: false,
    title: 'lbdesk',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  const stopEvents = forwardEvents(services.events, win.webContents);
  win.on('closed', () => {
    stopEvents();
    void services.stop();
  });
  win.once('ready-to-show', () => win.show());
  await win.loadURL(`${APP_ORIGIN}/index.html`);
}

app.on('web-contents-created', (_e, contents) => {
  // No navigation away from the app and no new windows; links go through the checked helper.
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    void checkedOpenExternal(url, (u) => shell.openExternal(u));
    return { action: 'deny' };
  });
});

app.whenReady().then(async () => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  protocol.handle('app', (request) => {
    const url = new URL(request.url);
    const rel = decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html';
    const file = join(RENDERER_DIR, rel);
    if (!file.startsWith(RENDERER_DIR)) return new Response('forbidden', { status: 403 });
    return net.fetch(pathToFileURL(file).toString());
  });
  await createWindow();
});

app.on('window-all-closed', () => app.quit());
