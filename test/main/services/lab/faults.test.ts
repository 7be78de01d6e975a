// Faults on the lab's path to a member, in the lab runtime itself: real HTTP, TCP and DNS servers
// on loopback, the real health checker and forwarding engine. Each fault is seen by the checks
// and by forwarded traffic, never by the real server's other clients; every transition it causes
// carries its time beside the detection bound.
import * as dgram from 'node:dgram';
import { createServer, request, type Server } from 'node:http';
import * as net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../../shared/api/engine';
import type { MemberEvent } from '../../../../shared/api/contract';
import { Lab, stateLine } from '../../../../main/services/lab';
import { boundFor, LabFaults, parseFaultLine, type Fault } from '../../../../main/services/lab/faults';
import { detectionTimes } from '../../../../shared/model/detection';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { callDirect } from '../../../../main/services/api/dispatch';
import { browserShell } from '../../../../main/services/api/shell';
import { createAppServices } from '../../../../main/services/api/wiring';
import { ROOT } from '../../../helpers/cli';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsServer } from '../../../helpers/servers';
import { freePort, startBackend, until, whoAnswers, workspace } from '../../../helpers/engine';

// Wide enough that a loaded two-core machine (CI runs three files at a time) never times a healthy
// check out or makes it slow: every fault below is far from these.
const TIMERS = { interval: '500ms', retryInterval: '300ms', failAfter: 2, restoreAfter: 2, timeout: '2s' };
/** A loaded two-core machine stretches every check: bounds are checked by the lab itself (withinBound); here only generously. */
const SLACK_MS = 2500;

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Timed = EngineEvent & { at: number };

async function runLab(site: ReturnType<typeof workspace>, io?: 'uv') {
  const events: Timed[] = [];
  const lab = new Lab({
    ...(io ? { io } : {}),
    secrets: new MemorySecretStore(),
    statusEveryMs: 0,
    emit: (event, payload) => {
      if (event === 'lab.event') events.push({ ...(payload as EngineEvent), at: Date.now() });
      // A transition comes in its member's one frame, as serve prints it.
      const state = event === 'lab.member' ? stateLine(payload as MemberEvent) : undefined;
      if (state) events.push({ ...state, at: Date.now() });
    },
  });
  cleanups.push(() => lab.stop());
  await lab.start(site, '/dev/null/faults.yaml');
  const wait = <T extends EngineEvent['type']>(type: T, pred: (e: Extract<EngineEvent, { type: T }>) => boolean = () => true, ms = 15_000, after = 0) =>
    until(() => events.find((e) => e.at >= after && e.type === type && pred(e as never)), ms, `${type} event`) as Promise<Extract<EngineEvent, { type: T }> & { at: number }>;
  const fault = async (line: string) => {
    const parsed = parseFaultLine(line.split(' '));
    if (!parsed || 'error' in parsed) throw new Error(`bad line ${line}`);
    const at = Date.now();
    if (parsed.op === 'fault') await lab.fault(parsed.member, parsed.fault);
    else await lab.clearFault(parsed.member);
    return at;
  };
  return { lab, events, wait, fault };
}

function httpServer(name: string, address: string, port: number): Promise<Server> {
  const server = createServer((req, res) => res.end(`${name}\n`));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return new Promise((resolve) => server.listen(port, address, () => resolve(server)));
}

