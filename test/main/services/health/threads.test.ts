// TCP Layer 4 checks on probe threads (127.0.4.60-69): the same outcomes as on the engine's
// thread, a thread's failure costs no probe, and history rebuilds compact results exactly.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CheckResult } from '../../../../shared/api/types';
import { workspaceSchema } from '../../../../shared/model/schema';
import { HealthChecker } from '../../../../main/services/health';
import { ResultRing } from '../../../../main/services/health/history';
import { tcpOutcome, tcpProbeVia } from '../../../../main/services/health/probes/tcp';
import { TcpPool } from '../../../../main/services/health/probes/tcp-pool';
import { TIMED_OUT } from '../../../../main/services/health/probes/tcp-connect';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { freePort, startTcpListener, type Running } from '../../../helpers/servers';
import { ensureBuilt } from '../../../helpers/built';
import { ROOT } from '../../../helpers/app-ipc';

const H = '127.0.4.60';
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function listener(host = H): Promise<Running & { port: number; accepted: number; endings: string[] }> {
  const l = await startTcpListener(host);
  cleanups.push(() => l.close());
  return l;
}

function threads(count: number): TcpPool {
  const t = new TcpPool(count);
  cleanups.push(() => t.close());
  return t;
}

async function ready(t: TcpPool, count: number): Promise<void> {
  const end = Date.now() + 20_000;
  while (t.running < count) {
    if (Date.now() > end) throw new Error('probe threads did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const connect = (t: TcpPool, address: string, port: number, timeoutMs = 1000) =>
  new Promise<{ status: number; ms: number; waitMs: number }>((resolve) => t.connect(address, port, timeoutMs, (status, ms, waitMs) => resolve({ status, ms, waitMs })));

const ctx = (port: number, tcpThreads?: TcpPool, timeoutMs = 1000) => ({
  address: H, port, timeoutMs, secrets: new MemorySecretStore(), check: { type: 'tcp' as const }, ...(tcpThreads ? { tcpThreads } : {}),
});

/** A listener that never accepts, its queue full: further SYNs go unanswered (python3). */
async function stuckPort(host: string): Promise<number> {
  const py = spawn('python3', ['-c', [
    'import socket,time',
    `s=socket.socket(); s.bind(('${host}',0)); s.listen(0)`,
    'print(s.getsockname()[1], flush=True)',
    'time.sleep(60)',
  ].join('\n')], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => py.kill());
  const port = Number(await new Promise<string>((r) => py.stdout.once('data', (d) => r(String(d).trim()))));
  for (let i = 0; i < 4; i++) {
    const f = net.connect({ host, port });
    f.on('error', () => {});
    cleanups.push(() => f.destroy());
  }
  await new Promise((r) => setTimeout(r, 200));
  return port;
}

describe('probe threads', () => {
  it('give the same outcomes as the engine thread: pass with RST, refused, timed out', async () => {
    const t = threads(2);
    await ready(t, 2);
    const l = await listener();
    const closed = await freePort(H);
    const stuck = await stuckPort('127.0.4.61');

    const [onThread, here] = await Promise.all([tcpProbeVia('uv', ctx(l.port, t)), tcpProbeVia('uv', ctx(l.port))]);
    expect(onThread.ok).toBe(true);
    expect(onThread.reason).toMatch(/^TCP handshake in .* closed with RST$/);
    expect(Object.keys(onThread.evidence)).toEqual(Object.keys(here.evidence));
    await vi.waitFor(() => expect(l.endings).toEqual(['reset', 'reset']), { timeout: 5000, interval: 20 });

    expect(await tcpProbeVia('uv', ctx(closed, t))).toMatchObject({ ok: false, reason: 'connect ECONNREFUSED', evidence: { errno: 'ECONNREFUSED', syscall: 'connect' } });
    const timed = await tcpProbeVia('uv', { ...ctx(stuck, t, 300), address: '127.0.4.61' });
    expect(timed).toMatchObject({ ok: false, reason: 'connect timeout after 300 ms (no SYN-ACK)', evidence: { errno: 'ETIMEDOUT' } });

    // Many at once spread over both threads, each answered once, with its wait measured.
    const many = await Promise.all(Array.from({ length: 300 }, (_, i) => connect(t, H, i % 2 ? l.port : closed)));
    expect(many.filter((r) => r.status === 0)).toHaveLength(150);
    expect(many.filter((r) => r.status < 0)).toHaveLength(150);
    for (const r of many) expect(r.waitMs).toBeGreaterThanOrEqual(0);
  });

  it('run from the build too (out/cli/probe-worker.cjs, as the CLI and the app load them)', async () => {
    await ensureBuilt();
    const before = process.env.LBDESK_PROBE_WORKER;
    process.env.LBDESK_PROBE_WORKER = join(ROOT, 'out/cli/probe-worker.cjs');
    try {
      const t = threads(1);
      await ready(t, 1);
      const l = await listener('127.0.4.66');
      expect((await connect(t, '127.0.4.66', l.port)).status).toBe(0);
      expect((await connect(t, '127.0.4.66', await freePort('127.0.4.66'))).status).toBeLessThan(0);
    } finally {
      if (before === undefined) delete process.env.LBDESK_PROBE_WORKER;
      else process.env.LBDESK_PROBE_WORKER = before;
    }
  }, 300_000);

  it('lose no probe when a thread dies: what it had not answered is probed here', async () => {
    const t = threads(1);
    await ready(t, 1);
    const stuck = await stuckPort('127.0.4.62');
    const l = await listener('127.0.4.63');
    // Long timeouts: these are still out on the thread when it goes.
    const pending = [connect(t, '127.0.4.62', stuck, 1500), connect(t, '127.0.4.63', l.port, 1500)] as const;
    await new Promise((r) => setTimeout(r, 100));
    const worker = (t as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0]!.worker;
    await worker.terminate();
    const [a, b] = await Promise.all(pending);
    expect(a.status).toBe(TIMED_OUT);
    expect(b.status).toBe(0);
    expect(t.running).toBe(0);
    // From now on every probe runs here.
    expect((await connect(t, '127.0.4.63', l.port)).status).toBe(0);
  });
});

describe('result history', () => {
  it('keeps TCP results as numbers and rebuilds them exactly, others as they are, oldest first', () => {
    const ring = new ResultRing(3);
    const tcp = (status: number, ms: number, at: number): [CheckResult, { status: number; ms: number; timeoutMs: number }] => {
      const n = { status, ms, timeoutMs: 1500 };
      const o = tcpOutcome(n);
      return [{ ok: o.ok, reason: o.reason, evidence: o.evidence, at, ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}) }, n];
    };
    const a = tcp(0, 0.42, 1000);
    const b = tcp(-111, 0.07, 2000);
    const c = tcp(TIMED_OUT, 1500.3, 3000);
    const http: CheckResult = { ok: true, reason: 'HTTP/1.0 200 OK', evidence: { status: 'HTTP/1.0 200 OK' }, at: 4000, rttMs: 3 };
    ring.push(...a);
    ring.push(...b);
    expect(ring.toArray()).toEqual([a[0], b[0]]);
    ring.push(...c);
    ring.push(http); // replaces a
    expect(ring.length).toBe(3);
    expect(ring.toArray()).toEqual([b[0], c[0], http]);
    const d = tcp(0, 12.5, 5000);
    ring.push(...d); // replaces b
    ring.push(...tcp(0, 1, 6000)); // replaces c
    ring.push(...tcp(0, 2, 7000)); // replaces the HTTP result with numbers again
    expect(ring.toArray().map((r) => r.at)).toEqual([5000, 6000, 7000]);
    expect(ring.toArray()[0]).toEqual(d[0]);
    expect(b[0].reason).toBe('connect ECONNREFUSED');
    expect(c[0].reason).toBe('connect timeout after 1.5 s (no SYN-ACK)');
  });

  it('an engine on probe threads keeps states right, and its history equals the results it reported', async () => {
    const up = await listener('127.0.4.64');
    const downPort = await freePort('127.0.4.65');
    const workspace = workspaceSchema.parse({
      lbdesk: 1,
      name: 'threads',
      healthTimers: { interval: '1s', retryInterval: '300ms', failAfter: 2, restoreAfter: 2, timeout: '500ms' },
      servers: [{ name: 'up', address: '127.0.4.64' }, { name: 'down', address: '127.0.4.65' }],
      groups: [
        { name: 'a', members: [{ server: 'up', port: up.port }], healthCheck: { type: 'tcp' } },
        { name: 'b', members: [{ server: 'down', port: downPort }], healthCheck: { type: 'tcp' } },
      ],
    });
    const engine = new HealthChecker({ secrets: new MemorySecretStore(), probeThreads: 1, probeThreadsFrom: 0, jitter: 0 });
    const seen = new Map<string, CheckResult[]>();
    engine.on('result', ({ key, result: r }) => seen.set(key, [...(seen.get(key) ?? []), r]));
    engine.apply(workspace);
    engine.start();
    try {
      const end = Date.now() + 15_000;
      while (engine.probeThreads < 1 || [...seen.values()].some((rs) => rs.length < 4) || seen.size < 2) {
        if (Date.now() > end) throw new Error(`not enough results: ${[...seen].map(([k, r]) => `${k}=${r.length}`).join(' ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(engine.probeThreads).toBe(1);
      const states = Object.fromEntries(engine.all().map((s) => [s.key, s.state]));
      expect(Object.values(states).sort()).toEqual(['available', 'unavailable']);
      for (const [key, results] of seen) {
        const kept = engine.history(key).results;
        expect(kept).toEqual(results.slice(-kept.length));
      }
      // Lateness counts each check once its start on the thread is known.
      expect(engine.stats().checksStarted).toBeGreaterThanOrEqual(8);
    } finally {
      await engine.stop();
    }
    expect(engine.probeThreads).toBe(0);
  });
});
