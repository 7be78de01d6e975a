// The main window: hardened web preferences, the remembered size and place, and state saved as
// it changes (debounced) and when the window closes.
import { BrowserWindow, screen } from 'electron';
import { APP_ENTRY } from './protocol';
import { secureWebPreferences } from './policy';
import { MIN_SIZE, captureState, placeWindow, saveWindowState, saveWindowStateSync, type WindowState } from './window-state';

export interface MainWindowOptions {
  preload: string;
  icon?: string;
  devTools: boolean;
  dataDir: string;
  saved: WindowState | undefined;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const place = placeWindow(opts.saved, screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow({
    ...place.bounds,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'lbdesk',
    icon: opts.icon,
    backgroundColor: '#1e1f22',
    webPreferences: secureWebPreferences(opts.preload, opts.devTools),
  });
  if (place.maximized) win.maximize();
  if (place.fullScreen) win.setFullScreen(true);

  let timer: NodeJS.Timeout | undefined;
  const saveSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (win.isDestroyed()) return;
      saveWindowState(opts.dataDir, captureState(win)).catch((err: Error) => opts.log('warn', `window state not saved: ${err.message}`));
    }, 500);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize', 'enter-full-screen', 'leave-full-screen'] as const) {
    win.on(event as 'resize', saveSoon);
  }
  win.on('close', () => {
    clearTimeout(timer);
    try {
      saveWindowStateSync(opts.dataDir, captureState(win));
    } catch (err) {
      opts.log('warn', `window state not saved: ${(err as Error).message}`);
    }
  });
  win.once('ready-to-show', () => win.show());
  win.loadURL(APP_ENTRY).catch((err: Error) => opts.log('error', `cannot load ${APP_ENTRY}: ${err.message}`));
  return win;
}

/** Brings the window to the front (second launch, dock click). */
export function focusWindow(win: BrowserWindow): void {
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}
