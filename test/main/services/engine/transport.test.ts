// The socket layers (libuv handles and node:net) behave the same: half-close, bulk data with
// backpressure, resets, redispatch of failed and timed-out connects before the client sees anything.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import * as net from 'node:net';
import { memberKey } from '../../../../shared/api/types';
import type { EngineEvent } from '../../../../shared/api/engine';
import { ForwardingEngine } from '../../../../main/services/engine';
import { StaticHealth, engineIo, expectRefused, freePort, ioOf, roundTrip, startBackend, tally, until, whoAnswers, workspace, type Backend, type DataPath } from '../../../helpers/engine';

const VIP = '127.0.5.160';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(io: DataPath | 'net', backends: { name: string; address: string; port: number }[], timeout = '5s') {
  const port = await freePort(VIP);
  const health = new StaticHealth();
  backends.forEach((b) => health.set(memberKey({ group: 'g', server: b.name, port: b.port }), 'available'));
  const engine = new ForwardingEngine({ health, io: engineIo(io), statsIntervalMs: 0 });
  const events: EngineEvent[] = [];
  engine.on('event', (e) => events.push(e));
  cleanups.push(() => engine.stop());
  const r = await engine.apply(workspace({
    servers: backends.map((b) => ({ name: b.name, address: b.address, healthTimers: { timeout } })),
    groups: [{ name: 'g', members: backends.map((b) => ({ server: b.name, port: b.port })) }],
    services: [{ name: 'vip', address: VIP, port, group: 'g', algorithm: 'round-robin' }],
  }));
  expect(r.ok).toBe(true);
  return { engine, health, port, events };
}

async function backend(name: string, address: string): Promise<Backend> {
  const b = await startBackend(name, address);
  cleanups.push(() => b.close());
  return b;
}

