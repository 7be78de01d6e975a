// The renderer's one API client: the preload bridge in Electron, the WebSocket in a browser.
import type { ApiClient } from '../../../shared/api/contract';
import { bridgeClient, socketClient, type PreloadBridge, type SocketLike } from '../../../shared/api/client';

declare global {
  interface Window { lbdesk?: PreloadBridge }
}

/** Picks the transport: the preload bridge when present, else this page's own host. */
export function createApi(): ApiClient {
  if (window.lbdesk) return bridgeClient(window.lbdesk);
  const params = new URLSearchParams(location.search);
  const token = params.get('token') ?? sessionStorage.getItem('lbdesk.token') ?? '';
  if (params.has('token')) {
    // Keep the token for reloads, but out of the address bar and history.
    sessionStorage.setItem('lbdesk.token', token);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  }
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return socketClient(`${scheme}://${location.host}/api/ws?token=${encodeURIComponent(token)}`, (url) => new WebSocket(url) as unknown as SocketLike);
}
