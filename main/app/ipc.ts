// Binds the contract to Electron IPC: one handler per allowlisted channel, each checking that the
// call comes from our own page's main frame before the arguments are even parsed.
import { ApiError, METHOD_NAMES } from '../../shared/api/contract';
import { channelOf, EVENT_CHANNEL } from '../../shared/api/channels';
import { dispatch, type Handlers } from '../services/api/dispatch';
import type { EventBus } from '../services/api/events';

/** The parts of Electron's IpcMainInvokeEvent we rely on. */
export interface InvokeEventLike {
  senderFrame: { url: string; parent: unknown } | null;
}
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}
export interface WebContentsLike {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

/** Only top-level frames of our own origin may call (e.g. `app://lbdesk/...`). */
export function isTrustedFrame(event: InvokeEventLike, trustedOrigin: string): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent) return false;
  try {
    // URL.origin is "null" for custom schemes such as app://, so compare scheme and host.
    const url = new URL(frame.url);
    return `${url.protocol}//${url.host}` === trustedOrigin;
  } catch {
    return false;
  }
}

export function bindIpc(ipc: IpcMainLike, handlers: Partial<Handlers>, trustedOrigin: string): () => void {
  for (const method of METHOD_NAMES) {
    ipc.handle(channelOf(method), async (event, args) => {
      if (!isTrustedFrame(event, trustedOrigin)) {
        return { ok: false, error: { code: 'refused', message: 'call from an untrusted frame' } };
      }
      return dispatch(handlers, method, args);
    });
  }
  return () => METHOD_NAMES.forEach((m) => ipc.removeHandler(channelOf(m)));
}

/** Forwards every contract event to a window while it lives. */
export function forwardEvents(events: EventBus, target: WebContentsLike): () => void {
  const off = events.subscribe((e) => {
    if (!target.isDestroyed()) target.send(EVENT_CHANNEL, e);
  });
  return off;
}

export { ApiError };