describe.each(['native', 'native-libuv', 'uv', 'net'] as const)('data path %s', (io) => {
  it('keeps half-close: the client ends its side and still gets every byte back', async () => {
    const b = await backend('s0', '127.0.5.161');
    const { port, engine } = await setup(io, [b]);
    expect((await engine.refreshStats()).io).toBe(ioOf(io));
    const data = randomBytes(200_000);
    const got = await roundTrip(VIP, port, data);
    expect(got.subarray(0, 3).toString()).toBe('s0\n');
    expect(got.subarray(3).equals(data)).toBe(true);
  });

  it('moves bulk data intact through a slow reader (backpressure)', async () => {
    const b = await backend('s0', '127.0.5.161');
    const { port, engine } = await setup(io, [b]);
    const size = 24 * 1024 * 1024;
    const chunk = randomBytes(1 << 20);
    const sent = createHash('sha256');
    const recv = createHash('sha256');
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      const s = net.connect({ host: VIP, port, allowHalfOpen: true });
      s.on('error', reject);
      let first = true;
      s.on('data', (d: Buffer) => {
        let part = d;
        if (first) {
          part = d.subarray(3);
          first = false;
        }
        recv.update(part);
        received += part.length;
        // Read slowly now and then so the engine has to hold back the sender.
        if (received % (4 << 20) < part.length) {
          s.pause();
          setTimeout(() => s.resume(), 50);
        }
      });
      s.on('end', () => {
        s.end();
        resolve();
      });
      let left = size;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          sent.update(chunk);
          if (!s.write(chunk)) return void s.once('drain', pump);
        }
        s.end();
      };
      pump();
    });
    expect(received).toBe(size);
    expect(recv.digest('hex')).toBe(sent.digest('hex'));
    const st = (await engine.refreshStats()).pools[0]!;
    expect(st.bytesIn).toBe(size);
    expect(st.bytesOut).toBe(size + 3);
  });

  it('passes a server reset on to the client', async () => {
    const srv = net.createServer((s) => {
      s.write('bye\n');
      setTimeout(() => s.resetAndDestroy(), 50);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.5.162', r));
    cleanups.push(() => new Promise((r) => srv.close(r)));
    const { port } = await setup(io, [{ name: 'rst', address: '127.0.5.162', port: (srv.address() as net.AddressInfo).port }]);
    const code = await new Promise<string>((resolve) => {
      const s = net.connect({ host: VIP, port });
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      s.on('close', () => resolve('closed'));
    });
    expect(code).toBe('ECONNRESET');
  });

  it('redispatches a refused connect to another server: no client error, the failure reported', async () => {
    const live = [await backend('s1', '127.0.5.164'), await backend('s2', '127.0.5.165')];
    const deadPort = await freePort('127.0.5.163');
    const { port, health, events, engine } = await setup(io, [{ name: 's0', address: '127.0.5.163', port: deadPort }, ...live]);
    await whoAnswers(VIP, port);
    await whoAnswers(VIP, port);
    const fds = readdirSync('/proc/self/fd').length;
    const names = await Promise.all(Array.from({ length: 60 }, () => whoAnswers(VIP, port)));
    expect(tally(names)).toEqual({ s1: 30, s2: 30 });
    // Failed connects leave no descriptor behind.
    await until(async () => (await engine.refreshStats()).pools[0]!.active === 0, 3000, 'connections to end');
    expect(readdirSync('/proc/self/fd').length - fds).toBeLessThanOrEqual(2);
    expect(health.failures.length).toBeGreaterThan(0);
    expect(health.failures.every((f) => f.key === memberKey({ group: 'g', server: 's0', port: deadPort }))).toBe(true);
    expect(health.failures[0]!.reason).toBe(`connect ECONNREFUSED (127.0.5.163:${deadPort})`);
    const r = await until(() => events.find((e) => e.type === 'redispatch'), 3000, 'redispatch event');
    expect(r).toMatchObject({ type: 'redispatch', service: 'vip', server: 's0', reason: 'connect ECONNREFUSED' });
  });

  it('moves a client whose server resets before answering, replaying what it sent', async () => {
    // Reads the request, then resets without a word: a server dying with queued connections.
    const rst = net.createServer((s) => s.once('data', () => s.resetAndDestroy()));
    await new Promise<void>((r) => rst.listen(0, '127.0.5.169', r));
    cleanups.push(() => new Promise((r) => rst.close(r)));
    const echo = await startBackend('echo', '127.0.5.161', 0, { greet: false });
    cleanups.push(() => echo.close());
    const rstPort = (rst.address() as net.AddressInfo).port;
    const { port, health } = await setup(io, [{ name: 'rst', address: '127.0.5.169', port: rstPort }, echo]);
    for (let i = 0; i < 6; i++) {
      const data = Buffer.from(`request ${i} `.repeat(100 + i));
      const got = await roundTrip(VIP, port, data);
      expect(got.length, `${io} round ${i}: ${got.subarray(0, 40)}`).toBe(data.length);
      expect(got.equals(data)).toBe(true);
    }
    await until(() => health.failures.length > 0, 2000, 'failure report');
    expect(health.failures[0]!.reason).toBe(`reset before answering: ECONNRESET (127.0.5.169:${rstPort})`);
  });

  it('redispatches a connect that times out (a server that accepts nothing)', async () => {
    // python3 listens with a full backlog and never accepts: SYNs go unanswered.
    const py = spawn('python3', ['-c', [
      'import socket,sys,time',
      "s=socket.socket(); s.bind(('127.0.5.166',0)); s.listen(0)",
      'print(s.getsockname()[1], flush=True)',
      'time.sleep(60)',
    ].join('\n')], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => void py.kill());
    const stuckPort = Number(await new Promise<string>((r) => py.stdout.once('data', (d) => r(String(d).trim()))));
    // Fill its accept queue so further connects hang.
    const fillers: net.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const f = net.connect({ host: '127.0.5.166', port: stuckPort });
      f.on('error', () => {});
      fillers.push(f);
    }
    cleanups.push(() => fillers.forEach((f) => f.destroy()));
    await new Promise((r) => setTimeout(r, 200));
    const live = await backend('s1', '127.0.5.167');
    const { port, health } = await setup(io, [{ name: 'stuck', address: '127.0.5.166', port: stuckPort }, live], '500ms');
    const t0 = Date.now();
    const names = [await whoAnswers(VIP, port), await whoAnswers(VIP, port)];
    expect(names).toEqual(['s1', 's1']);
    expect(Date.now() - t0).toBeLessThan(4000);
    await until(() => health.failures.length > 0, 2000, 'failure report');
    expect(health.failures[0]!.reason).toBe(`connect timed out (127.0.5.166:${stuckPort})`);
  });

  it('leaks nothing when clients reset while the engine passes on a half-close', async () => {
    // The server answers and closes; each client resets as soon as it has the answer, racing
    // the engine's shutdown of its side (a reset then is refused by libuv).
    const srv = net.createServer((s) => s.on('error', () => {}).end('x'.repeat(2000)));
    await new Promise<void>((r) => srv.listen(0, '127.0.5.162', r));
    cleanups.push(() => new Promise((r) => srv.close(r)));
    const { port, engine } = await setup(io, [{ name: 'fin', address: '127.0.5.162', port: (srv.address() as net.AddressInfo).port }]);
    const once = () =>
      new Promise<void>((resolve) => {
        const s = net.connect({ host: VIP, port });
        s.on('data', () => s.resetAndDestroy());
        s.on('error', () => resolve());
        s.on('close', () => resolve());
      });
    await once();
    const fds = readdirSync('/proc/self/fd').length;
    for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 40 }, once));
    await until(async () => (await engine.refreshStats()).pools[0]!.active === 0, 5000, 'connections to end');
    await until(() => readdirSync('/proc/self/fd').length - fds <= 2, 5000, 'the sockets to close');
    // And the worker can still be ended (a leaked handle would keep it from exiting).
    const w = engine.dataWorker!;
    const t0 = Date.now();
    await engine.stop();
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(w.threadId).toBe(-1);
  });

  it('refuses with a reset when every server fails', async () => {
    const dead = await freePort('127.0.5.168');
    const { port, events } = await setup(io, [{ name: 'dead', address: '127.0.5.168', port: dead }]);
    expect(await expectRefused(VIP, port)).toBe('ECONNRESET');
    const r = await until(() => events.find((e) => e.type === 'refused'), 3000, 'refused event');
    expect(r).toMatchObject({ reason: 'every server failed to connect' });
  });
});
