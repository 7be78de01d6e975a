// The engine over real loopback sockets: every algorithm against its formula, persistence,
// timeouts, refusal, draining and reload. States come from StaticHealth (the engine's input).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import type { EngineEvent } from '../../../../shared/api/engine';
import { memberKey } from '../../../../shared/api/types';
import type { WorkspaceInput } from '../../../../shared/model/schema';
import { ForwardingEngine } from '../../../../main/services/engine';
import { StaticHealth, expectRefused, freePort, healthSeen, hold, sleep, startBackend, tally, until, whoAnswers, workspace, type Backend, type Held, engineIo, ioOf } from '../../../helpers/engine';
import { DATA_PATHS, type DataPath } from '../../../helpers/engine';

const VIP = '127.0.5.100';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  engine: ForwardingEngine;
  health: StaticHealth;
  backends: Backend[];
  port: number;
  events: EngineEvent[];
  input: (over?: Partial<Record<string, unknown>>) => WorkspaceInput;
  key: (i: number) => string;
}

/** Backends s0..sN on 127.0.5.101.., a service on VIP:port over group g, all available. */
async function setup(weights: number[], service: Record<string, unknown> = {}, state: 'available' | 'unknown' = 'available'): Promise<Setup> {
  const backends = await Promise.all(weights.map((_, i) => startBackend(`s${i}`, `127.0.5.${101 + i}`)));
  cleanups.push(() => Promise.all(backends.map((b) => b.close())));
  const port = await freePort(VIP);
  const health = new StaticHealth();
  const key = (i: number) => memberKey({ group: 'g', server: `s${i}`, port: backends[i]!.port });
  const input = (over: Partial<Record<string, unknown>> = {}): WorkspaceInput => ({
    lbdesk: 1,
    name: 't',
    servers: backends.map((b) => ({ name: b.name, address: b.address })),
    groups: [{ name: 'g', members: backends.map((b, i) => ({ server: b.name, port: b.port, weight: weights[i]! })) }],
    services: [{ name: 'vip', address: VIP, port, group: 'g', ...service }],
    ...over,
  }) as WorkspaceInput;
  if (state === 'available') backends.forEach((_, i) => health.set(key(i), 'available'));
  const engine = new ForwardingEngine({ health, io: engineIo(dataPath), statsIntervalMs: 0 });
  const events: EngineEvent[] = [];
  engine.on('event', (e) => events.push(e));
  cleanups.push(() => engine.stop());
  const r = await engine.apply(workspace(input()));
  expect(r.ok).toBe(true);
  // The path asked for is the one that runs (no silent fall back).
  expect((await engine.refreshStats()).io).toBe(ioOf(dataPath));
  return { engine, health, backends, port, events, input, key };
}

async function sequential(port: number, n: number, local?: (i: number) => string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await whoAnswers(VIP, port, local?.(i)));
  return out;
}

let dataPath: DataPath = 'native';

