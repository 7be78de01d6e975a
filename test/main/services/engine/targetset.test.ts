// IPFE target sets over real loopback sockets: least load from heartbeats and from the engine's
// own counters, the allowed deviation, peer-node-aware spreading, hashing, secondary address.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as dgram from 'node:dgram';
import { memberKey } from '../../../../shared/api/types';
import type { WorkspaceInput } from '../../../../shared/model/schema';
import { ForwardingEngine } from '../../../../main/services/engine';
import { StaticHealth, freePort, hold, sleep, startBackend, tally, until, whoAnswers, workspace, type Backend, type Held, engineIo, ioOf } from '../../../helpers/engine';
import { DATA_PATHS, type DataPath } from '../../../helpers/engine';

const TSA = '127.0.5.130';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Backends on 127.0.5.131.. all on one port (a target set forwards to the same port). */
async function backendsOnOnePort(n: number, base = 131): Promise<{ port: number; backends: Backend[] }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const port = await freePort(TSA);
    const started: Backend[] = [];
    try {
      for (let i = 0; i < n; i++) started.push(await startBackend(`127.0.5.${base + i}`, `127.0.5.${base + i}`, port));
      cleanups.push(() => Promise.all(started.map((b) => b.close())));
      return { port, backends: started };
    } catch {
      await Promise.all(started.map((b) => b.close()));
    }
  }
  throw new Error('no port free on every backend address');
}

async function targetSet(n: number, ts: Record<string, unknown>, weights: number[] = Array(n).fill(100)) {
  const { port, backends } = await backendsOnOnePort(n);
  const health = new StaticHealth();
  backends.forEach((b) => health.set(memberKey({ targetSet: 1, address: b.address }), 'available'));
  const engine = new ForwardingEngine({ health, io: engineIo(dataPath), statsIntervalMs: 0 });
  cleanups.push(() => engine.stop());
  const input = {
    lbdesk: 1,
    name: 't',
    targetSets: [{ number: 1, address: TSA, ports: [port], protocols: 'tcp', servers: backends.map((b, i) => ({ address: b.address, weight: weights[i] })), ...ts }],
  } as WorkspaceInput;
  const r = await engine.apply(workspace(input));
  expect(r).toMatchObject({ ok: true });
  // The path asked for is the one that runs (no silent fall back).
  expect((await engine.refreshStats()).io).toBe(ioOf(dataPath));
  return { engine, health, port, backends };
}

function heartbeat(from: string, to: string, port: number, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.bind(0, from, () => s.send(line, port, to, (err) => {
      s.close();
      if (err) reject(err);
      else resolve();
    }));
  });
}

let dataPath: DataPath = 'native';

