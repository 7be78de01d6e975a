// A faithful in-memory stand-in for Electron's ipcMain/ipcRenderer pair: invoke() reaches the
// handler registered for that channel with an event carrying the calling frame, results and
// throws are passed back as Electron does (structured-clone copies), and send() reaches `on`.
import type { IpcMainLike, InvokeEventLike, WebContentsLike } from '../../main/app/ipc';
import type { IpcRendererLike } from '../../main/preload/bridge';

type Handler = (event: InvokeEventLike, ...args: unknown[]) => unknown;
type RendererListener = (event: unknown, ...args: unknown[]) => void;

export interface Frame { url: string; parent: unknown }

export function createIpcPair(frame: Frame | null = { url: 'app://lbdesk/index.html', parent: null }) {
  const handlers = new Map<string, Handler>();
  const listeners = new Map<string, Set<RendererListener>>();
  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, listener);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
  };
  const ipcRenderer: IpcRendererLike & { frame: Frame | null } = {
    frame,
    async invoke(channel, ...args) {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
      const result = await handler({ senderFrame: this.frame }, ...args.map((a) => structuredClone(a)));
      return structuredClone(result);
    },
    on(channel, listener) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      return this;
    },
    removeListener(channel, listener) {
      listeners.get(channel)?.delete(listener);
      return this;
    },
  };
  const webContents: WebContentsLike = {
    send(channel, ...args) {
      for (const l of listeners.get(channel) ?? []) l({}, ...args.map((a) => structuredClone(a)));
    },
    isDestroyed: () => false,
  };
  return { ipcMain, ipcRenderer, webContents, channels: () => [...handlers.keys()] };
}