describe.each(DATA_PATHS)('data path %s', (io) => {
  beforeAll(() => {
    dataPath = io;
  });

  describe('server choice over real connections', () => {
    it('weighted round-robin: weights 100:300:0 give exactly 1:3:0 over full cycles', async () => {
      const { port } = await setup([100, 300, 0], { algorithm: 'weighted-round-robin' });
      expect(tally(await sequential(port, 400))).toEqual({ s0: 100, s1: 300 });
    });

    it('weighted round-robin keeps the exact shares with concurrent connections', async () => {
      const { port } = await setup([100, 300, 0], { algorithm: 'weighted-round-robin' });
      const names = await Promise.all(Array.from({ length: 200 }, () => whoAnswers(VIP, port)));
      expect(tally(names)).toEqual({ s0: 50, s1: 150 });
    });

    it('round-robin walks the servers in turn, never weight 0', async () => {
      const { port } = await setup([1, 1, 1, 0], { algorithm: 'round-robin' });
      const names = await sequential(port, 9);
      expect(names).toEqual(['s0', 's1', 's2', 's0', 's1', 's2', 's0', 's1', 's2']);
    });

    it('least-connections sends new connections to the server with the fewest held', async () => {
      const { port, engine } = await setup([1, 1, 1], { algorithm: 'least-connections' });
      // Hold 3 on whichever comes first, then new connections fill the other two up to 3 each.
      const held: Held[] = [];
      for (let i = 0; i < 9; i++) held.push(await hold(VIP, port));
      cleanups.push(() => held.forEach((h) => h.socket.destroy()));
      expect(tally(held.map((h) => h.name))).toEqual({ s0: 3, s1: 3, s2: 3 });
      // Release two on s1: the next two go to s1.
      const onS1 = held.filter((h) => h.name === 's1');
      onS1[0]!.socket.destroy();
      onS1[1]!.socket.destroy();
      await until(async () => (await engine.refreshStats()).pools[0]!.servers.find((x) => x.server === 's1')!.active === 1, 5000, 'two connections on s1 to close');
      const next = [await hold(VIP, port), await hold(VIP, port)];
      cleanups.push(() => next.forEach((h) => h.socket.destroy()));
      expect(next.map((h) => h.name)).toEqual(['s1', 's1']);
    });

    it('least-connections weighs by weight: 1:2 holds 2:4', async () => {
      const { port } = await setup([100, 200], { algorithm: 'least-connections' });
      const held: Held[] = [];
      for (let i = 0; i < 6; i++) held.push(await hold(VIP, port));
      cleanups.push(() => held.forEach((h) => h.socket.destroy()));
      expect(tally(held.map((h) => h.name))).toEqual({ s0: 2, s1: 4 });
    });

    it('source-hash spreads client address+port by weight', async () => {
      const { port } = await setup([100, 300, 0], { algorithm: 'source-hash' });
      const names = await sequential(port, 600, (i) => `127.0.5.${110 + (i % 20)}`);
      const t = tally(names);
      expect(t.s2).toBeUndefined();
      expect(t.s1! / 600).toBeGreaterThan(0.66);
      expect(t.s1! / 600).toBeLessThan(0.84);
    });

    it('health-weighted: available before degraded, never unavailable, more for a higher score', async () => {
      const { engine, port, health, key } = await setup([100, 100, 100], { algorithm: 'health-weighted' });
      health.set(key(0), 'available', 10);
      health.set(key(1), 'available', 5);
      health.set(key(2), 'degraded', 10);
      await healthSeen(engine, health);
      expect(tally(await sequential(port, 30))).toEqual({ s0: 20, s1: 10 });
      health.set(key(0), 'unavailable');
      health.set(key(1), 'unavailable');
      await healthSeen(engine, health);
      expect(tally(await sequential(port, 5))).toEqual({ s2: 5 });
    });

    it('client-ip persistence keeps a client on its server until the timeout', async () => {
      const { port } = await setup([1, 1, 1], { algorithm: 'round-robin', persistence: { type: 'client-ip', timeout: '1s' } });
      const a = await sequential(port, 6, () => '127.0.5.120');
      expect(new Set(a).size).toBe(1);
      const b = await sequential(port, 6, () => '127.0.5.121');
      expect(new Set(b).size).toBe(1);
      expect(b[0]).not.toBe(a[0]);
      // After the timeout (counted from the last connection's end) the client is chosen anew. A
      // fixed wait: a poll from that client would renew its persistence.
      await sleep(1400);
      const c = await whoAnswers(VIP, port, '127.0.5.120');
      expect(c).not.toBe(a[0]);
    });
  });

  describe('refusal, timeouts, draining', () => {
    it('refuses at once (RST) when no server is available or degraded, and says so', async () => {
      const { port, events } = await setup([1, 1], {}, 'unknown');
      const t0 = Date.now();
      expect(await expectRefused(VIP, port)).toBe('ECONNRESET');
      expect(Date.now() - t0).toBeLessThan(5000); // at once, not after a connect timeout
      await until(() => events.find((e) => e.type === 'refused'), 3000, 'refused event');
      expect(events.find((e) => e.type === 'refused')).toMatchObject({ service: 'vip', reason: 'no available or degraded server' });
    });

    it('closes a connection idle for the service idle timeout, and keeps a busy one', async () => {
      const { port } = await setup([1], { idleTimeout: '1s' });
      const idle = await hold(VIP, port);
      const busy = await hold(VIP, port);
      let idleClosedAt = 0;
      const t0 = Date.now();
      idle.socket.on('close', () => (idleClosedAt = Date.now()));
      let busyClosed = false;
      busy.socket.on('close', () => (busyClosed = true));
      // The busy one sends every 250 ms until the idle one has closed and 2 idle timeouts have passed.
      while ((idleClosedAt === 0 || Date.now() - t0 < 2000) && Date.now() - t0 < 15_000) {
        busy.socket.write('x');
        await sleep(250);
      }
      expect(idleClosedAt, 'the idle connection closed').toBeGreaterThan(0);
      expect(idleClosedAt - t0).toBeGreaterThanOrEqual(900);
      expect(busyClosed).toBe(false);
      busy.socket.destroy();
    });

    it('drains a disabled server: its connections go on, new ones go elsewhere', async () => {
      const s = await setup([1, 1], { algorithm: 'round-robin' });
      const h0 = await hold(VIP, s.port);
      expect(h0.name).toBe('s0');
      const input = s.input();
      (input.servers as { name: string; enabled?: boolean }[])[0]!.enabled = false;
      const r = await s.engine.apply(workspace(input));
      expect(r).toMatchObject({ ok: true, kept: 1, added: 0, removed: 0 });
      expect(tally(await sequential(s.port, 4))).toEqual({ s1: 4 });
      // The held connection still works both ways.
      const echo = new Promise<string>((res) => h0.socket.once('data', (d) => res(String(d))));
      h0.socket.write('still here');
      expect(await echo).toBe('still here');
      const stats = await s.engine.refreshStats();
      const s0 = stats.pools[0]!.servers.find((x) => x.server === 's0')!;
      expect(s0).toMatchObject({ draining: true, active: 1, state: 'disabled' });
      h0.socket.destroy();
      // Drained: once its last connection has ended it is no longer draining, only disabled.
      const after = await until(async () => {
        const x = (await s.engine.refreshStats()).pools[0]!.servers.find((y) => y.server === 's0')!;
        return x.active === 0 ? x : undefined;
      }, 3000, 'the held connection to end');
      expect(after).toMatchObject({ draining: false, active: 0, state: 'disabled' });
    });
  });

  describe('reload', () => {
    it('keeps unchanged listeners and established connections; adds and removes others', async () => {
      const s = await setup([1, 1], { algorithm: 'round-robin' });
      const port2 = await freePort(VIP);
      const held = await hold(VIP, s.port);
      const base = s.input();
      const services = base.services!;
      const withSecond = { ...base, services: [...services, { name: 'vip2', address: VIP, port: port2, group: 'g' }] };
      expect(await s.engine.apply(workspace(withSecond))).toMatchObject({ ok: true, added: 1, kept: 1, removed: 0 });
      expect(s.events.filter((e) => e.type === 'reload')).toHaveLength(1);
      const held2 = await hold(VIP, port2);
      // Drop the first service: its listener closes, its held connection carries on.
      expect(await s.engine.apply(workspace({ ...base, services: [{ name: 'vip2', address: VIP, port: port2, group: 'g' }] }))).toMatchObject({ ok: true, added: 0, kept: 1, removed: 1 });
      expect(s.events.some((e) => e.type === 'closed' && e.port === s.port)).toBe(true);
      expect(await expectRefused(VIP, s.port)).toBe('ECONNREFUSED');
      for (const h of [held, held2]) {
        const echo = new Promise<string>((res) => h.socket.once('data', (d) => res(String(d))));
        h.socket.write('ping');
        expect(await echo).toBe('ping');
        h.socket.destroy();
      }
    });

    it('keeps the running config when a new listener cannot bind', async () => {
      const s = await setup([1]);
      const blocker = await startBackend('blocker', VIP);
      cleanups.push(() => blocker.close());
      const base = s.input();
      const r = await s.engine.apply(workspace({ ...base, services: [...base.services!, { name: 'clash', address: VIP, port: blocker.port, group: 'g' }] }));
      expect(r.ok).toBe(false);
      expect(r.reason).toContain(`cannot listen on ${VIP}:${blocker.port}/tcp: EADDRINUSE`);
      expect(s.events.at(-1)).toMatchObject({ type: 'reload', ok: false });
      expect(await whoAnswers(VIP, s.port)).toBe('s0');
    });
  });

  describe('a data path that dies', () => {
    it('is restarted with the last config, and says so', async () => {
      const s = await setup([1]);
      const first = s.engine.dataWorker!;
      await first.terminate();
      const err = await until(() => s.events.find((e) => e.type === 'error'), 5000, 'error event');
      expect(err).toMatchObject({ message: expect.stringContaining('the data path exited') });
      await until(() => s.engine.dataWorker && s.engine.dataWorker !== first, 5000, 'a new worker');
      await until(() => s.events.filter((e) => e.type === 'listening').length === 2, 10_000, 'listening again');
      expect(await whoAnswers(VIP, s.port)).toBe('s0');
    });
  });

  describe('stats', () => {
    it('counts active and total connections, bytes and connect times per server', async () => {
      const s = await setup([1, 1], { algorithm: 'round-robin' });
      await sequential(s.port, 10);
      const held = await hold(VIP, s.port);
      held.socket.write('12345');
      // The echo comes back after the 5 bytes went in: wait for both counts.
      await until(async () => (await s.engine.refreshStats()).pools[0]!.servers.some((x) => x.bytesIn === 5 && x.bytesOut === 6 * 3 + 5), 5000, 'the 5 bytes and their echo counted');
      const st = await s.engine.refreshStats();
      expect(st.threadId).toBeGreaterThan(0);
      expect(st.listeners).toEqual([{ address: VIP, port: s.port, protocol: 'tcp', service: 'vip' }]);
      const pool = st.pools[0]!;
      expect(pool).toMatchObject({ kind: 'service', name: 'vip', algorithm: 'round-robin', total: 11, active: 1, refused: 0 });
      const s0 = pool.servers.find((x) => x.server === 's0')!;
      expect(s0.total).toBe(6);
      expect(s0.active).toBe(1);
      expect(s0.bytesIn).toBe(5);
      expect(s0.bytesOut).toBe(6 * 3 + 5);
      expect(s0.connectMs.reduce((a, b) => a + b, 0)).toBe(6);
      held.socket.destroy();
    });
  });

  describe('resources', () => {
    it('leaks no file descriptors over many connections', async () => {
      const s = await setup([1, 1]);
      await sequential(s.port, 20);
      await until(async () => (await s.engine.refreshStats()).pools[0]!.active === 0, 3000, 'warm-up connections to close');
      const before = readdirSync('/proc/self/fd').length;
      await Promise.all(Array.from({ length: 300 }, () => whoAnswers(VIP, s.port)));
      await until(async () => (await s.engine.refreshStats()).pools[0]!.active === 0, 3000, 'connections to close');
      await until(() => readdirSync('/proc/self/fd').length - before <= 2, 3000, 'descriptors back to where they were');
    });
  });
});
