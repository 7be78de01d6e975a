// The Px procedure (seed 004) on a fake clock, to the millisecond: the engine's timers run on
// FakeClock while its probes go to a real HTTP server on loopback (127.0.4.91-95).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckResult, MemberKey, StateChange } from '../../../../shared/api/types';
import { memberKey } from '../../../../shared/api/types';
import { workspaceSchema, type WorkspaceInput } from '../../../../shared/model/schema';
import { HealthChecker } from '../../../../main/services/health';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { FakeClock } from '../../../helpers/fake-clock';
import { startHealthServer, type Running } from '../../../helpers/servers';

const open: Running[] = [];
const engines: HealthChecker[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop()));
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const workspace = (input: Partial<WorkspaceInput>) => workspaceSchema.parse({ lbdesk: 1, name: 'px-clock', ...input });

/** The health page (test/helpers/servers), closed after each test. */
async function healthServer(host: string) {
  const h = await startHealthServer(host);
  open.push(h.srv);
  return h;
}

interface Timers {
  interval: string;
  retryInterval: string;
  failAfter?: number;
  restoreAfter?: number;
}

function oneMember(host: string, port: number, timers: Timers, enabled = true) {
  return workspace({
    healthTimers: { timeout: '2s', failAfter: 2, restoreAfter: 2, ...timers },
    servers: [{ name: 's1', address: host, enabled }],
    groups: [{ name: 'g', members: [{ server: 's1', port }], healthCheck: { type: 'http', http: { path: '/health', expect: 'OK' } } }],
  });
}

/** An engine on a fake clock at 0, with every result and transition recorded. */
function rig(key: MemberKey) {
  const clock = new FakeClock(0);
  const e = new HealthChecker({ secrets: new MemorySecretStore(), jitter: 0, clock });
  engines.push(e);
  const results: CheckResult[] = [];
  const changes: StateChange[] = [];
  e.on('result', ({ result: r }) => results.push(r));
  e.on('change', (c) => changes.push(c));
  /** Nothing starts a millisecond before `at`; a check starts at `at`; waits for its result. */
  async function checkAt(at: number): Promise<CheckResult> {
    clock.advanceTo(at - 1);
    expect(e.stats().inFlight, `no check before ${at} ms`).toBe(0);
    const n = results.length;
    clock.advanceTo(at);
    expect(e.stats().inFlight, `a check at ${at} ms`).toBe(1);
    await vi.waitFor(() => expect(results.length === n + 1 && e.stats().inFlight === 0).toBe(true), { timeout: 5000, interval: 2 });
    const r = results[n]!;
    expect(r.at).toBe(at);
    return r;
  }
  const state = () => e.status(key)?.state;
  return { clock, e, results, changes, checkAt, state };
}

const flow = (changes: StateChange[]) => changes.map((c) => `${c.from}>${c.to}@${c.at}`);

describe('Px sequence on a fake clock (interval 1 s, retry 300 ms, failAfter 2, restoreAfter 2)', () => {
  it('start-up check at once and up at once; every interval while up; retries; down after 2; back after 2 passes', async () => {
    const { port, ctl } = await healthServer('127.0.4.91');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { e, changes, checkAt, state } = rig(key);
    e.apply(oneMember('127.0.4.91', port, { interval: '1s', retryInterval: '300ms' }));
    expect(state()).toBe('unknown');
    e.start();
    // "As soon as ... the system comes up, a health check is performed ... If it passes, the server goes up immediately."
    expect((await checkAt(0)).ok).toBe(true);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 0, consecutivePasses: 1 });
    await checkAt(1000);
    ctl.healthy = false;
    expect((await checkAt(2000)).ok).toBe(false);
    expect(e.status(key)).toMatchObject({ state: 'available', consecutiveFailures: 1, reason: expect.stringContaining('(failure 1 of 2; still in service)') });
    await checkAt(2300); // retry-interval after a failure
    expect(e.status(key)).toMatchObject({ state: 'unavailable', since: 2300, consecutiveFailures: 2 });
    ctl.healthy = true;
    await checkAt(2600); // down: checked every retry-interval
    expect(e.status(key)).toMatchObject({ state: 'unavailable', consecutivePasses: 1, reason: expect.stringContaining('(pass 1 of 2 needed to restore)') });
    await checkAt(2900);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 2900, reason: expect.stringMatching(/restored after 2 consecutive passes$/) });
    await checkAt(3900); // up again: back to the interval
    expect(flow(changes)).toEqual(['unknown>available@0', 'available>unavailable@2300', 'unavailable>available@2900']);
    expect(ctl.maxInFlight).toBe(1);
  });

  it('a pass between failures resets the count (failAfter 3): the member stays in service', async () => {
    const { port, ctl } = await healthServer('127.0.4.92');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { e, changes, checkAt, state } = rig(key);
    e.apply(oneMember('127.0.4.92', port, { interval: '2s', retryInterval: '500ms', failAfter: 3 }));
    e.start();
    await checkAt(0);
    ctl.healthy = false;
    await checkAt(2000);
    await checkAt(2500);
    ctl.healthy = true;
    expect((await checkAt(3000)).ok).toBe(true);
    expect(e.status(key)).toMatchObject({ state: 'available', consecutiveFailures: 0, reason: expect.stringContaining('passed again after 2 failures') });
    ctl.healthy = false;
    await checkAt(5000); // a pass puts it back on the interval
    await checkAt(5500);
    expect(state()).toBe('available');
    await checkAt(6000);
    expect(e.status(key)).toMatchObject({ state: 'unavailable', since: 6000, reason: expect.stringMatching(/after 3 failures$/) });
    expect(flow(changes)).toEqual(['unknown>available@0', 'available>unavailable@6000']);
  });

  it('a first check that fails takes the member down at once; restoreAfter 3 passes at the retry interval', async () => {
    const { port, ctl } = await healthServer('127.0.4.93');
    ctl.healthy = false;
    const key = memberKey({ group: 'g', server: 's1', port });
    const { e, changes, checkAt } = rig(key);
    e.apply(oneMember('127.0.4.93', port, { interval: '10s', retryInterval: '700ms', restoreAfter: 3 }));
    e.start();
    await checkAt(0);
    expect(e.status(key)).toMatchObject({ state: 'unavailable', since: 0 });
    await checkAt(700);
    ctl.healthy = true;
    await checkAt(1400);
    await checkAt(2100);
    expect(e.status(key)).toMatchObject({ state: 'unavailable', consecutivePasses: 2 });
    await checkAt(2800);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 2800 });
    await checkAt(12_800);
    expect(flow(changes)).toEqual(['unknown>unavailable@0', 'unavailable>available@2800']);
  });
});

