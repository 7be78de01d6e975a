// What only the native data path has: its fall back to the JavaScript path (said, never
// silent), peers that reset in the middle of a write, and a run of the engine under
// AddressSanitizer + UBSan (the addon built with -fsanitize, libasan preloaded into node).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as net from 'node:net';
import { join, resolve } from 'node:path';
import type { EngineEvent } from '../../../../shared/api/engine';
import { memberKey } from '../../../../shared/api/types';
import { ForwardingEngine } from '../../../../main/services/engine';
import { NATIVE_ALGORITHM, loadAddon } from '../../../../main/services/engine/native';
import { TSX_LOADER } from '../../../helpers/cli';
import { StaticHealth, freePort, startBackend, tally, until, whoAnswers, workspace } from '../../../helpers/engine';
import { skipBecause } from '../../../helpers/skip';

const ROOT = resolve(__dirname, '../../../..');
const run = promisify(execFile);
const VIP = '127.0.5.190';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function engineOn(backend: { name: string; address: string; port: number }, idleTimeout = '60s') {
  const port = await freePort(VIP);
  const health = new StaticHealth();
  health.set(memberKey({ group: 'g', server: backend.name, port: backend.port }), 'available');
  const engine = new ForwardingEngine({ health, io: 'native', statsIntervalMs: 0 });
  const events: EngineEvent[] = [];
  engine.on('event', (e) => events.push(e));
  cleanups.push(() => engine.stop());
  const r = await engine.apply(workspace({
    servers: [{ name: backend.name, address: backend.address }],
    groups: [{ name: 'g', members: [{ server: backend.name, port: backend.port }] }],
    services: [{ name: 'vip', address: VIP, port, group: 'g', idleTimeout }],
  }));
  expect(r.ok).toBe(true);
  return { engine, port, events };
}

