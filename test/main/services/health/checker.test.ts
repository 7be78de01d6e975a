// The health checker on real sockets and real (short) timers, loopback 127.0.4.60-79 and 127.0.4.90.
// Timing to the millisecond is px-clock.test.ts (fake clock): here only bounds that hold on a
// busy shared machine (a check never comes early; late by seconds would be a bug).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckResult, StateChange } from '../../../../shared/api/types';
import { memberKey } from '../../../../shared/api/types';
import { workspaceSchema, type WorkspaceInput } from '../../../../shared/model/schema';
import { HealthChecker } from '../../../../main/services/health';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { freePort, startHealthServer, startHttpServer, startTcpListener, type Running } from '../../../helpers/servers';

const open: Running[] = [];
const checkers: HealthChecker[] = [];
afterEach(async () => {
  await Promise.all(checkers.splice(0).map((e) => e.stop()));
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const workspace = (input: Partial<WorkspaceInput>) => workspaceSchema.parse({ lbdesk: 1, name: 'checker-test', ...input });
function checker(opts: Partial<ConstructorParameters<typeof HealthChecker>[0]> = {}) {
  const e = new HealthChecker({ secrets: new MemorySecretStore(), jitter: 0, ...opts });
  checkers.push(e);
  return e;
}
async function waitFor(pred: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  await vi.waitFor(() => {
    if (!pred()) throw new Error(`timed out waiting for ${what}`);
  }, { timeout: ms, interval: 10 });
}

/** The health page (test/helpers/servers), closed after each test. */
async function healthServer(host: string) {
  const h = await startHealthServer(host);
  open.push(h.srv);
  return h;
}

function oneGroup(address: string, port: number, extra: Record<string, unknown> = {}, timers: Record<string, unknown> = {}) {
  return workspace({
    healthTimers: { interval: '1s', retryInterval: '300ms', failAfter: 2, restoreAfter: 2, timeout: '500ms', ...timers },
    servers: [{ name: 's1', address }],
    groups: [{ name: 'g', members: [{ server: 's1', port }], healthCheck: { type: 'http', http: { path: '/health', expect: 'OK' }, ...extra } }],
  });
}

describe('Px timer sequence (interval 1 s, retry 300 ms, failAfter 2, restoreAfter 2)', () => {
  it('up at once, every interval while up, retries after a failure, down after 2, back after 2 passes', async () => {
    const { srv, ctl } = await healthServer('127.0.4.60');
    const e = checker();
    const key = memberKey({ group: 'g', server: 's1', port: srv.port });
    const results: CheckResult[] = [];
    const changes: StateChange[] = [];
    e.on('change', (c) => changes.push(c));
    e.on('result', ({ result: r }) => {
      results.push(r);
      if (results.length === 2) ctl.healthy = false; // checks 3 and 4 fail
      if (results.length === 4) ctl.healthy = true; // checks 5 and 6 pass
    });
    e.apply(oneGroup('127.0.4.60', srv.port));
    const t0 = Date.now();
    e.start();
    await waitFor(() => results.length >= 6, 8000, 'six checks');
    expect(results[0]!.at - t0).toBeLessThan(2000); // "as soon as the system comes up"
    const gaps = results.slice(1, 6).map((r, i) => r.at - results[i]!.at);
    const want = [1000, 1000, 300, 300, 300];
    gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual(want[i]! - 5));
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false, true, true]);
    expect(changes.map((c) => `${c.from}>${c.to}`)).toEqual(['unknown>available', 'available>unavailable', 'unavailable>available']);
    expect(changes[1]!.reason).toBe('GET /health: HTTP/1.1 503 Service Unavailable (object not returned) after 2 failures');
    expect(changes[2]!.reason).toMatch(/restored after 2 consecutive passes$/);
    const h = e.history(key);
    expect(h.changes).toEqual(changes);
    expect(h.results.slice(0, 6)).toEqual(results.slice(0, 6));
    expect(e.status(key)).toMatchObject({ state: 'available', check: 'http', layer: 7, consecutivePasses: 2, consecutiveFailures: 0 });
  }, 15_000);

  it('a first check that fails marks the member down at once; it is then checked every retryInterval', async () => {
    const port = await freePort('127.0.4.61');
    const e = checker();
    const results: CheckResult[] = [];
    e.on('result', ({ result: r }) => results.push(r));
    e.apply(workspace({
      healthTimers: { interval: '1s', retryInterval: '300ms', timeout: '500ms' },
      servers: [{ name: 's1', address: '127.0.4.61' }],
      groups: [{ name: 'g', members: [{ server: 's1', port }] }],
    }));
    e.start();
    await waitFor(() => results.length >= 3, 3000, 'three checks');
    const key = memberKey({ group: 'g', server: 's1', port });
    expect(e.status(key)).toMatchObject({ state: 'unavailable', check: 'tcp', layer: 4, reason: 'connect ECONNREFUSED', score: 1 });
    expect(results[1]!.at - results[0]!.at).toBeGreaterThanOrEqual(295);
    expect(results[2]!.at - results[1]!.at).toBeLessThan(5000); // the retry interval, not the 1 s... nor minutes
  });
});