describe('checks on enable, on a changed check and on a reported failure (fake clock)', () => {
  it('a disabled server is not checked; enabled at 5 s it is checked at 5 s and up at once', async () => {
    const { port, ctl } = await healthServer('127.0.4.94');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { clock, e, changes, checkAt, state } = rig(key);
    const timers = { interval: '30s', retryInterval: '10s' };
    e.apply(oneMember('127.0.4.94', port, timers, false));
    e.start();
    clock.advanceTo(5000);
    expect(ctl.hits).toBe(0);
    expect(state()).toBe('disabled');
    e.apply(oneMember('127.0.4.94', port, timers));
    expect(state()).toBe('unknown');
    await checkAt(5000);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 5000 });
    await checkAt(35_000);
    expect(flow(changes)).toEqual(['unknown>disabled@0', 'disabled>unknown@5000', 'unknown>available@5000']);
  });

  it('a changed timer moves the next check to the last start + the new interval, keeping the state', async () => {
    const { port } = await healthServer('127.0.4.94');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { clock, e, checkAt } = rig(key);
    e.apply(oneMember('127.0.4.94', port, { interval: '60s', retryInterval: '10s' }));
    e.start();
    await checkAt(0);
    clock.advanceTo(1500);
    e.apply(oneMember('127.0.4.94', port, { interval: '4s', retryInterval: '10s' }));
    await checkAt(4000);
    await checkAt(8000);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 0 });
  });

  it('an edit of neither check nor timers (weight) keeps state and schedule; after stop() no time brings a check', async () => {
    const { port, ctl } = await healthServer('127.0.4.94');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { clock, e, checkAt } = rig(key);
    const build = (weight: number) => workspace({
      healthTimers: { interval: '30s', retryInterval: '10s', timeout: '2s' },
      servers: [{ name: 's1', address: '127.0.4.94' }],
      groups: [{ name: 'g', members: [{ server: 's1', port, weight }], healthCheck: { type: 'http', http: { path: '/health', expect: 'OK' } } }],
    });
    e.apply(build(100));
    e.start();
    await checkAt(0);
    clock.advanceTo(1000);
    e.apply(build(5));
    await checkAt(30_000);
    expect(e.status(key)).toMatchObject({ state: 'available', since: 0 });
    await e.stop();
    const hits = ctl.hits;
    clock.advanceTo(600_000);
    expect(e.stats().inFlight).toBe(0);
    expect(ctl.hits).toBe(hits);
  });

  it('a reported failure brings the next check forward to the last start + min(retry, 1 s), never two in flight', async () => {
    const { port, ctl } = await healthServer('127.0.4.95');
    const key = memberKey({ group: 'g', server: 's1', port });
    const { clock, e, results, checkAt } = rig(key);
    e.apply(oneMember('127.0.4.95', port, { interval: '60s', retryInterval: '300ms' }));
    e.start();
    await checkAt(0);
    clock.advanceTo(100);
    e.reportFailure(key, 'connect ECONNRESET');
    const triggered = await checkAt(300);
    expect(triggered.evidence.trigger).toBe('reported by the forwarding engine: connect ECONNRESET');
    // Reports while a check is in flight: no second check; one follow-up at its start + 300 ms.
    ctl.delayMs = 150;
    clock.advanceTo(60_300);
    expect(e.stats().inFlight).toBe(1);
    for (let i = 0; i < 50; i++) e.reportFailure(key, 'reset');
    clock.advanceTo(60_400);
    expect(e.stats().inFlight).toBe(1);
    await vi.waitFor(() => expect(results.length === 3 && e.stats().inFlight === 0).toBe(true), { timeout: 5000, interval: 2 });
    ctl.delayMs = 0;
    expect((await checkAt(60_600)).evidence.trigger).toBe('reported by the forwarding engine: reset');
    expect(ctl.maxInFlight).toBe(1);
    await checkAt(120_600);
  });
});