describe('native data path', () => {
  it.runIf(process.platform === 'linux')('moves TCP on its own epoll loop on Linux, on libuv\'s handles when LBDESK_NATIVE_LOOP=uv', () => {
    const loaded = loadAddon();
    if ('error' in loaded) throw new Error(loaded.error);
    const { addon } = loaded;
    const loops: string[] = [];
    try {
      for (const env of [undefined, 'uv']) {
        if (env) process.env.LBDESK_NATIVE_LOOP = env;
        addon.start(() => {});
        loops.push(addon.loop());
        addon.close();
      }
    } finally {
      delete process.env.LBDESK_NATIVE_LOOP;
    }
    expect(loops).toEqual(['epoll', 'libuv']);
  });

  it('exports what JavaScript must agree on: algorithm numbers, the table row and the counters', () => {
    const loaded = loadAddon();
    if ('error' in loaded) throw new Error(loaded.error);
    const { layout } = loaded.addon;
    expect(Object.keys(layout.algorithms)).toEqual(['round-robin', 'weighted-round-robin', 'least-connections', 'health-weighted', 'hash', 'js']);
    expect(new Set(Object.values(layout.algorithms)).size).toBe(6);
    expect(layout.rowFields).toEqual(['id', 'index', 'weight', 'score', 'eligible', 'address', 'address2', 'port', 'hash', 'connectMs']);
    expect(layout.memberStats).toBe(layout.memberFields.length + layout.connectBuckets);
    expect(layout.poolStats).toBe(layout.poolFields.length);
    // Every algorithm a pool can have has a number in this build (a complete record in native.ts).
    for (const [algorithm, name] of Object.entries(NATIVE_ALGORITHM)) expect(layout.algorithms[name], algorithm).toBeTypeOf('number');
  });

  it.runIf(process.platform === 'linux')('runs several data threads on one port: each a loop thread of its own, counters summed, JavaScript\'s choices answered on the thread that asked', async () => {
    const a = await startBackend('t1', '127.0.5.196');
    const b = await startBackend('t2', '127.0.5.197');
    cleanups.push(() => a.close(), () => b.close());
    const port = await freePort(VIP);
    const health = new StaticHealth();
    for (const x of [a, b]) health.set(memberKey({ group: 'g', server: x.name, port: x.port }), 'available');
    const threadsNow = () => readdirSync('/proc/self/task').filter((t) => readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'lbdesk-engine').length;
    const before = threadsNow();
    const engine = new ForwardingEngine({ health, io: 'native', threads: 2, statsIntervalMs: 0 });
    cleanups.push(() => engine.stop());
    const servers = [a, b].map((x) => ({ name: x.name, address: x.address }));
    const members = [a, b].map((x) => ({ server: x.name, port: x.port }));
    // Persistence: the choice is JavaScript's, asked by whichever thread accepted the connection.
    expect((await engine.apply(workspace({ servers, groups: [{ name: 'g', members }], services: [{ name: 'vip', address: VIP, port, group: 'g', persistence: { type: 'client-ip', timeout: '60s' } }] }))).ok).toBe(true);
    expect(threadsNow() - before).toBe(2);
    const sticky = await Promise.all(Array.from({ length: 30 }, () => whoAnswers(VIP, port)));
    expect(new Set(sticky).size).toBe(1);
    // Round robin decided in C on each thread; the counters of both threads add up.
    expect((await engine.apply(workspace({ servers, groups: [{ name: 'g', members }], services: [{ name: 'vip', address: VIP, port, group: 'g' }] }))).ok).toBe(true);
    const names = [];
    for (let i = 0; i < 40; i++) names.push(await whoAnswers(VIP, port, `127.0.6.${i + 1}`));
    expect(Object.keys(tally(names)).sort()).toEqual(['t1', 't2']);
    await until(async () => (await engine.refreshStats()).pools[0]!.servers.reduce((n, s) => n + s.total, 0) === 70, 5000, 'both threads\' counts');
  });

  it('falls back to the JavaScript path when the addon cannot load, and says so', async () => {
    const b = await startBackend('s0', '127.0.5.191');
    cleanups.push(() => b.close());
    const saved = process.env.LBDESK_ENGINE_ADDON;
    process.env.LBDESK_ENGINE_ADDON = join(ROOT, 'no-such-dir/node.napi.node');
    cleanups.push(() => {
      if (saved === undefined) delete process.env.LBDESK_ENGINE_ADDON;
      else process.env.LBDESK_ENGINE_ADDON = saved;
    });
    const { engine, port, events } = await engineOn(b);
    const notice = events.find((e) => e.type === 'notice');
    expect(notice).toMatchObject({ message: expect.stringMatching(/^no native data path for linux-x64 .*; forwarding with the JavaScript data path \(uv\)$/) });
    // Said before anything listens: the first lines of `serve` carry it.
    expect(events.findIndex((e) => e.type === 'notice')).toBeLessThan(events.findIndex((e) => e.type === 'listening'));
    expect((await engine.refreshStats()).io).toBe('uv');
    expect(await whoAnswers(VIP, port)).toBe('s0');
  });

  it('survives peers that reset mid-write, both ways, and counts them', async () => {
    // A server that pours data out; a client that never reads it and then resets.
    const pour = net.createServer((s) => {
      s.on('error', () => {});
      const chunk = Buffer.alloc(256 * 1024, 1);
      const more = () => {
        while (s.writable && s.write(chunk));
      };
      s.on('drain', more);
      more();
    });
    await new Promise<void>((r) => pour.listen(0, '127.0.5.192', r));
    cleanups.push(() => new Promise((r) => pour.close(r)));
    const { engine, port } = await engineOn({ name: 'pour', address: '127.0.5.192', port: (pour.address() as net.AddressInfo).port });
    for (let i = 0; i < 5; i++) {
      // This connection's own data, not the pool's so far: a reset before the relay chose a server is not this test's case.
      await until(async () => (await engine.refreshStats()).pools[0]!.active === 0, 5000, 'the connection before to end');
      const before = (await engine.refreshStats()).pools[0]!.bytesOut;
      const c = net.connect(port, VIP);
      c.on('error', () => {});
      c.pause();
      await new Promise((r) => c.once('connect', r));
      await until(async () => (await engine.refreshStats()).pools[0]!.bytesOut > before, 3000, 'data on its way');
      c.resetAndDestroy();
    }
    await until(async () => (await engine.refreshStats()).pools[0]!.active === 0, 5000, 'every connection to end');
    const st = (await engine.refreshStats()).pools[0]!;
    expect(st.total).toBe(5);
    expect(st.errors).toBe(5);

    // A server that resets while the client is still sending to it.
    const sink = net.createServer((s) => {
      s.on('error', () => {});
      s.once('data', () => setTimeout(() => s.resetAndDestroy(), 20));
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.5.193', r));
    cleanups.push(() => new Promise((r) => sink.close(r)));
    const e2 = await engineOn({ name: 'sink', address: '127.0.5.193', port: (sink.address() as net.AddressInfo).port });
    const c = net.connect(e2.port, VIP);
    const ended = new Promise<string>((r) => {
      c.on('error', (err: NodeJS.ErrnoException) => r(err.code ?? 'error'));
      c.on('close', () => r('closed'));
    });
    await new Promise((r) => c.once('connect', r));
    const big = Buffer.alloc(1024 * 1024, 2);
    for (let i = 0; i < 16 && !c.destroyed; i++) c.write(big);
    expect(['ECONNRESET', 'EPIPE', 'closed']).toContain(await ended);
    await until(async () => (await e2.engine.refreshStats()).pools[0]!.active === 0, 5000, 'the connection to end');
    expect((await e2.engine.refreshStats()).pools[0]!.errors).toBeGreaterThanOrEqual(1);
    // And the engine goes on forwarding.
    const echo = await startBackend('echo', '127.0.5.194');
    cleanups.push(() => echo.close());
    const e3 = await engineOn(echo);
    expect(await whoAnswers(VIP, e3.port)).toBe('echo');
  });

  it.runIf(process.platform === 'linux')('sends a server\'s last bytes and its FIN to the client in one segment, as the server sent them', async () => {
    // One segment and its ACK less per closing connection on each side: kernel time the relay
    // spent beyond HAProxy's (bench/engine-notes.md, "The last bytes and the FIN").
    const peer = join(__dirname, '../../../helpers/engine/peers/fin-with-data.py');
    const backend = spawn('python3', [peer, 'serve', '127.0.5.195'], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => void backend.kill());
    const backendPort = Number(await new Promise<string>((r) => backend.stdout!.once('data', (d) => r(String(d)))));
    const { port } = await engineOn({ name: 'fin', address: '127.0.5.195', port: backendPort });
    // Asynchronously: the engine's listener comes up on this thread's event loop.
    const count = async (address: string, p: number) => JSON.parse((await run('python3', [peer, 'count', address, String(p), '40'])).stdout) as Record<string, number>;
    // Straight from the backend: SYN-ACK, the ACK of the request, the answer with the FIN.
    expect(await count('127.0.5.195', backendPort)).toEqual({ 3: 40 });
    // Through the relay the same three (four when the FIN is sent apart from the bytes).
    expect(await count(VIP, port)).toEqual({ 3: 40 });
  });
});

const libasan = (() => {
  try {
    const f = execFileSync('cc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
    const u = execFileSync('cc', ['-print-file-name=libubsan.so'], { encoding: 'utf8' }).trim();
    return existsSync(f) && existsSync(u) ? `${f}:${u}` : undefined;
  } catch {
    return undefined;
  }
})();

describe.skipIf(skipBecause(!libasan && 'no libasan/libubsan from cc (apt-get install gcc)', 'native data path under sanitizers'))('native data path under AddressSanitizer + UBSan', () => {
  const addon = join(ROOT, 'build/asan/node.napi.node');
  beforeAll(() => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-native.mjs'), '--asan', '--quiet', '--strict'], { cwd: ROOT, stdio: 'inherit' });
  }, 60_000);

  // Both loops: Linux's epoll loop, and libuv's handles (the portable one).
  it.each(['epoll', 'uv'])('forwards, redispatches, replays, reloads, relays UDP and stops with no memory error (loop %s)', async (loop) => {
    // libasan must come first in the process: node is started with it preloaded. Leak checking
    // is off because node itself does not free everything at exit (V8's heap, its own threads).
    const child = spawn(process.execPath, ['--import', TSX_LOADER, join(__dirname, '../../../helpers/engine/native-asan-run.ts')], {
      cwd: ROOT,
      env: {
        ...process.env, LD_PRELOAD: libasan!, LBDESK_ENGINE_ADDON: addon, LBDESK_NATIVE_LOOP: loop, ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1', UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(err).not.toMatch(/AddressSanitizer|runtime error:/);
    expect(code, `${out}\n${err}`).toBe(0);
    expect(out).toContain('native-asan-run: ok');
  }, 60_000);
});
