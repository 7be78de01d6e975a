// Browser mode: the contract over WebSocket (and plain HTTP POST) plus the built renderer, on
// loopback only, behind a random token and an Origin check (see ../shared/spec/cli.md).
import { createServer, type IncomingMessage } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { dispatch, toErrorShape, type Handlers } from '../services/api/dispatch';
import type { ApiEvents } from '../../shared/api/api-events';
import { send, serveStatic } from './static';

export interface UiHostOptions {
  handlers: Handlers;
  events: ApiEvents;
  /** Folder of the built renderer (out/renderer). */
  staticDir: string;
  port?: number;
  host?: string;
  /** Fixed token for tests; random otherwise. */
  token?: string;
}
export interface UiHost { url: string; origin: string; token: string; port: number; close(): Promise<void> }

const MAX_BODY = 17 * 1024 * 1024;
/** Unsent bytes a page may leave waiting (it has stopped reading) before it is dropped. */
const MAX_BUFFERED = 16 * 1024 * 1024;
/** Calls one connection may have waiting for an answer. */
const MAX_IN_FLIGHT = 32;

export async function startUiHost(opts: UiHostOptions): Promise<UiHost> {
  const host = opts.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1') throw new Error(`browser mode binds loopback only, not ${host}`);
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const staticDir = resolve(opts.staticDir);
  let origins: Set<string> = new Set();
  let hosts: Set<string> = new Set();

  const tokenOk = (req: IncomingMessage): boolean => {
    const auth = req.headers.authorization;
    const given = auth?.startsWith('Bearer ') ? auth.slice(7) : new URL(req.url ?? '/', 'http://x').searchParams.get('token');
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  // Refuses DNS-rebinding (foreign Host) and cross-site pages (foreign Origin).
  const hostOk = (req: IncomingMessage) => hosts.has(req.headers.host ?? '');
  const originOk = (req: IncomingMessage) => req.headers.origin === undefined || origins.has(req.headers.origin);

  const server = createServer((req, res) => {
    void (async () => {
      if (!hostOk(req)) return send(res, 421, 'wrong host');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/api' || path.startsWith('/api/')) {
        if (!tokenOk(req)) return send(res, 401, 'a valid token is required');
        if (!originOk(req)) return send(res, 403, 'foreign origin');
        const m = /^\/api\/call\/([\w.]+)$/.exec(path);
        if (!m || req.method !== 'POST') return send(res, 404, 'unknown API path');
        const body = await readBody(req).catch(() => undefined);
        if (body === undefined) return send(res, 413, 'request too large');
        let args: unknown;
        try {
          args = body.length ? JSON.parse(body) : {};
        } catch {
          return send(res, 400, 'body is not JSON');
        }
        const out = await dispatch(opts.handlers, m[1], args);
        res.writeHead(out.ok ? 200 : out.error.code === 'bad-method' ? 404 : 400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(out));
      }
      return serveStatic(staticDir, req, res);
    })().catch(() => send(res, 500, 'internal error'));
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!hostOk(req)) return refuse('421 Misdirected Request');
    if (!path.startsWith('/api/')) return refuse('404 Not Found');
    if (!tokenOk(req)) return refuse('401 Unauthorized');
    if (path !== '/api/ws') return refuse('404 Not Found');
    if (!originOk(req)) return refuse('403 Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  });

  const serveSocket = (ws: WebSocket) => {
    const unsubscribe = opts.events.subscribe((e) => {
      // A page that stops reading would grow this process without bound: drop it (the page's
      // client reconnects by itself).
      if (ws.bufferedAmount > MAX_BUFFERED) return ws.terminate();
      ws.send(JSON.stringify(e));
    });
    let inFlight = 0;
    // ws reports a bad frame (invalid UTF-8, an unknown opcode, one too big) as an error on the
    // connection: end that connection, never the process.
    ws.on('error', () => ws.terminate());
    ws.on('close', unsubscribe);
    ws.on('message', (data) => {
      let frame: unknown;
      try {
        frame = JSON.parse(String(data));
      } catch {
        return ws.send(JSON.stringify({ id: null, ok: false, error: { code: 'bad-args', message: 'frame is not JSON' } }));
      }
      // Any JSON parses: a frame that is not an object must not reach property access.
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
        return ws.send(JSON.stringify({ id: null, ok: false, error: { code: 'bad-args', message: 'frame is not a call object {id, method, args}' } }));
      }
      const { id, method, args } = frame as { id?: unknown; method?: unknown; args?: unknown };
      // Only a number or string id is echoed back.
      const replyId = typeof id === 'number' || typeof id === 'string' ? id : null;
      if (inFlight >= MAX_IN_FLIGHT) {
        return ws.send(JSON.stringify({ id: replyId, ok: false, error: { code: 'refused', message: `too many calls at once on this connection (${MAX_IN_FLIGHT}): wait for the answers` } }));
      }
      inFlight++;
      void dispatch(opts.handlers, method, args)
        .catch((err: unknown) => ({ ok: false as const, error: toErrorShape(err) }))
        .then((out) => {
          if (ws.readyState !== ws.OPEN) return void inFlight--;
          // Answers count against the same bound as events: a page that has stopped reading
          // is dropped, not buffered for.
          if (ws.bufferedAmount > MAX_BUFFERED) return void ws.terminate();
          // A call is in flight until its answer has left, not just been queued.
          ws.send(JSON.stringify({ id: replyId, ...out }), () => inFlight--);
        });
    });
  };

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => done());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '::1' ? '[::1]' : host;
  origins = new Set([`http://${shown}:${port}`, `http://localhost:${port}`]);
  hosts = new Set([`${shown}:${port}`, `localhost:${port}`]);
  const origin = `http://${shown}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        fail(new Error('too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}
