// Exploit regressions for browser mode (`serve --ui`, `demo`, the npm start fallback): real HTTP
// and WebSocket requests to startUiHost on 127.0.0.1. Without the token → 401; with a foreign
// Origin → 403; with a foreign Host (DNS rebinding) → 421; the page's own requests work.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startUiHost, type UiHost } from '../../../main/host';
import { appServices, tempDir } from '../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
let host: UiHost;
let services: ReturnType<typeof appServices>;

interface Reply { status: number; body: string }

function http(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${host.port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(opts.body);
  });
}

/** A request written byte by byte, for headers Node's client would fix up (an empty or missing Host). */
function raw(text: string): Promise<number> {
  return new Promise((done, fail) => {
    const sock = connect(host.port, '127.0.0.1', () => sock.end(text));
    let reply = '';
    sock.setEncoding('utf8').on('data', (d: string) => (reply += d));
    sock.on('end', () => done(Number(/^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1] ?? 0)));
    sock.on('error', fail);
  });
}

const call = (method: string, headers: Record<string, string>, args: unknown = {}, query = '') =>
  http(`/api/call/${method}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(args) });

/** Opens a WebSocket; resolves with the HTTP status of a refused upgrade, or 101 and the socket. */
function socket(path: string, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers: { host: `127.0.0.1:${host.port}`, ...headers } });
    ws.on('open', () => done({ status: 101, ws }));
    ws.on('unexpected-response', (_req, res) => {
      done({ status: res.statusCode ?? 0 });
      res.resume();
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) fail(err);
    });
  });
}

beforeAll(async () => {
  tmp = tempDir('host');
  const staticDir = join(tmp.dir, 'renderer');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>lbdesk</title>');
  services = appServices(join(tmp.dir, 'data'));
  host = await startUiHost({ handlers: services.handlers, events: services.events, staticDir });
});
afterAll(async () => {
  await host?.close();
  tmp.cleanup();
});

describe('browser mode over HTTP', () => {
  const own = () => ({ origin: host.origin, authorization: `Bearer ${host.token}` });

  it('prints a loopback URL carrying a long random token', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32,}$/);
  });

  it('refuses a call without a token (401), before routing', async () => {
    expect((await call('app.info', { origin: host.origin })).status).toBe(401);
    expect((await call('no.such.method', {})).status).toBe(401);
    expect((await http('/api/../api/call/app.info', { method: 'POST' })).status).toBe(401);
  });

  it('refuses a wrong token (401), of any length and in either place', async () => {
    const wrong = host.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await call('app.info', { origin: host.origin, authorization: `Bearer ${wrong}` })).status).toBe(401);
    expect((await call('app.info', { origin: host.origin, authorization: 'Bearer x' })).status).toBe(401);
    expect((await call('app.info', { origin: host.origin, authorization: `Basic ${host.token}` })).status).toBe(401);
    expect((await call('app.info', { origin: host.origin }, {}, `?token=${wrong}`)).status).toBe(401);
  });

  it('refuses the right token from a foreign Origin (403)', async () => {
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${host.port + 1}`, `https://127.0.0.1:${host.port}`, 'app://lbdesk']) {
      const out = await call('secrets.set', { ...own(), origin }, { name: 'appliance/lb1/password', value: 'x' });
      expect(out.status, origin).toBe(403);
    }
  });

  it('refuses a foreign Host header (DNS rebinding) with 421, token or not', async () => {
    for (const hostHeader of ['evil.example', `evil.example:${host.port}`, `127.0.0.1:${host.port + 1}`, `localhost.evil.example:${host.port}`]) {
      const out = await http('/api/call/app.info', { method: 'POST', headers: { ...own(), host: hostHeader }, body: '{}' });
      expect(out.status, hostHeader).toBe(421);
      const page = await http('/', { headers: { host: hostHeader } });
      expect(page.status).toBe(421);
    }
    const auth = `Authorization: Bearer ${host.token}\r\n`;
    expect(await raw(`POST /api/call/app.info HTTP/1.0\r\n${auth}Content-Length: 2\r\n\r\n{}`)).toBe(421);
    expect(await raw(`POST /api/call/app.info HTTP/1.1\r\nHost: \r\n${auth}Content-Length: 2\r\nConnection: close\r\n\r\n{}`)).not.toBe(200);
  });

  it('accepts the right token with its own Origin, or without an Origin (a non-browser client)', async () => {
    const out = await call('app.info', own());
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body)).toMatchObject({ ok: true, result: { shell: 'electron' } });
    const viaQuery = await call('app.info', { origin: host.origin }, {}, `?token=${host.token}`);
    expect(viaQuery.status).toBe(200);
    const cli = await call('app.info', { authorization: `Bearer ${host.token}` });
    expect(cli.status).toBe(200);
  });

  it('still refuses path traversal with a valid token', async () => {
    const out = await call('workspace.read', own(), { path: '/etc/passwd' });
    expect(out.status).toBe(400);
    expect(out.body).not.toContain('root:x:0:0');
    const rel = await call('workspace.read', own(), { path: '../../../../etc/passwd' });
    expect(rel.status).toBe(400);
  });

  it('serves no file outside the renderer folder', async () => {
    for (const path of ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2f..%2f..%2fetc%2fpasswd', '/%00']) {
      const out = await http(path);
      expect(out.body, path).not.toContain('root:x:0:0');
      expect([200, 400, 403]).toContain(out.status);
    }
  });

  it('sends its CSP with the page', async () => {
    const page = await new Promise<Record<string, unknown>>((done) => {
      request({ host: '127.0.0.1', port: host.port, path: '/' }, (res) => {
        res.resume();
        done(res.headers);
      }).end();
    });
    expect(String(page['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('binds loopback only', async () => {
    await expect(startUiHost({ handlers: {} as never, events: { subscribe: () => () => undefined } as never, staticDir: tmp.dir, host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });
});

describe('browser mode over WebSocket', () => {
  it('refuses an upgrade without a token (401)', async () => {
    expect((await socket('/api/ws', { origin: host.origin })).status).toBe(401);
  });

  it('refuses a wrong token (401)', async () => {
    expect((await socket('/api/ws?token=nope', { origin: host.origin })).status).toBe(401);
    expect((await socket(`/api/ws?token=${host.token}x`, { origin: host.origin })).status).toBe(401);
  });

  it('refuses the right token from a foreign Origin (403)', async () => {
    expect((await socket(`/api/ws?token=${host.token}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await socket(`/api/ws?token=${host.token}`, { origin: 'null' })).status).toBe(403);
  });

  it('refuses a foreign Host header (421)', async () => {
    expect((await socket(`/api/ws?token=${host.token}`, { origin: host.origin, host: 'evil.example' })).status).toBe(421);
  });

  it('accepts its own page and answers calls', async () => {
    const { status, ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    expect(status).toBe(101);
    const reply = await new Promise<{ id: number; ok: boolean; result?: { shell: string } }>((done) => {
      ws!.on('message', (m) => done(JSON.parse(String(m))));
      ws!.send(JSON.stringify({ id: 7, method: 'app.info', args: {} }));
    });
    expect(reply).toMatchObject({ id: 7, ok: true, result: { shell: 'electron' } });
    const bad = await new Promise<{ ok: boolean; error?: { code: string } }>((done) => {
      ws!.removeAllListeners('message');
      ws!.on('message', (m) => done(JSON.parse(String(m))));
      ws!.send(JSON.stringify({ id: 8, method: 'workspace.read', args: { path: '/etc/passwd' } }));
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'refused' } });
    ws!.close();
  });

  it('answers a frame that is not a call object (or a method that is not a string) and keeps serving', async () => {
    const { ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    const replies: { id: unknown; ok: boolean; error?: { code: string; message: string } }[] = [];
    ws!.on('message', (m) => replies.push(JSON.parse(String(m))));
    const frames = ['null', '42', '"x"', '[1,2]', '{"id":1,"method":{"toString":1,"valueOf":1}}', '{"id":2,"method":null}'];
    for (const f of frames) ws!.send(f);
    ws!.send(JSON.stringify({ id: 9, method: 'app.info', args: {} }));
    await vi.waitFor(() => expect(replies.length).toBeGreaterThanOrEqual(frames.length + 1), { timeout: 10_000, interval: 20 });
    expect(replies.slice(0, frames.length).map((r) => r.ok)).toEqual(frames.map(() => false));
    expect(replies.slice(0, frames.length).every((r) => r.error?.code === 'bad-args' || r.error?.code === 'bad-method')).toBe(true);
    expect(replies.at(-1)).toMatchObject({ id: 9, ok: true });
    ws!.close();
  });

  it('drops a page that stops reading its events instead of buffering them without bound', async () => {
    const { ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    const closed = new Promise<void>((done) => ws!.once('close', () => done()));
    // The client stops reading: the server's send buffer can only grow.
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = { ts: new Date().toISOString(), type: 'notice', message: 'x'.repeat(256 * 1024) };
    let gone = false;
    void closed.then(() => (gone = true));
    for (let i = 0; i < 400 && !gone; i++) {
      services.events.send('lab.event', big as never);
      await new Promise((r) => setTimeout(r, 2));
    }
    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    expect(gone).toBe(true);
  });

  it('refuses more than 32 calls in flight on one socket, in words', async () => {
    const { ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    const replies: { id: number; ok: boolean; error?: { code: string; message: string } }[] = [];
    ws!.on('message', (m) => {
      const r = JSON.parse(String(m));
      if ('id' in r) replies.push(r);
    });
    // workspace.browse of a big folder takes a moment: 100 at once overlap.
    for (let id = 1; id <= 100; id++) ws!.send(JSON.stringify({ id, method: 'workspace.browse', args: { dir: '/usr/lib' } }));
    await vi.waitFor(() => expect(replies).toHaveLength(100), { timeout: 20_000, interval: 20 });
    const refused = replies.filter((r) => !r.ok);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.error).toEqual({ code: 'refused', message: 'too many calls at once on this connection (32): wait for the answers' });
    expect(replies.filter((r) => r.ok).length).toBeGreaterThanOrEqual(32);
    ws!.close();
  });

  it('a frame ws itself rejects (invalid UTF-8, an unknown opcode) ends that connection, not the host', async () => {
    for (const frame of [Buffer.from([0x81, 0x83]), Buffer.from([0x83, 0x83])]) {
      const { ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
      const raw = (ws as unknown as { _socket: import('node:net').Socket })._socket;
      const closed = new Promise<void>((done) => ws!.once('close', () => done()));
      ws!.on('error', () => undefined);
      // A masked frame by hand: FIN + text (or opcode 3), length 3, mask 0, payload ff fe 7b.
      raw.write(Buffer.concat([frame, Buffer.from([0, 0, 0, 0]), Buffer.from([0xff, 0xfe, 0x7b])]));
      await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    }
    // Still serving.
    const { status, ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    expect(status).toBe(101);
    ws!.close();
  });

  it('answers count too: a page that stops reading while its calls are answered is dropped', async () => {
    const big = join(tmp.dir, 'big.yaml');
    writeFileSync(big, `lbdesk: 1\nname: big\ndescription: "${'x'.repeat(6 * 1024 * 1024)}"\n`);
    const { ws } = await socket(`/api/ws?token=${host.token}`, { origin: host.origin });
    const closed = new Promise<void>((done) => ws!.once('close', () => done()));
    let gone = false;
    void closed.then(() => (gone = true));
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let id = 1; id <= 12 && !gone; id++) {
      ws!.send(JSON.stringify({ id, method: 'workspace.read', args: { path: big } }));
      await new Promise((r) => setTimeout(r, 100));
    }
    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
    expect(gone).toBe(true);
  });
});

