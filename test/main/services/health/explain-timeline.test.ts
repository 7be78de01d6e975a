// The member's "Why" and the detection panel against the real health checker on loopback
// (127.0.13.61-62): the sentence names how the member went down, as its timeline shows it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckResult, StateChange } from '../../../../shared/api/types';
import { memberKey } from '../../../../shared/api/types';
import { workspaceSchema } from '../../../../shared/model/schema';
import { resolveTimers } from '../../../../shared/model/resolve';
import { detectionWays } from '../../../../shared/model/detection';
import { HealthChecker } from '../../../../main/services/health';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { causeOf, explain, ways } from '../../../../renderer/src/lib/explain';
import { freePort, startTcpListener, type Running } from '../../../helpers/servers';

const open: Running[] = [];
const engines: HealthChecker[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop()));
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const timers = { interval: '30s', retryInterval: '10s', failAfter: 2, restoreAfter: 2, timeout: '500ms' };
function run(address: string, port: number) {
  const e = new HealthChecker({ secrets: new MemorySecretStore(), jitter: 0 });
  engines.push(e);
  const results: CheckResult[] = [];
  const changes: StateChange[] = [];
  e.on('result', ({ result: r }) => results.push(r));
  e.on('change', (c) => changes.push(c));
  e.apply(workspaceSchema.parse({
    lbdesk: 1, name: 'why', healthTimers: timers, servers: [{ name: 'dir1', address }],
    groups: [{ name: 'g', members: [{ server: 'dir1', port }], healthCheck: { type: 'tcp' } }],
  }));
  e.start();
  return { e, results, changes, key: memberKey({ group: 'g', server: 'dir1', port }) };
}
const resolved = resolveTimers({ global: { interval: 30_000, retryInterval: 10_000, failAfter: 2, restoreAfter: 2, timeout: 500 } });

describe('Why matches the timeline', () => {
  it('down on the first failure at start-up: the first check decides, not "2 failures"', async () => {
    const port = await freePort('127.0.13.61');
    const { e, results, changes, key } = run('127.0.13.61', port);
    await vi.waitFor(() => expect(changes.map((c) => `${c.from}>${c.to}`)).toEqual(['unknown>unavailable']), { timeout: 5000, interval: 20 });
    const s = e.status(key)!;
    expect(s.consecutiveFailures).toBe(1);
    const cause = causeOf(s.state, changes, results);
    expect(cause).toBe('startup');
    const why = explain(s, { timers: resolved, cause }).join(' ');
    expect(why).toContain('its first TCP check (Layer 4) failed');
    expect(why).toContain('without waiting for 2 failures');
    expect(why).not.toMatch(/2 failures take/);
    // The start-up bound: decided within one check's timeout.
    expect(results[0]!.at - changes[0]!.at).toBeLessThanOrEqual(0);
    expect(ways(resolved)[0]).toMatchObject({ id: 'startup', range: { bestMs: 0, worstMs: 500 } });
  });

  it('down through failed forwarded connections: passive named, well inside the checks-alone bound', async () => {
    const srv = await startTcpListener('127.0.13.62');
    open.push(srv);
    const { e, results, changes, key } = run('127.0.13.62', srv.port);
    await vi.waitFor(() => expect(changes.at(-1)?.to).toBe('available'), { timeout: 5000, interval: 20 });
    await srv.close();
    const broke = Date.now();
    // The forwarding engine reports each failed connection; a client retries every 100 ms.
    for (let i = 0; i < 80 && changes.at(-1)?.to !== 'unavailable'; i++) {
      e.reportFailure(key, 'connect ECONNREFUSED');
      await new Promise((r) => setTimeout(r, 100));
    }
    const down = changes.at(-1)!;
    expect(down.to).toBe('unavailable');
    const w = detectionWays({ ...resolved });
    // Checks alone could not have taken it out this soon (next scheduled check: 30 s away).
    expect(down.at - broke).toBeLessThan(w.active.failure.bestMs);
    expect(down.at - broke).toBeGreaterThanOrEqual(w.passive.bestMs - 50);
    const s = e.status(key)!;
    const cause = causeOf(s.state, changes, results);
    expect(cause).toBe('passive');
    expect(explain(s, { timers: resolved, cause })[0]).toContain('a forwarded connection to it failed, which brought its checks forward (at most one per 1 s), and 2 failed checks in a row take a server out of service');
    expect(ways(resolved, { forwarded: true }).find((x) => x.id === 'passive')).toMatchObject({ range: { bestMs: 1000, worstMs: 2500 } });
  });

  it('names a heartbeat report where the target set has one, and no passive detection where nothing forwards', () => {
    const list = ways(resolved, { forwarded: false, heartbeatTtlMs: 3000 });
    expect(list.map((x) => x.id)).toEqual(['startup', 'checks', 'recovery', 'passive', 'heartbeat']);
    expect(list[3]!.range).toBeUndefined();
    expect(list[4]!.note).toContain('never its state');
  });
});