function get(address: string, port: number): Promise<{ status: number; body: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path: '/', agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim(), ms: Date.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Requests through the VIP in a bounded loop until `stop`: every answer and every error. */
function load(address: string, port: number) {
  let running = true;
  const answers: string[] = [];
  const errors: string[] = [];
  const done = (async () => {
    for (let i = 0; running && i < 3000; i++) {
      try {
        const r = await get(address, port);
        answers.push(r.status === 200 ? r.body : `${r.body} ${r.status}`);
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
  })();
  return { answers, errors, stop: async () => ((running = false), await done) };
}

function expectMeasured(e: { detectedMs?: number; bound?: [number, number]; withinBound?: boolean }) {
  expect(e.detectedMs).toBeTypeOf('number');
  expect(e.bound).toHaveLength(2);
  expect(typeof e.withinBound).toBe('boolean');
  expect(e.detectedMs!).toBeGreaterThanOrEqual(Math.max(0, e.bound![0] - 100));
  expect(e.detectedMs!).toBeLessThanOrEqual(e.bound![1] + SLACK_MS);
}

describe('lab faults over HTTP', () => {
  const A = { vip: '127.0.41.10', web1: '127.0.41.11', web2: '127.0.41.12' };

  async function site(io?: 'uv') {
    const port = await freePort(A.web1);
    const vport = await freePort(A.vip);
    await httpServer('web1', A.web1, port);
    await httpServer('web2', A.web2, port);
    const lab = await runLab(workspace({
      healthTimers: TIMERS,
      servers: [{ name: 'web1', address: A.web1 }, { name: 'web2', address: A.web2 }],
      groups: [{ name: 'web', members: [{ server: 'web1', port }, { server: 'web2', port }], healthCheck: { type: 'http', http: { path: '/' }, degradedAbove: '400ms' } }],
      services: [{ name: 'vip', address: A.vip, port: vport, group: 'web', algorithm: 'health-weighted' }],
    }), io);
    await lab.wait('state', (e) => e.server === 'web1' && e.to === 'available');
    await lab.wait('state', (e) => e.server === 'web2' && e.to === 'available');
    return { ...lab, port, vport };
  }

  it('delay: the member turns degraded in its bound, health-weighted traffic leaves it, its own clients see nothing', async () => {
    const s = await site();
    const at = await s.fault('fault web/web1 delay 800ms');
    expect(await s.wait('fault')).toMatchObject({ member: `web/web1:${s.port}`, fault: 'delay', value: '800ms', via: expect.stringMatching(/^127\.254\./) });
    const degraded = await s.wait('state', (e) => e.server === 'web1' && e.to === 'degraded', 10_000, at);
    expect(degraded).toMatchObject({ from: 'available', fault: 'delay' });
    expectMeasured(degraded);
    // The tier puts available before degraded: new connections all go to web2 — once the data
    // thread has the verdict, a moment after the checker's event.
    await until(async () => {
      for (let i = 0; i < 3; i++) if ((await get(A.vip, s.vport)).body !== 'web2') return false;
      return true;
    }, 10_000, 'the data path leaving web1');
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push((await get(A.vip, s.vport)).body);
    expect(new Set(answers)).toEqual(new Set(['web2']));
    // The real server answers its other clients at once.
    const direct = await get(A.web1, s.port);
    expect(direct).toMatchObject({ status: 200, body: 'web1' });
    expect(direct.ms).toBeLessThan(700);
    const cleared = await s.fault('clear web/web1');
    expect(await s.wait('clear')).toMatchObject({ member: `web/web1:${s.port}`, fault: 'delay' });
    const back = await s.wait('state', (e) => e.server === 'web1' && e.to === 'available', 10_000, cleared);
    expect(back).toMatchObject({ from: 'degraded', fault: 'delay' });
    expectMeasured(back);
  });

  it('http-status: checks and traffic get the status; the VIP answers from the other member without an error', async () => {
    const s = await site();
    const at = await s.fault('fault web/web1 http-status 503');
    const down = await s.wait('state', (e) => e.server === 'web1' && e.to === 'unavailable', 10_000, at);
    expect(down.reason).toMatch(/503/);
    expectMeasured(down);
    // Through the lab's path the status is rewritten (what the VIP's clients would have got).
    const via = (s.events.find((e) => e.type === 'fault') as { via: string }).via;
    expect(await get(via, s.port)).toMatchObject({ status: 503, body: 'web1' });
    await until(async () => (await get(A.vip, s.vport)).body === 'web2', 10_000, 'the data path leaving web1');
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push((await get(A.vip, s.vport)).body);
    expect(new Set(answers)).toEqual(new Set(['web2']));
    expect(await get(A.web1, s.port)).toMatchObject({ status: 200 });
  });

  // The fault sits before either data path: the C one (default) and, for one kind, the JavaScript one.
  for (const [kind, io] of [['refuse'], ['blackhole'], ['blackhole', 'uv'], ['reset-after 0']] as const) {
    it(`${kind}${io ? ` (${io} data path)` : ''}: no client error on the VIP while the member fails, and it is taken out in its bound`, async () => {
      const s = await site(io);
      const traffic = load(A.vip, s.vport);
      cleanups.push(() => traffic.stop());
      await until(() => traffic.answers.length >= 5, 10_000, 'traffic before the fault');
      const at = await s.fault(`fault web/web1 ${kind}`);
      const down = await s.wait('state', (e) => e.server === 'web1' && e.to === 'unavailable', 10_000, at);
      expect(down).toMatchObject({ from: 'available', fault: kind.split(' ')[0] });
      expectMeasured(down);
      const seen = traffic.answers.length;
      await until(() => traffic.answers.length >= seen + 5, 10_000, 'traffic after the fault');
      await traffic.stop();
      // On a failure, say what the client got and what the engine did about it (a race seen once in CI).
      const told = () => JSON.stringify(s.events.filter((e) => e.type === 'redispatch' || e.type === 'refused').slice(-5));
      expect(traffic.errors, `client errors; the engine said ${told()}`).toEqual([]);
      expect(traffic.answers.filter((a) => a !== 'web1' && a !== 'web2'), `odd answers; the engine said ${told()}`).toEqual([]);
      // The real server never saw the fault.
      expect(await get(A.web1, s.port)).toMatchObject({ status: 200, body: 'web1' });
      const cleared = await s.fault('clear all');
      const back = await s.wait('state', (e) => e.server === 'web1' && e.to === 'available', 10_000, cleared);
      expectMeasured(back);
      expect(await until(async () => (await get(A.vip, s.vport)).body === 'web1' || undefined, 5000, 'web1 back in rotation')).toBe(true);
    });
  }

  it('flap: refuse and normal alternate, each transition measured from its flip', async () => {
    const s = await site();
    const at = await s.fault('fault web/web1 flap 1200ms');
    const down = await s.wait('state', (e) => e.server === 'web1' && e.to === 'unavailable', 10_000, at);
    const up = await s.wait('state', (e) => e.server === 'web1' && e.to === 'available', 10_000, down.at);
    for (const e of [down, up]) {
      expect(e.fault).toBe('flap');
      expectMeasured(e);
    }
  });

  it('refuses a fault that is not one, for a member that is not there, or of the wrong protocol', async () => {
    const s = await site();
    expect(parseFaultLine(['fault', 'web/web1', 'delay'])).toEqual({ error: expect.stringMatching(/delay needs a duration/) });
    expect(parseFaultLine(['fault', 'web/web1', 'zap'])).toEqual({ error: expect.stringMatching(/"zap" is not a fault/) });
    expect(parseFaultLine(['fault', 'web/web1', 'http-status', '99'])).toEqual({ error: expect.stringMatching(/100 to 599/) });
    await expect(s.lab.fault('web/web9', { kind: 'refuse' })).rejects.toThrow(/no member "web\/web9" in the running lab \(members: web\/web1:\d+, web\/web2:\d+\)/);
    await expect(s.lab.fault('web/web1', { kind: 'drop' })).rejects.toThrow(/TCP member: its faults are delay, refuse/);
    await expect(s.lab.clearFault('web/web2')).rejects.toThrow(/has no fault to clear/);
  });
});

describe('lab faults over TCP', () => {
  it('reset-after BYTES: the client gets that many of the server\'s bytes, then a reset; a TCP check still passes', async () => {
    const b = await startBackend('tcp-one-long-greeting', '127.0.41.21');
    cleanups.push(() => b.close());
    const vport = await freePort('127.0.41.20');
    const s = await runLab(workspace({
      healthTimers: TIMERS,
      servers: [{ name: 't1', address: '127.0.41.21' }],
      groups: [{ name: 'tcp', members: [{ server: 't1', port: b.port }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'tvip', address: '127.0.41.20', port: vport, group: 'tcp' }],
    }));
    await s.wait('state', (e) => e.to === 'available');
    await s.fault('fault tcp/t1 reset-after 7');
    const got = await new Promise<{ data: string; error?: string }>((resolve) => {
      const c = net.connect({ host: '127.0.41.20', port: vport });
      let data = '';
      c.on('data', (d) => (data += d));
      c.on('error', (e: NodeJS.ErrnoException) => resolve({ data, error: e.code }));
      c.on('close', () => resolve({ data }));
    });
    expect(got).toEqual({ data: 'tcp-one', error: 'ECONNRESET' });
    // Layer 4: the handshake is all a TCP check asks for.
    expect(s.lab.status().members[0]).toMatchObject({ state: 'available' });
    expect(s.lab.faultList()).toEqual([{ key: expect.any(String), member: `tcp/t1:${b.port}`, fault: 'reset-after', value: '7' }]);
  });
});

describe('lab faults on a target-set server', () => {
  it('tsN/ADDRESS: the server is taken out and the target set address answers from the other one', async () => {
    const port = await freePort('127.0.41.71');
    const backends = await Promise.all([startBackend('ts-a', '127.0.41.71', port), startBackend('ts-b', '127.0.41.72', port)]);
    for (const b of backends) cleanups.push(() => b.close());
    const s = await runLab(workspace({
      healthTimers: TIMERS,
      targetSets: [{ number: 3, address: '127.0.41.70', ports: [port], protocols: 'tcp', algorithm: 'hash', servers: [{ address: '127.0.41.71' }, { address: '127.0.41.72' }] }],
    }));
    await s.wait('state', (e) => e.server === '127.0.41.71' && e.to === 'available');
    await s.wait('state', (e) => e.server === '127.0.41.72' && e.to === 'available');
    const at = await s.fault('fault ts3/127.0.41.71 refuse');
    const down = await s.wait('state', (e) => e.targetSet === 3 && e.server === '127.0.41.71' && e.to === 'unavailable', 10_000, at);
    expectMeasured(down);
    const names = await Promise.all(Array.from({ length: 12 }, () => whoAnswers('127.0.41.70', port)));
    expect(new Set(names)).toEqual(new Set(['ts-b']));
    expect(await whoAnswers('127.0.41.71', port)).toBe('ts-a');
  });
});

describe('lab faults over UDP', () => {
  const U = { vip: '127.0.41.30', dns1: '127.0.41.31' };

  function query(address: string, port: number, ms = 2000): Promise<{ ms: number; error?: string }> {
    return new Promise((resolve) => {
      const t0 = Date.now();
      const s = dgram.createSocket('udp4');
      const done = (r: { ms: number; error?: string }) => {
        clearTimeout(timer);
        s.close();
        resolve(r);
      };
      const timer = setTimeout(() => done({ ms: Date.now() - t0, error: 'timeout' }), ms);
      s.on('message', () => done({ ms: Date.now() - t0 }));
      s.on('error', (e: NodeJS.ErrnoException) => done({ ms: Date.now() - t0, error: e.code }));
      s.connect(port, address, () => s.send(dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'A', name: 'example.test' }] })));
    });
  }

  async function site() {
    const dns = await startDnsServer(U.dns1, (q) => ({ answers: [{ type: 'A', name: q.name, data: '192.0.2.1' }] }));
    cleanups.push(() => dns.close());
    const vport = await freePort(U.vip);
    const s = await runLab(workspace({
      healthTimers: TIMERS,
      servers: [{ name: 'dns1', address: U.dns1 }],
      groups: [{ name: 'dns', members: [{ server: 'dns1', port: dns.port }], healthCheck: { type: 'dns', dns: { query: 'example.test' }, degradedAbove: '400ms' } }],
      services: [{ name: 'dvip', address: U.vip, port: vport, protocol: 'udp', group: 'dns' }],
    }));
    await s.wait('state', (e) => e.to === 'available');
    return { ...s, dns, vport };
  }

  it('delay holds each answer; drop and unreachable take the member out; the real server answers its own clients', async () => {
    const s = await site();
    // The checker's verdict reaches the data path a moment after its event.
    await until(async () => (await query(U.vip, s.vport, 1000)).error === undefined, 10_000, 'the VIP answering');

    let at = await s.fault('fault dns/dns1 delay 800ms');
    const slow = await query(U.vip, s.vport);
    expect(slow.error).toBeUndefined();
    expect(slow.ms).toBeGreaterThanOrEqual(790);
    expectMeasured(await s.wait('state', (e) => e.to === 'degraded', 10_000, at));

    at = await s.fault('fault dns/dns1 drop');
    const down = await s.wait('state', (e) => e.to === 'unavailable', 10_000, at);
    expect(down).toMatchObject({ fault: 'drop' });
    expectMeasured(down);
    const direct = await query(U.dns1, s.dns.port);
    expect(direct.error).toBeUndefined();
    expect(direct.ms).toBeLessThan(700);

    at = await s.fault('clear dns/dns1');
    await s.wait('state', (e) => e.to === 'available', 10_000, at);

    // Unreachable: the path's port is closed, so the kernel answers with ICMP port unreachable.
    at = await s.fault('fault dns/dns1 unreachable');
    const via = (s.events.filter((e) => e.type === 'fault').at(-1) as { via: string }).via;
    expect((await query(via, s.dns.port)).error).toBe('ECONNREFUSED');
    const gone = await s.wait('state', (e) => e.to === 'unavailable', 10_000, at);
    expect(gone).toMatchObject({ fault: 'unreachable', reason: expect.stringMatching(/ECONNREFUSED|unreachable/i) });
    expectMeasured(gone);
    await expect(s.lab.fault('dns/dns1', { kind: 'blackhole' } as Fault)).rejects.toThrow(/UDP member: its faults are drop, unreachable, delay, flap/);
  });

  it('flap: unreachable and normal alternate, each transition measured from its flip', async () => {
    const s = await site();
    const at = await s.fault('fault dns/dns1 flap 1200ms');
    const down = await s.wait('state', (e) => e.to === 'unavailable', 10_000, at);
    const up = await s.wait('state', (e) => e.to === 'available', 10_000, down.at);
    for (const e of [down, up]) {
      expect(e.fault).toBe('flap');
      expectMeasured(e);
    }
  });
});

