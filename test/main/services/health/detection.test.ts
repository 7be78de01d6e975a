import { afterAll, describe, expect, it } from 'vitest';
import { memberKey } from '../../../../shared/api/types';
import { detectionTimes } from '../../../../shared/model/detection';
import { DEFAULT_TIMERS } from '../../../../shared/model/resolve';
import { workspaceSchema } from '../../../../shared/model/schema';
import { detectionTimes as reexported, HealthChecker } from '../../../../main/services/health';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { nginxMissing, startNginx, type Nginx } from '../../../helpers/nginx';
import { skipBecause } from '../../../helpers/skip';

describe('detectionTimes', () => {
  it('Px defaults: 30 s interval, 10 s retry, 2 failures, 2 passes, 5 s timeout', () => {
    expect(detectionTimes(DEFAULT_TIMERS)).toEqual({
      // Best: a check that started up to 5 s before the fault decides just after it.
      failure: { bestMs: 10_000 - 5_000, worstMs: 30_000 + 10_000 + 5_000 },
      recovery: { bestMs: 10_000 - 5_000, worstMs: 2 * 10_000 + 5_000 },
    });
  });

  it('a single failure or pass is enough: best case is immediate', () => {
    const t = detectionTimes({ interval: 2000, retryInterval: 500, failAfter: 1, restoreAfter: 1, timeout: 300 });
    expect(t.failure).toEqual({ bestMs: 0, worstMs: 2000 + 300 });
    expect(t.recovery).toEqual({ bestMs: 0, worstMs: 500 + 300 });
  });

  it('a timeout longer than the retry interval stretches every gap (one check in flight)', () => {
    const t = detectionTimes({ interval: 1000, retryInterval: 300, failAfter: 3, restoreAfter: 2, timeout: 2000 });
    expect(t.failure.worstMs).toBe(2000 + 2 * 2000 + 2000);
    expect(t.recovery.worstMs).toBe(2 * 2000 + 2000);
    expect(t.failure.bestMs).toBe(300);
  });

  it('jitter only shortens: it lowers the best case and leaves the worst alone', () => {
    const plain = detectionTimes(DEFAULT_TIMERS);
    const jittered = detectionTimes(DEFAULT_TIMERS, 0.1);
    expect(jittered.failure.bestMs).toBe(4000);
    expect(jittered.recovery.bestMs).toBe(4000);
    expect(jittered.failure.worstMs).toBe(plain.failure.worstMs);
  });

  it('is re-exported by the health checker module', () => {
    expect(reexported).toBe(detectionTimes);
  });
});

// The bound against a real server: nginx frozen with SIGSTOP accepts connections (the kernel
// does) but answers nothing, so checks time out; resumed while a check is in flight, it answers
// that check at once, and the next one is due a retry interval after that check *started*.
describe.skipIf(skipBecause(nginxMissing, 'recovery bound against a frozen nginx'))(`recovery best bound, measured against a frozen nginx${nginxMissing ? ` (skipped: ${nginxMissing})` : ''}`, () => {
  let web: Nginx | undefined;
  let engine: HealthChecker | undefined;
  afterAll(async () => {
    await engine?.stop();
    await web?.stop();
  });

  it('a check started before the repair that completes after it: recovery stays within [best, worst]', async () => {
    web = await startNginx('127.0.4.33', { 'health': 'OK' });
    const timers = { interval: 1000, retryInterval: 500, failAfter: 2, restoreAfter: 2, timeout: 800 };
    engine = new HealthChecker({ secrets: new MemorySecretStore(), jitter: 0.1 });
    const workspace = workspaceSchema.parse({
      lbdesk: 1, name: 'bound', healthTimers: { interval: '1000ms', retryInterval: '500ms', failAfter: 2, restoreAfter: 2, timeout: '800ms' },
      servers: [{ name: 'web', address: web.host }],
      groups: [{ name: 'g', members: [{ server: 'web', port: web.port }], healthCheck: { type: 'http', http: { path: '/health', expect: 'OK' } } }],
    });
    const key = memberKey({ group: 'g', server: 'web', port: web.port });
    const changes: { to: string; at: number }[] = [];
    const results: { ok: boolean; at: number }[] = [];
    engine.on('change', (c) => changes.push({ to: c.to, at: performance.now() }));
    engine.on('result', ({ result: r }) => results.push({ ok: r.ok, at: performance.now() }));
    engine.apply(workspace);
    engine.start();
    const waitFor = async (pred: () => boolean, ms: number) => {
      const until = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > until) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await waitFor(() => engine!.status(key)?.state === 'available', 5000);
    process.kill(web.pid, 'SIGSTOP');
    await waitFor(() => engine!.status(key)?.state === 'unavailable', 8000);
    // A timed-out check just ended; its successor starts now (the timeout exceeds the retry
    // interval) and is in flight when the server resumes 600 ms later.
    const failures = results.length;
    await waitFor(() => results.length > failures, 3000);
    await new Promise((r) => setTimeout(r, 600));
    const repaired = performance.now();
    process.kill(web.pid, 'SIGCONT');
    await waitFor(() => engine!.status(key)?.state === 'available', 5000);
    const back = changes.at(-1)!.at - repaired;
    const { recovery } = detectionTimes(timers, 0.1);
    const plainBest = (timers.restoreAfter - 1) * timers.retryInterval * 0.9;
    // The former "best" ((restoreAfter − 1) · retryInterval · (1 − jitter) = 450 ms) is beaten here.
    expect(back).toBeLessThan(plainBest);
    expect(back).toBeGreaterThanOrEqual(recovery.bestMs);
    expect(back).toBeLessThanOrEqual(recovery.worstMs);
  });
});
