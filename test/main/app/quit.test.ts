// Quitting while traffic flows: Electron's before-quit is held until the shutdown steps finish
// (here a real TCP relay with a live client connection, and the window state), then the quit
// goes on exactly once. A hung or failing step cannot keep the app alive.
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { QuitSequence } from '../../../main/app/quit';
import { loadWindowState, saveWindowState } from '../../../main/app/window-state';
import { callDirect } from '../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../helpers/app-ipc';

/** A minimal forwarding engine on loopback: 127.0.0.1:ephemeral → an echo backend. */
async function startRelay() {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const backend = createServer((s) => {
    track(s);
    s.pipe(s);
  });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');
  const relay = createServer((client) => {
    track(client);
    const upstream = connect((backend.address() as AddressInfo).port, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  const close = (s: Server) => new Promise<void>((done) => s.close(() => done()));
  return {
    port: (relay.address() as AddressInfo).port,
    open: () => sockets.size,
    stop: async () => {
      for (const s of sockets) s.end();
      await new Promise((r) => setTimeout(r, 20));
      for (const s of sockets) s.destroy();
      await Promise.all([close(relay), close(backend)]);
    },
  };
}

/** Electron's before-quit as the app uses it: preventDefault until the sequence lets it through. */
function fakeApp(seq: QuitSequence) {
  let exits = 0;
  const app = {
    quit(): void {
      const event = { prevented: false, preventDefault() { this.prevented = true; } };
      if (!seq.beforeQuit(() => app.quit())) event.preventDefault();
      if (!event.prevented) exits++;
    },
    exits: () => exits,
  };
  return app;
}

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.cleanup());

describe('quit while the lab is forwarding', () => {
  it('stops the engine, closes its connections, saves state, then quits once', async () => {
    tmp = tempDir('quit');
    const relay = await startRelay();
    const client = connect(relay.port, '127.0.0.1');
    await once(client, 'connect');
    client.write('ping');
    const [echo] = (await once(client, 'data')) as [Buffer];
    expect(String(echo)).toBe('ping');
    expect(relay.open()).toBe(3);
    const clientClosed = once(client, 'close');
    client.on('error', () => undefined);

    const order: string[] = [];
    const seq = new QuitSequence([
      { name: 'save the window state', run: async () => { await saveWindowState(tmp!.dir, { bounds: { x: 1, y: 2, width: 900, height: 700 }, maximized: false, fullScreen: false }); order.push('state'); } },
      { name: 'stop the lab and services', run: async () => { await relay.stop(); order.push('engine'); } },
    ]);
    const app = fakeApp(seq);
    app.quit(); // the user presses Ctrl+Q
    expect(app.exits()).toBe(0);
    expect(seq.phase).toBe('stopping');
    app.quit(); // and again, impatiently: no second shutdown
    await seq.whenDone();
    expect(app.exits()).toBe(1);
    expect(order).toEqual(['state', 'engine']);
    await clientClosed;
    expect(relay.open()).toBe(0);
    expect((await loadWindowState(tmp.dir))?.bounds.width).toBe(900);
    app.quit();
    expect(app.exits()).toBe(2); // after the shutdown, quits pass straight through
  });

  it('with the real lab: the app quits while a connection is forwarded, the engine stops and closes it', async () => {
    tmp = tempDir('quit-lab');
    const echoed = new Set<Socket>();
    const echo = createServer((s) => {
      echoed.add(s);
      s.on('close', () => echoed.delete(s));
      s.on('error', () => undefined);
      s.pipe(s);
    });
    echo.listen(0, '127.0.6.11');
    await once(echo, 'listening');
    const free = createServer().listen(0, '127.0.6.10');
    await once(free, 'listening');
    const vport = (free.address() as AddressInfo).port;
    await new Promise<void>((done) => free.close(() => done()));
    try {
      const services = appServices(join(tmp.dir, 'data'));
      const text = [
        'lbdesk: 1',
        'name: quit-test',
        'healthTimers: { interval: 200ms, retryInterval: 200ms, failAfter: 1, restoreAfter: 1, timeout: 500ms }',
        'servers:',
        '  - { name: b1, address: 127.0.6.11 }',
        'groups:',
        `  - { name: g, members: [{ server: b1, port: ${(echo.address() as AddressInfo).port} }], healthCheck: { type: tcp } }`,
        'services:',
        `  - { name: vip, address: 127.0.6.10, port: ${vport}, group: g }`,
        '',
      ].join('\n');
      await callDirect(services.handlers, 'lab.start', { path: join(tmp.dir, 'quit-test.yaml'), text });
      const deadline = Date.now() + 10_000;
      while (!(await callDirect(services.handlers, 'lab.status', {})).members.some((m) => m.state === 'available')) {
        if (Date.now() > deadline) throw new Error('the member never became available');
        await new Promise((r) => setTimeout(r, 50));
      }
      const client = connect(vport, '127.0.6.10');
      client.on('error', () => undefined);
      await once(client, 'connect');
      client.write('through the lab');
      const [reply] = (await once(client, 'data')) as [Buffer];
      expect(String(reply)).toBe('through the lab');
      const closed = once(client, 'close');

      const seq = new QuitSequence([
        { name: 'save the window state', run: () => saveWindowState(tmp!.dir, { bounds: { x: 0, y: 0, width: 1000, height: 700 }, maximized: true, fullScreen: false }) },
        { name: 'stop the lab and services', run: () => services.stop() },
      ]);
      const app = fakeApp(seq);
      app.quit();
      await seq.whenDone();
      expect(app.exits()).toBe(1);
      await closed;
      expect((await callDirect(services.handlers, 'lab.status', {})).running).toBe(false);
      const refused = connect(vport, '127.0.6.10');
      const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ECONNREFUSED');
      expect((await loadWindowState(tmp.dir))?.maximized).toBe(true);
    } finally {
      for (const s of echoed) s.destroy();
      await new Promise<void>((done) => echo.close(() => done()));
    }
  }, 30_000);

  it('goes on past a hung step and a failing step, logging both', async () => {
    const logs: string[] = [];
    let last = false;
    const seq = new QuitSequence(
      [
        { name: 'hung step', timeoutMs: 50, run: () => new Promise<void>(() => undefined) },
        { name: 'failing step', run: () => { throw new Error('disk full'); } },
        { name: 'last step', run: () => void (last = true) },
      ],
      { log: (level, m) => logs.push(`${level} ${m}`) },
    );
    const app = fakeApp(seq);
    const started = Date.now();
    app.quit();
    await seq.whenDone();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(app.exits()).toBe(1);
    expect(last).toBe(true);
    expect(logs).toEqual(['warn quit: hung step did not finish within 50 ms; going on', 'error quit: failing step failed: disk full']);
  });
});