describe('detection measured against the bound', () => {
  it('flags a transition outside the calculator\'s bound, measures each once, and measures the recovery from the clear', async () => {
    const port = await freePort('127.0.41.41');
    await httpServer('m1', '127.0.41.41', port);
    const timers = { interval: 1000, retryInterval: 500, failAfter: 3, restoreAfter: 2, timeout: 400 };
    const site = workspace({
      healthTimers: { interval: '1s', retryInterval: '500ms', failAfter: 3, restoreAfter: 2, timeout: '400ms' },
      servers: [{ name: 'm1', address: '127.0.41.41' }],
      groups: [{ name: 'g', members: [{ server: 'm1', port }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 's', address: '127.0.41.40', port, group: 'g' }],
    });
    const events: EngineEvent[] = [];
    const faults = new LabFaults({ emit: (e) => events.push(e), reroute: async () => undefined, jitter: 0.1 });
    cleanups.push(() => faults.stop());
    await faults.setWorkspace(site);
    const key = `g:g/m1:${port}`;
    await faults.apply('g/m1', { kind: 'refuse' });
    const at = Date.now();
    const failure = detectionTimes(timers, 0.1).failure;
    expect(boundFor('available', 'unavailable', timers, 0.1)).toEqual([Math.min(failure.bestMs, 2 * 500), failure.worstMs]);
    // Far beyond the worst case: flagged.
    expect(faults.measure(key, 'available', 'unavailable', at + failure.worstMs + 5000)).toMatchObject({ fault: 'refuse', withinBound: false, bound: [failure.bestMs, failure.worstMs] });
    // The same fault's transition is measured once.
    expect(faults.measure(key, 'available', 'unavailable', at + 10)).toBeUndefined();
    await faults.clear('all');
    const recovery = detectionTimes(timers, 0.1).recovery;
    const m = faults.measure(key, 'unavailable', 'available', Date.now() + recovery.bestMs + 1);
    expect(m).toMatchObject({ fault: 'refuse', withinBound: true, bound: [recovery.bestMs, recovery.worstMs] });
    expect(faults.measure(key, 'unavailable', 'available', Date.now() + 5)).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['fault', 'clear']);
  });
});