describe('available / degraded with response-time hysteresis', () => {
  it('degrades above degradedAbove and recovers only below availableBelow', async () => {
    const { srv, ctl } = await healthServer('127.0.4.62');
    const delays = [0, 800, 400, 0];
    const e = checker();
    const states: string[] = [];
    e.on('result', () => {
      states.push(e.all()[0]!.state);
      ctl.delayMs = delays[states.length] ?? 0;
    });
    e.apply(oneGroup('127.0.4.62', srv.port, { degradedAbove: '600ms', availableBelow: '250ms' }, { interval: '100ms', timeout: '2s' }));
    e.start();
    await waitFor(() => states.length >= 4, 5000, 'four checks');
    expect(states.slice(0, 4)).toEqual(['available', 'degraded', 'degraded', 'available']);
    const down = e.history(e.all()[0]!.key).changes.map((c) => c.to);
    expect(down).toEqual(['available', 'degraded', 'available']);
  });
});

describe('passive to active, one check in flight', () => {
  it('a failure reported by the forwarding engine triggers a check at once', async () => {
    const { srv, ctl } = await healthServer('127.0.4.63');
    const e = checker();
    const key = memberKey({ group: 'g', server: 's1', port: srv.port });
    e.apply(oneGroup('127.0.4.63', srv.port, {}, { interval: '60s', retryInterval: '200ms' }));
    e.start();
    await waitFor(() => e.status(key)?.state === 'available', 2000, 'available');
    ctl.healthy = false;
    const reported = Date.now();
    e.reportFailure(key, 'connect ECONNRESET to 127.0.4.63');
    await waitFor(() => e.status(key)?.state === 'unavailable', 3000, 'unavailable');
    expect(Date.now() - reported).toBeLessThan(20_000); // not the 60 s interval
    const triggered = e.history(key).results.find((r) => r.evidence.trigger);
    expect(triggered?.evidence.trigger).toBe('reported by the forwarding engine: connect ECONNRESET to 127.0.4.63');
    expect(triggered?.ok).toBe(false);
  });

  it('never more than one check in flight per member, however often failures are reported', async () => {
    const { srv, ctl } = await healthServer('127.0.4.64');
    ctl.delayMs = 250;
    const e = checker();
    const key = memberKey({ group: 'g', server: 's1', port: srv.port });
    e.apply(oneGroup('127.0.4.64', srv.port, {}, { interval: '100ms', retryInterval: '100ms', timeout: '1s' }));
    e.start();
    const spam = setInterval(() => e.reportFailure(key, 'reset'), 5);
    await waitFor(() => ctl.hits >= 4, 10_000, 'four checks');
    clearInterval(spam);
    expect(ctl.maxInFlight).toBe(1); // back to back, never overlapping (exact times: px-clock.test.ts)
  });

  it('one check at a time against a backend server, even when two groups share it (seed 002)', async () => {
    const { srv, ctl } = await healthServer('127.0.4.90');
    ctl.delayMs = 150;
    const e = checker();
    const check = { type: 'http' as const, http: { path: '/health', expect: 'OK' } };
    e.apply(workspace({
      healthTimers: { interval: '100ms', retryInterval: '100ms', timeout: '1s' },
      servers: [{ name: 's1', address: '127.0.4.90' }],
      groups: ['a', 'b', 'c'].map((name) => ({ name, members: [{ server: 's1', port: srv.port }], healthCheck: check })),
    }));
    e.start();
    await waitFor(() => e.all().every((m) => m.state === 'available'), 3000, 'all three members up');
    // Each still gets checked: they take turns, none starves.
    const checked = (g: string) => e.history(memberKey({ group: g, server: 's1', port: srv.port })).results.length;
    await waitFor(() => ['a', 'b', 'c'].every((g) => checked(g) >= 2), 10_000, 'two checks of each member');
    expect(ctl.maxInFlight).toBe(1);
    // lbdesk check takes turns on a shared server too.
    ctl.maxInFlight = 0;
    const once = await e.checkOnce(workspace({
      servers: [{ name: 's1', address: '127.0.4.90' }],
      groups: ['a', 'b', 'c'].map((name) => ({ name, members: [{ server: 's1', port: srv.port }], healthCheck: check })),
    }));
    expect(once.map((m) => m.state)).toEqual(['available', 'available', 'available']);
    expect(ctl.maxInFlight).toBe(1);
  });

  it('stop() waits for the check in flight and nothing starts after it', async () => {
    const { srv, ctl } = await healthServer('127.0.4.65');
    ctl.delayMs = 300;
    const e = checker();
    let results = 0;
    e.on('result', () => results++);
    e.apply(oneGroup('127.0.4.65', srv.port, {}, { interval: '100ms' }));
    e.start();
    await waitFor(() => ctl.inFlight === 1, 2000, 'a check in flight');
    const before = results;
    await e.stop();
    expect(results).toBe(before + 1); // the check in flight ended (and was recorded) before stop() returned
    expect(ctl.inFlight).toBe(0);
    // Nothing is left to start one (that no time brings one: px-clock.test.ts).
    expect(e.stats()).toMatchObject({ inFlight: 0 });
  });
});

