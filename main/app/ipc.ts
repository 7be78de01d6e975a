// Binds the contract to Electron IPC: one handler per allowlisted channel, each checking that the
// call comes from our own page's main frame before the arguments are even parsed; the arguments
// are then checked against the contract's schema in main (dispatch).
import { ApiError, METHOD_NAMES } from '../../shared/api/contract';
import { channelOf, EVENT_CHANNEL } from '../../shared/api/channels';
import { dispatch, type CallOutcome, type Handlers } from '../services/api/dispatch';
import type { ApiEvents } from '../../shared/api/api-events';

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

/**
 * Same origin, compared part by part: Node's URL gives non-special schemes such as app:// the
 * opaque origin "null", so comparing `.origin` strings would either refuse everything or, worse,
 * treat every opaque origin alike.
 */
export function sameOrigin(raw: string, trustedOrigin: string): boolean {
  let url: URL;
  let trusted: URL;
  try {
    url = new URL(raw);
    trusted = new URL(trustedOrigin);
  } catch {
    return false;
  }
  return (
    url.protocol === trusted.protocol &&
    url.host !== '' &&
    url.host === trusted.host &&
    url.username === '' &&
    url.password === ''
  );
}

/** Only the top-level frame of our own origin (e.g. `app://lbdesk/...`) may call. */
export function isTrustedFrame(event: InvokeEventLike, trustedOrigin: string): boolean {
  let frame: InvokeEventLike['senderFrame'];
  try {
    // Electron returns null (or throws, in some versions) once the frame navigated or was destroyed.
    frame = event.senderFrame;
  } catch {
    return false;
  }
  if (!frame || frame.parent) return false;
  return typeof frame.url === 'string' && sameOrigin(frame.url, trustedOrigin);
}

export const REFUSED: CallOutcome = { ok: false, error: { code: 'refused', message: 'call from an untrusted frame' } };

export function bindIpc(
  ipc: IpcMainLike,
  handlers: Handlers,
  trustedOrigin: string,
  onRefused?: (method: string, frameUrl: string | undefined) => void,
): () => void {
  for (const method of METHOD_NAMES) {
    ipc.handle(channelOf(method), async (event, args) => {
      if (!isTrustedFrame(event, trustedOrigin)) {
        let url: string | undefined;
        try {
          url = event.senderFrame?.url;
        } catch {
          url = undefined;
        }
        onRefused?.(method, url);
        return REFUSED;
      }
      return dispatch(handlers, method, args);
    });
  }
  return () => METHOD_NAMES.forEach((m) => ipc.removeHandler(channelOf(m)));
}

/** Forwards every contract event to a window while it lives. */
export function forwardEvents(events: ApiEvents, target: WebContentsLike): () => void {
  const off = events.subscribe((e) => {
    if (!target.isDestroyed()) target.send(EVENT_CHANNEL, e);
  });
  return off;
}

export { ApiError };