describe('lab.fault over the contract (the window)', () => {
  it('applies a fault on a member of the running lab, shows it in the status, and clears it in one call', async () => {
    const port = await freePort('127.0.41.51');
    const vport = await freePort('127.0.41.50');
    await httpServer('w1', '127.0.41.51', port);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-lab-fault-'));
    const svc = createAppServices({ shell: browserShell(), dataDir: dir, resourcesDir: ROOT, secrets: new MemorySecretStore() });
    cleanups.push(() => svc.stop());
    const statuses: { faults?: unknown[] }[] = [];
    svc.events.subscribe((e) => (e.event === 'lab.status' ? statuses.push(e.payload as { faults?: unknown[] }) : undefined));
    const text = `lbdesk: 1
name: window-faults
healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }
servers: [ { name: w1, address: 127.0.41.51 } ]
groups: [ { name: web, members: [ { server: w1, port: ${port} } ], healthCheck: { type: http, http: { path: / } } } ]
services: [ { name: v, address: 127.0.41.50, port: ${vport}, group: web } ]
`;
    await callDirect(svc.handlers, 'lab.start', { path: join(dir, 'site.yaml'), text });
    const key = `g:web/w1:${port}`;
    await until(async () => (await callDirect(svc.handlers, 'lab.status', {})).members.find((m) => m.key === key && m.state === 'available'), 10_000, 'w1 available');
    const faulted = await callDirect(svc.handlers, 'lab.fault', { member: key, fault: 'refuse' });
    expect(faulted.faults).toEqual([{ key, member: `web/w1:${port}`, fault: 'refuse' }]);
    // Every window hears of it at once.
    expect(statuses.at(-1)?.faults).toEqual(faulted.faults);
    await until(async () => (await callDirect(svc.handlers, 'lab.status', {})).members.find((m) => m.key === key && m.state === 'unavailable'), 10_000, 'w1 taken out');
    await expect(callDirect(svc.handlers, 'lab.fault', { member: key, fault: 'delay', value: 'soon' })).rejects.toMatchObject({ code: 'bad-args', message: expect.stringMatching(/delay needs a duration/) });
    await expect(callDirect(svc.handlers, 'lab.fault', { member: 'web/nobody', fault: 'refuse' })).rejects.toMatchObject({ code: 'refused', message: expect.stringMatching(/no member "web\/nobody"/) });
    const cleared = await callDirect(svc.handlers, 'lab.fault', { member: key, fault: 'clear' });
    expect(cleared.faults).toEqual([]);
    await until(async () => (await callDirect(svc.handlers, 'lab.status', {})).members.find((m) => m.key === key && m.state === 'available'), 10_000, 'w1 back');
    await callDirect(svc.handlers, 'lab.stop', {});
    await expect(callDirect(svc.handlers, 'lab.fault', { member: key, fault: 'refuse' })).rejects.toMatchObject({ code: 'refused', message: 'the lab is not running' });
  });
});