describe('apply(): diffing a changed workspace', () => {
  it('keeps unchanged members, disables, re-enables (checked at once), re-checks a changed check, removes', async () => {
    const a = await startTcpListener('127.0.4.66');
    const b = await startTcpListener('127.0.4.67');
    open.push(a, b);
    const e = checker();
    const changes: StateChange[] = [];
    let results = 0;
    e.on('change', (c) => changes.push(c));
    e.on('result', () => results++);
    const build = (opts: { bEnabled?: boolean; weight?: number; withB?: boolean; check?: 'tcp' | 'pnm'; interval?: string } = {}) => workspace({
      healthTimers: { interval: opts.interval ?? '30s', retryInterval: '10s', timeout: '500ms' },
      servers: [{ name: 'a', address: '127.0.4.66' }, { name: 'b', address: '127.0.4.67', enabled: opts.bEnabled ?? true }],
      groups: [{
        name: 'g',
        members: [{ server: 'a', port: a.port, weight: opts.weight ?? 100 }, ...(opts.withB === false ? [] : [{ server: 'b', port: b.port }])],
        healthCheck: { type: opts.check ?? 'tcp' },
      }],
    });
    const ka = memberKey({ group: 'g', server: 'a', port: a.port });
    const kb = memberKey({ group: 'g', server: 'b', port: b.port });
    e.apply(build());
    e.start();
    await waitFor(() => e.all().every((s) => s.state === 'available'), 2000, 'both available');
    const since = e.status(ka)!.since;

    e.apply(build({ weight: 5 }));
    expect(results).toBe(2);
    expect(e.status(ka)).toMatchObject({ state: 'available', since });

    e.apply(build({ bEnabled: false }));
    expect(e.status(kb)).toMatchObject({ state: 'disabled', reason: 'disabled' });
    expect(changes.at(-1)).toMatchObject({ key: kb, from: 'available', to: 'disabled' });

    const enabledAt = Date.now();
    e.apply(build());
    await waitFor(() => e.status(kb)?.state === 'available', 2000, 'b back');
    expect(Date.now() - enabledAt).toBeLessThan(10_000); // not the 30 s interval
    expect(changes.slice(-2).map((c) => `${c.from}>${c.to}`)).toEqual(['disabled>unknown', 'unknown>available']);

    const before = e.history(ka).results.length;
    e.apply(build({ check: 'pnm' }));
    await waitFor(() => e.history(ka).results.length > before, 2000, 'a re-checked');
    expect(e.status(ka)).toMatchObject({ check: 'pnm', state: 'available' });

    e.apply(build({ check: 'pnm', withB: false }));
    expect(e.status(kb)).toBeUndefined();
    expect(e.history(kb)).toEqual({ results: [], changes: [] });
    expect(e.all().map((s) => s.key)).toEqual([ka]);
  });

  it('a timer change moves the next check without touching the state', async () => {
    const l = await startTcpListener('127.0.4.68');
    open.push(l);
    const e = checker();
    const key = memberKey({ group: 'g', server: 's', port: l.port });
    const build = (interval: string) => workspace({ healthTimers: { interval, timeout: '500ms' }, servers: [{ name: 's', address: '127.0.4.68' }], groups: [{ name: 'g', members: [{ server: 's', port: l.port }] }] });
    e.apply(build('60s'));
    e.start();
    await waitFor(() => e.status(key)?.state === 'available', 2000, 'available');
    const since = e.status(key)!.since;
    e.apply(build('200ms'));
    await waitFor(() => e.history(key).results.length >= 3, 2000, 'checks at the new interval');
    expect(e.status(key)).toMatchObject({ state: 'available', since });
  });
});

