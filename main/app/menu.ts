// The native menu as a plain template (tested without Electron). Items that act on the workspace
// reach the renderer as `menu.command` events; editing, zoom and quit use Electron's own roles.
import type { MenuItemConstructorOptions } from 'electron';
import { basename, dirname } from 'node:path';
import type { MenuCommand } from '../../shared/api/contract';
import { VIEWS } from '../../shared/api/views';

export interface MenuOptions {
  platform: NodeJS.Platform;
  /** Development build: reload and DevTools are offered only then. */
  dev: boolean;
  /** Recent workspaces, newest first. */
  recent: readonly string[];
  send(command: MenuCommand, path?: string): void;
  openDocs(): void;
  about(): void;
}

export const RECENT_IN_MENU = 10;


/** `lab-site-a.yaml — /home/me/sites`: the name first, so similar paths stay tellable apart. */
export function recentLabel(path: string): string {
  return `${basename(path)} — ${dirname(path)}`;
}

export function buildMenuTemplate(o: MenuOptions): MenuItemConstructorOptions[] {
  const mac = o.platform === 'darwin';
  const sep: MenuItemConstructorOptions = { type: 'separator' };
  const recent = o.recent.slice(0, RECENT_IN_MENU);

  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { label: '&Open…', accelerator: 'CmdOrCtrl+O', click: () => o.send('open') },
      {
        label: 'Open &Recent',
        submenu: recent.length
          ? recent.map((path) => ({ label: recentLabel(path), click: () => o.send('open', path) }))
          : [{ label: 'No recent workspaces', enabled: false }],
      },
      sep,
      { label: "New Workspace from an Appliance's &Config…", click: () => o.send('import-new') },
      { label: '&Import into This Workspace…', click: () => o.send('import-into') },
      { label: 'Change &Report for a Ticket…', click: () => o.send('change-report') },
      sep,
      { label: '&Save', accelerator: 'CmdOrCtrl+S', click: () => o.send('save') },
      { label: 'Save &As…', accelerator: 'CmdOrCtrl+Shift+S', click: () => o.send('save-as') },
      ...(mac ? [] : [sep, { label: '&Quit', role: 'quit', accelerator: 'CmdOrCtrl+Q' } as MenuItemConstructorOptions]),
    ],
  };

  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [
      { role: 'undo' }, { role: 'redo' }, sep,
      { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' },
    ],
  };

  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      // The views, as the sidebar names them (shared/api/views.ts).
      ...VIEWS.map((v) => ({ label: v.label, ...('key' in v ? { accelerator: `CmdOrCtrl+${v.key}` } : {}), click: () => o.send(v.command) })),
      sep,
      { label: 'Toggle &Theme', accelerator: 'CmdOrCtrl+Shift+L', click: () => o.send('toggle-theme') },
      sep,
      { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, sep,
      { role: 'togglefullscreen' },
      ...(o.dev ? [sep, { role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[] : []),
    ],
  };

  const lab: MenuItemConstructorOptions = {
    label: '&Lab',
    submenu: [
      { label: '&Start Lab', accelerator: 'F5', click: () => o.send('lab-start') },
      { label: 'S&top Lab', accelerator: 'Shift+F5', click: () => o.send('lab-stop') },
    ],
  };

  const help: MenuItemConstructorOptions = {
    role: 'help',
    label: '&Help',
    submenu: [
      { label: 'lbdesk &Documentation', click: () => o.openDocs() },
      ...(mac ? [] : [sep, { label: '&About lbdesk', click: () => o.about() }]),
    ],
  };

  const appMenu: MenuItemConstructorOptions = {
    label: 'lbdesk',
    submenu: [
      { label: 'About lbdesk', click: () => o.about() }, sep,
      { role: 'services' }, sep,
      { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, sep,
      { role: 'quit' },
    ],
  };

  return [...(mac ? [appMenu] : []), file, edit, view, lab, ...(mac ? [{ role: 'windowMenu' } as MenuItemConstructorOptions] : []), help];
}