describe.each(DATA_PATHS)('data path %s', (io) => {
  beforeAll(() => {
    dataPath = io;
  });

  describe('IPFE least load', () => {
    it('follows the load the servers report by heartbeat (m/mtotal with Fm = 100)', async () => {
      const hbPort = await freePort(TSA);
      const t = await targetSet(2, {
        algorithm: 'least-load',
        leastLoad: { mpsFactor: 100, connectionFactor: 0, allowedDeviation: 5 },
        peerNodeAware: { enabled: false },
        heartbeat: { port: hbPort, ttl: '10s' },
      });
      await heartbeat('127.0.5.131', TSA, hbPort, 'load m=900 mtotal=1000');
      await heartbeat('127.0.5.132', TSA, hbPort, 'load m=100 mtotal=1000');
      await until(async () => (await t.engine.refreshStats()).pools[0]!.servers.every((s) => s.load?.source === 'agent'), 3000, 'heartbeats');
      const stats = await t.engine.refreshStats();
      expect(stats.pools[0]!.servers.map((s) => s.load!.L)).toEqual([90, 10]);
      const names: string[] = [];
      for (let i = 0; i < 10; i++) names.push(await whoAnswers(TSA, t.port));
      expect(tally(names)).toEqual({ '127.0.5.132': 10 });
      // A server reporting for another (server=) is taken as that server.
      await heartbeat('127.0.5.131', TSA, hbPort, 'load m=50 mtotal=1000\nload m=700 mtotal=1000 server=127.0.5.132');
      await until(async () => (await t.engine.refreshStats()).pools[0]!.servers[0]!.load!.m === 50, 3000, 'new heartbeat');
      const after: string[] = [];
      for (let i = 0; i < 10; i++) after.push(await whoAnswers(TSA, t.port));
      expect(tally(after)).toEqual({ '127.0.5.131': 10 });
    });

    it('shares by weighted round-robin while loads are within the allowed deviation', async () => {
      const t = await targetSet(2, { algorithm: 'least-load', peerNodeAware: { enabled: false } }, [100, 300]);
      // Default capacity is 1000 connections: a few connections move L by far less than 5 points.
      const names: string[] = [];
      for (let i = 0; i < 40; i++) names.push(await whoAnswers(TSA, t.port));
      expect(tally(names)).toEqual({ '127.0.5.131': 10, '127.0.5.132': 30 });
    });

    it('beyond the deviation, the least loaded by its own connection counts (c/ctotal) takes it', async () => {
      const t = await targetSet(2, {
        algorithm: 'least-load',
        leastLoad: { mpsFactor: 0, connectionFactor: 100, allowedDeviation: 5 },
        peerNodeAware: { enabled: false },
        servers: [{ address: '127.0.5.131', capacity: { connections: 10 } }, { address: '127.0.5.132', capacity: { connections: 10 } }],
      });
      // Each held connection is worth 10 points (100 * 1/10) plus the new-connection rate.
      const held: Held[] = [];
      for (let i = 0; i < 6; i++) held.push(await hold(TSA, t.port));
      cleanups.push(() => held.forEach((h) => h.socket.destroy()));
      expect(tally(held.map((h) => h.name))).toEqual({ '127.0.5.131': 3, '127.0.5.132': 3 });
      const st = (await t.engine.refreshStats()).pools[0]!.servers;
      for (const s of st) {
        expect(s.load!.source).toBe('engine');
        expect(s.load!.ctotal).toBe(10);
        // c = 3 held + the decaying rate of new connections; L = 100 * c / 10.
        expect(s.load!.c).toBeGreaterThanOrEqual(3);
        expect(s.load!.L).toBeCloseTo((100 * s.load!.c) / 10, 6);
      }
    });

    it('peer node aware: a peer group (client address) is spread evenly whatever the weights (D = 1)', async () => {
      const t = await targetSet(2, { algorithm: 'least-load', peerNodeAware: { enabled: true, threshold: 1 } }, [100, 300]);
      const held: Held[] = [];
      for (let i = 0; i < 6; i++) held.push(await hold(TSA, t.port, '127.0.5.140'));
      cleanups.push(() => held.forEach((h) => h.socket.destroy()));
      expect(tally(held.map((h) => h.name))).toEqual({ '127.0.5.131': 3, '127.0.5.132': 3 });
      // Another peer starts its own count; the weights still decide inside the deviation.
      const other: Held[] = [];
      for (let i = 0; i < 2; i++) other.push(await hold(TSA, t.port, '127.0.5.141'));
      cleanups.push(() => other.forEach((h) => h.socket.destroy()));
      expect(new Set(other.map((h) => h.name)).size).toBe(2);
    });
  });

  describe('target set forwarding', () => {
    it('hash spreads by weight and never uses weight 0', async () => {
      const t = await targetSet(3, { algorithm: 'hash' }, [100, 300, 0]);
      const names: string[] = [];
      for (let i = 0; i < 400; i++) names.push(await whoAnswers(TSA, t.port, `127.0.5.${141 + (i % 10)}`));
      const got = tally(names);
      expect(got['127.0.5.133']).toBeUndefined();
      expect(got['127.0.5.132']! / 400).toBeGreaterThan(0.65);
      expect(got['127.0.5.132']! / 400).toBeLessThan(0.85);
    });

    it('the secondary address forwards to each server secondary address', async () => {
      const { port, backends } = await backendsOnOnePort(2);
      const second = await startBackend('second', '127.0.5.136', port);
      cleanups.push(() => second.close());
      const health = new StaticHealth();
      backends.forEach((b) => health.set(memberKey({ targetSet: 1, address: b.address }), 'available'));
      const engine = new ForwardingEngine({ health, io: engineIo(dataPath), statsIntervalMs: 0 });
      cleanups.push(() => engine.stop());
      const r = await engine.apply(workspace({
        targetSets: [{
          number: 1, address: TSA, secondaryAddress: '127.0.5.135', ports: [port], protocols: 'tcp', algorithm: 'hash',
          servers: [{ address: backends[0]!.address, secondaryAddress: '127.0.5.136' }, { address: backends[1]!.address }],
        }],
      }));
      expect(r.ok).toBe(true);
      for (let i = 0; i < 5; i++) expect(await whoAnswers('127.0.5.135', port)).toBe('second');
      await sleep(10);
    });
  });
});