describe('members beyond plain groups', () => {
  it('target-set servers: TCP L4 on the first port, ping without ports, disabled sets listed', async () => {
    const l = await startTcpListener('127.0.4.70');
    open.push(l);
    const e = checker();
    const changes: StateChange[] = [];
    e.on('change', (c) => changes.push(c));
    e.apply(workspace({
      healthTimers: { timeout: '1s' },
      targetSets: [
        { number: 7, address: '127.0.4.69', ports: [l.port, 9], servers: [{ address: '127.0.4.70' }] },
        { number: 8, address: '127.0.4.71', servers: [{ address: '127.0.4.72' }] },
        { number: 9, address: '127.0.4.73', ports: [9], disabled: true, servers: [{ address: '127.0.4.74' }] },
      ],
    }));
    e.start();
    await waitFor(() => e.all().every((s) => s.state !== 'unknown'), 3000, 'all checked');
    expect(e.status(memberKey({ targetSet: 7, address: '127.0.4.70' }))).toMatchObject({ targetSet: 7, check: 'tcp', port: l.port, state: 'available' });
    expect(e.status(memberKey({ targetSet: 8, address: '127.0.4.72' }))).toMatchObject({ check: 'ping', state: 'available' });
    expect(e.status(memberKey({ targetSet: 9, address: '127.0.4.74' }))).toMatchObject({ state: 'disabled', reason: 'target set 9 is disabled' });
    expect(changes.every((c) => c.from === 'unknown')).toBe(true);
  });

  it('history is bounded per member', async () => {
    const l = await startTcpListener('127.0.4.75');
    open.push(l);
    const e = checker({ historySize: 3 });
    e.apply(workspace({ healthTimers: { interval: '100ms', timeout: '500ms' }, servers: [{ name: 's', address: '127.0.4.75' }], groups: [{ name: 'g', members: [{ server: 's', port: l.port }] }] }));
    let n = 0;
    e.on('result', () => n++);
    e.start();
    await waitFor(() => n >= 5, 3000, 'five checks');
    const h = e.history(e.all()[0]!.key);
    expect(h.results).toHaveLength(3);
    expect(h.results[2]!.at).toBeGreaterThan(h.results[0]!.at);
  });

  it('jitter only shortens delays, spreading checks out', async () => {
    const l = await startTcpListener('127.0.4.76');
    open.push(l);
    const e = checker({ jitter: 0.5 });
    const at: number[] = [];
    e.on('result', ({ result: r }) => at.push(r.at));
    e.apply(workspace({ healthTimers: { interval: '300ms', timeout: '500ms' }, servers: [{ name: 's', address: '127.0.4.76' }], groups: [{ name: 'g', members: [{ server: 's', port: l.port }] }] }));
    e.start();
    await waitFor(() => at.length >= 6, 4000, 'six checks');
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(145);
    expect(new Set(gaps).size).toBeGreaterThan(1);
    expect(e.stats().checksStarted).toBe(at.length + e.stats().inFlight);
  });
});

describe('checkOnce (lbdesk check)', () => {
  it('runs every member once: available, degraded, unavailable, disabled, unchecked', async () => {
    const fast = await startHttpServer('127.0.4.77', (_q, r) => r.end('OK'));
    const slow = await startHttpServer('127.0.4.78', (_q, r) => setTimeout(() => r.end('OK'), 700));
    open.push(fast, slow);
    const closed = await freePort('127.0.4.79');
    const w = workspace({
      healthTimers: { timeout: '2s' },
      servers: [
        { name: 'fast', address: '127.0.4.77' }, { name: 'slow', address: '127.0.4.78' },
        { name: 'gone', address: '127.0.4.79' }, { name: 'off', address: '127.0.4.79', enabled: false },
      ],
      groups: [
        {
          name: 'web',
          members: [{ server: 'fast', port: fast.port }, { server: 'slow', port: slow.port }, { server: 'gone', port: closed }, { server: 'off', port: closed }],
          healthCheck: { type: 'http', http: { path: '/', expect: 'OK' }, degradedAbove: '400ms', availableBelow: '100ms' },
        },
        { name: 'trust', members: [{ server: 'gone', port: closed }], healthCheck: { type: 'none' } },
      ],
    });
    const e = checker();
    const all = await e.checkOnce(w);
    expect(all.map((s) => [s.server, s.group, s.state])).toEqual([
      ['fast', 'web', 'available'], ['slow', 'web', 'degraded'], ['gone', 'web', 'unavailable'], ['off', 'web', 'disabled'], ['gone', 'trust', 'available'],
    ]);
    expect(all[0]!.score).toBeGreaterThanOrEqual(6);
    expect(all[1]!.score).toBeLessThanOrEqual(5);
    expect(all[1]!.reason).toContain('above degradedAbove 400 ms');
    expect(all[2]).toMatchObject({ reason: 'connect ECONNREFUSED', score: 1 });
    expect(all[4]!.reason).toContain('type none');
    expect((await e.checkOnce(w, 'trust')).map((s) => s.group)).toEqual(['trust']);
    expect(e.all()).toEqual([]); // one-off checks do not touch the engine's members
  });
});
