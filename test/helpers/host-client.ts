// The page's side of browser mode for exploit tests: the real host on 127.0.0.1 with the app's
// services, and one authenticated WebSocket that calls methods by id, as the renderer does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startUiHost, type UiHost } from '../../main/host';
import { appServices } from './app-ipc';

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { code: string; message: string } };

export interface PageSession {
  host: UiHost;
  call(method: string, args?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

/** Starts the host on `dir` and opens the page's socket (token, Origin and Host as the page sends them). */
export async function openPage(dir: string): Promise<PageSession> {
  const staticDir = join(dir, 'renderer');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>lbdesk</title>');
  const services = appServices(join(dir, 'data'));
  const host = await startUiHost({ handlers: services.handlers, events: services.events, staticDir });
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`, { headers: { origin: host.origin } });
  await new Promise<void>((done, fail) => socket.once('open', () => done()).once('error', fail));
  const waiting = new Map<number, (r: Reply) => void>();
  socket.on('message', (m) => {
    const r = JSON.parse(String(m)) as Reply;
    waiting.get(r.id)?.(r);
    waiting.delete(r.id);
  });
  let next = 1;
  return {
    host,
    call: (method, args = {}) =>
      new Promise((done) => {
        const id = next++;
        waiting.set(id, done);
        socket.send(JSON.stringify({ id, method, args }));
      }),
    async close() {
      socket.close();
      await services.stop();
      await host.close();
    },
  };
}
