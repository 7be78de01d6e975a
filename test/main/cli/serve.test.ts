// `lbdesk serve --events` end to end: the real CLI, the real health checker and forwarding
// engine, backends on loopback. Timing of fail-after/restore-after as seen in the events,
// redispatch while a server dies, reload under load, clean stop.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EngineEvent } from '../../../shared/api/engine';
import { detectionTimes } from '../../../shared/model/detection';
import { lbdeskArgs, runCli } from '../../helpers/cli';
import { startRadiusServer } from '../../helpers/servers';
import { expectRefused, freePort, hold, startBackend, until, whoAnswers, type Backend } from '../../helpers/engine';

const ROOT = resolve(__dirname, '../../..');
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Serve {
  child: ChildProcess;
  events: EngineEvent[];
  stderr: () => string;
  wait<T extends EngineEvent['type']>(type: T, pred?: (e: Extract<EngineEvent, { type: T }>) => boolean, ms?: number): Promise<Extract<EngineEvent, { type: T }> & { at: number }>;
  exit: Promise<number | null>;
}

/** Runs `lbdesk serve FILE --events` (node itself: the tsx wrapper would not pass SIGHUP on). */
function serve(file: string, extra: string[] = [], env: Record<string, string> = {}): Serve {
  // A data folder of its own (secret bindings, recent files): never the user's.
  const data = { LBDESK_DATA_DIR: join(tempDir(), 'data') };
  const child = spawn(process.execPath, [...lbdeskArgs(), 'serve', file, '--events', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...data, ...env } });
  const events: (EngineEvent & { at: number })[] = [];
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      events.push({ ...(JSON.parse(out.slice(0, nl)) as EngineEvent), at: Date.now() });
      out = out.slice(nl + 1);
    }
  });
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    events,
    stderr: () => err,
    exit,
    wait: (type, pred = () => true, ms = 20_000) =>
      until(() => events.find((e) => e.type === type && pred(e as never)), ms, `${type} event (stderr: ${err})`) as never,
  };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-serve-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function backend(name: string, address: string, port = 0): Promise<Backend> {
  const b = await startBackend(name, address, port);
  cleanups.push(() => b.close());
  return b;
}

/** Sequential connections from `loops` clients until `stop()`; counts answers and errors. */
function load(address: string, port: number, loops: number) {
  let running = true;
  const answers: string[] = [];
  const errors: string[] = [];
  const done = Promise.all(Array.from({ length: loops }, async () => {
    for (let i = 0; running && i < 2000; i++) {
      try {
        answers.push(await whoAnswers(address, port));
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
  }));
  return { answers, errors, stop: async () => ((running = false), await done) };
}

describe('lbdesk serve --events', () => {
  it('announces listeners, states and SCTP, forwards, and stops cleanly with exit 0', async () => {
    const web = await backend('web1', '127.0.6.11');
    const vport = await freePort('127.0.6.10');
    const tsPort = await freePort('127.0.6.21');
    const da = await backend('da1', '127.0.6.21', tsPort);
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, `lbdesk: 1
name: serve-test
servers:
  - { name: web1, address: 127.0.6.11 }
groups:
  - name: web
    members: [ { server: web1, port: ${web.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: web-vip, address: 127.0.6.10, port: ${vport}, group: web }
targetSets:
  - number: 7
    address: 127.0.6.20
    ports: [${tsPort}]
    protocols: both
    servers: [ { address: 127.0.6.21 } ]
`);
    const s = serve(file);
    expect(await s.wait('listening', (e) => e.service === 'web-vip')).toMatchObject({ address: '127.0.6.10', port: vport, protocol: 'tcp' });
    expect(await s.wait('listening', (e) => e.targetSet === 7)).toMatchObject({ address: '127.0.6.20', port: tsPort, protocol: 'tcp' });
    expect(await s.wait('notice')).toMatchObject({ targetSet: 7, message: expect.stringContaining('SCTP is kept in the config but not forwarded locally') });
    expect(await s.wait('state', (e) => e.group === 'web')).toMatchObject({ server: 'web1', port: web.port, from: 'unknown', to: 'available', score: 10 });
    expect(await s.wait('state', (e) => e.targetSet === 7)).toMatchObject({ server: '127.0.6.21', from: 'unknown', to: 'available' });
    expect(await whoAnswers('127.0.6.10', vport)).toBe('web1');
    expect(await whoAnswers('127.0.6.20', tsPort)).toBe('da1');
    expect(da.accepted).toBeGreaterThanOrEqual(2); // the health check and the client
    for (const e of s.events) expect(Number.isNaN(Date.parse(e.ts))).toBe(false);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    expect(s.events.at(-1)).toMatchObject({ type: 'stopped', reason: 'SIGTERM' });
    expect(s.events.filter((e) => e.type === 'closed')).toHaveLength(2);
    expect(s.stderr()).toBe('');
  });

  it('takes a server out after fail-after failures and back after restore-after passes, in the timers\' time', async () => {
    const timers = { interval: 600, retryInterval: 300, failAfter: 3, restoreAfter: 2, timeout: 300 };
    const b = await backend('web1', '127.0.6.31');
    const vport = await freePort('127.0.6.30');
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, `lbdesk: 1
name: timing
healthTimers: { interval: ${timers.interval}ms, retryInterval: ${timers.retryInterval}ms, failAfter: ${timers.failAfter}, restoreAfter: ${timers.restoreAfter}, timeout: ${timers.timeout}ms }
servers:
  - { name: web1, address: 127.0.6.31 }
groups:
  - name: web
    members: [ { server: web1, port: ${b.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: vip, address: 127.0.6.30, port: ${vport}, group: web }
`);
    const s = serve(file);
    await s.wait('state', (e) => e.to === 'available');
    await s.wait('listening');
    const { failure, recovery } = detectionTimes(timers, 0.1);
    // Generous slack for two processes' scheduling on a busy shared machine (exact timing:
    // test/main/services/health/px-clock.test.ts); the lower bound stays strict.
    const slack = 3000;

    const down = Date.now();
    await b.close();
    const out = await s.wait('state', (e) => e.to === 'unavailable', 10_000);
    expect(out.at - down).toBeGreaterThanOrEqual(failure.bestMs - 50);
    expect(out.at - down).toBeLessThanOrEqual(failure.worstMs + slack);
    expect(out).toMatchObject({ from: 'available', server: 'web1' });
    expect(await expectRefused('127.0.6.30', vport)).toBe('ECONNRESET');

    const up = Date.now();
    const again = await backend('web1-again', '127.0.6.31', b.port);
    const back = await s.wait('state', (e) => e.to === 'available' && e.from === 'unavailable', 10_000);
    expect(back.at - up).toBeGreaterThanOrEqual(recovery.bestMs - 50);
    expect(back.at - up).toBeLessThanOrEqual(recovery.worstMs + slack);
    // The checker's event comes first; the data thread has the state a moment later.
    expect(await until(() => whoAnswers('127.0.6.30', vport).catch(() => undefined), 5000, 'the VIP forwarding again')).toBe(again.name);
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);
  });

  it('redispatches with zero client errors while a server dies, and the health checker takes it out', async () => {
    const b1 = await backend('b1', '127.0.6.41');
    const b2 = await backend('b2', '127.0.6.42');
    const vport = await freePort('127.0.6.40');
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, `lbdesk: 1
name: redispatch
healthTimers: { interval: 30s, retryInterval: 200ms, failAfter: 2, restoreAfter: 2, timeout: 300ms }
servers:
  - { name: b1, address: 127.0.6.41 }
  - { name: b2, address: 127.0.6.42 }
groups:
  - name: web
    members: [ { server: b1, port: ${b1.port} }, { server: b2, port: ${b2.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: vip, address: 127.0.6.40, port: ${vport}, group: web, algorithm: round-robin }
`);
    const s = serve(file);
    await s.wait('listening');
    await until(() => s.events.filter((e) => e.type === 'state' && e.to === 'available').length === 2, 10_000, 'both available');
    const l = load('127.0.6.40', vport, 4);
    await until(() => l.answers.length >= 10, 10_000, 'load under way');
    // b1 stops accepting (its open connections finish): new connects to it are refused.
    void b1.stopAccepting();
    const t0 = Date.now();
    // With a 30 s interval only the engine's failure reports can make this quick.
    const out = await s.wait('state', (e) => e.server === 'b1' && e.to === 'unavailable', 20_000);
    expect(out.at - t0).toBeLessThan(20_000);
    const after = l.answers.length;
    await until(() => l.answers.length >= after + 10, 10_000, 'ten answers after b1 went');
    await l.stop();
    expect(l.errors.join('\n'), JSON.stringify(s.events.filter((e) => e.type !== 'listening'))).toBe('');
    expect(l.answers.length).toBeGreaterThan(20);
    expect(l.answers.slice(-10).every((a) => a === 'b2')).toBe(true);
    expect(s.events.some((e) => e.type === 'redispatch' && e.server === 'b1' && e.to === 'b2')).toBe(true);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('reloads on SIGHUP under load without dropping a connection; a broken file keeps the old config', async () => {
    const b1 = await backend('b1', '127.0.6.51');
    const b2 = await backend('b2', '127.0.6.52');
    const vport = await freePort('127.0.6.50');
    const vport2 = await freePort('127.0.6.50');
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    const write = (weights: [number, number], extra = '') => writeFileSync(file, `lbdesk: 1
name: reload
servers:
  - { name: b1, address: 127.0.6.51 }
  - { name: b2, address: 127.0.6.52 }
groups:
  - name: web
    members: [ { server: b1, port: ${b1.port}, weight: ${weights[0]} }, { server: b2, port: ${b2.port}, weight: ${weights[1]} } ]
    healthCheck: { type: tcp }
services:
  - { name: vip, address: 127.0.6.50, port: ${vport}, group: web, algorithm: weighted-round-robin }
${extra}`);
    write([100, 100]);
    const s = serve(file);
    await s.wait('listening');
    await until(() => s.events.filter((e) => e.type === 'state' && e.to === 'available').length === 2, 10_000, 'both available');
    const held = await Promise.all(Array.from({ length: 6 }, () => hold('127.0.6.50', vport)));
    cleanups.push(() => held.forEach((h) => h.socket.destroy()));
    const l = load('127.0.6.50', vport, 4);
    await until(() => l.answers.length >= 10, 10_000, 'load under way');

    write([100, 0], `  - { name: vip2, address: 127.0.6.50, port: ${vport2}, group: web, algorithm: round-robin }\n`);
    s.child.kill('SIGHUP');
    expect(await s.wait('reload')).toMatchObject({ ok: true, added: 1, kept: 1, removed: 0 });
    await s.wait('listening', (e) => e.port === vport2);
    await until(() => l.answers.slice(-10).every((a) => a === 'b1') && l.answers.length >= 20, 10_000, 'ten answers from b1 after the reload');
    writeFileSync(file, `lbdesk: 1\nname: broken\nservices:\n  - { name: vip, address: 127.0.6.50, port: nope, group: web }\n`);
    s.child.kill('SIGHUP');
    const bad = await s.wait('reload', (e) => !e.ok);
    expect(bad.reason).toMatch(/workspace\.yaml:4:\d+: .*port/);
    expect(bad.reason).toContain('the running config is kept');
    const kept = l.answers.length;
    await until(() => l.answers.length >= kept + 10, 10_000, 'ten answers after the refused reload');
    await l.stop();

    expect(l.errors.join('\n')).toBe('');
    expect(l.answers.length).toBeGreaterThan(20);
    // After the reload b2 has weight 0: the last answers all come from b1.
    expect(l.answers.slice(-10).every((a) => a === 'b1')).toBe(true);
    expect(await whoAnswers('127.0.6.50', vport2)).toBe('b1');
    for (const h of held) {
      const echo = new Promise<string>((r) => h.socket.once('data', (d) => r(String(d))));
      h.socket.write('alive');
      expect(await echo).toBe('alive');
    }
    expect(s.events.some((e) => e.type === 'closed')).toBe(false);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('a reload refused at bind time changes nothing, health checks included', async () => {
    const b1 = await backend('b1', '127.0.6.81');
    const b2 = await backend('b2', '127.0.6.82');
    const vport = await freePort('127.0.6.80');
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.6.80', done));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const taken = (blocker.address() as AddressInfo).port;
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    const write = (b2Enabled: boolean, extra = '') => writeFileSync(file, `lbdesk: 1
name: refused-reload
servers:
  - { name: b1, address: 127.0.6.81 }
  - { name: b2, address: 127.0.6.82, enabled: ${b2Enabled} }
groups:
  - name: web
    members: [ { server: b1, port: ${b1.port} }, { server: b2, port: ${b2.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: vip, address: 127.0.6.80, port: ${vport}, group: web, algorithm: round-robin }
${extra}`);
    write(true);
    const s = serve(file);
    await s.wait('listening');
    await until(() => s.events.filter((e) => e.type === 'state' && e.to === 'available').length === 2, 10_000, 'both available');
    // b2 disabled, and a second service on a port something else holds: the engine refuses.
    write(false, `  - { name: clash, address: 127.0.6.80, port: ${taken}, group: web }\n`);
    s.child.kill('SIGHUP');
    const refused = await s.wait('reload', (e) => !e.ok);
    expect(refused.reason).toContain('EADDRINUSE');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await whoAnswers('127.0.6.80', vport));
    expect(new Set(answers)).toEqual(new Set(['b1', 'b2']));
    // A disabled b2 would have been reported at once, well before those answers came back.
    expect(s.events.filter((e) => e.type === 'state' && e.to === 'disabled')).toEqual([]);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('--ui serves the API on loopback behind a token, with the lab running the workspace and its secrets', async () => {
    const b = await backend('web1', '127.0.6.61');
    const vport = await freePort('127.0.6.60');
    // A RADIUS check passes only with the right shared secret, which comes from the environment.
    const radius = await startRadiusServer('127.0.6.62', { secret: 'serve-ui-radius-secret', reply: 2 });
    cleanups.push(() => radius.close());
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, `lbdesk: 1
name: ui
servers:
  - { name: web1, address: 127.0.6.61 }
  - { name: rad1, address: 127.0.6.62 }
groups:
  - name: web
    members: [ { server: web1, port: ${b.port} } ]
    healthCheck: { type: tcp }
  - name: aaa
    members: [ { server: rad1, port: ${radius.port} } ]
    healthCheck: { type: radius, radius: { secret: lab-radius } }
services:
  - { name: vip, address: 127.0.6.60, port: ${vport}, group: web }
`);
    // An earlier run bound the secret to another port: a secret handed to serve at start is the
    // user's word for now, so the old place is forgotten (the check is not refused).
    const data = join(dir, 'data');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'secret-hosts.json'), JSON.stringify({ 'named/lab-radius': ['127.0.6.62:1'] }));
    const s = serve(file, ['--ui'], { LBDESK_SECRET_LAB_RADIUS: 'serve-ui-radius-secret', LBDESK_DATA_DIR: data });
    const ui = await s.wait('ui');
    const url = new URL(ui.url);
    expect(url.hostname).toBe('127.0.0.1');
    const token = url.searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(20);
    await s.wait('listening');
    await s.wait('state', (e) => e.to === 'available' && e.group === 'web');
    await s.wait('state', (e) => e.to === 'available' && e.group === 'aaa');
    expect(radius.verified).toBeGreaterThan(0);
    expect(await whoAnswers('127.0.6.60', vport)).toBe('web1');
    const api = `${url.origin}/api/call/lab.status`;
    expect((await fetch(api, { method: 'POST', body: '{}' })).status).toBe(401);
    const res = await fetch(api, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; result: { running: boolean; listening: { port: number }[] } };
    expect(body.ok).toBe(true);
    expect(body.result.running).toBe(true);
    expect(body.result.listening.map((l) => l.port)).toContain(vport);
    // The window opens the file the lab runs (it opened the last file used in the app).
    const info = await fetch(`${url.origin}/api/call/app.info`, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    expect(((await info.json()) as { result: { startPath: string } }).result.startPath).toBe(file);
    // Stopped from the window: serve says so instead of going quiet.
    await fetch(`${url.origin}/api/call/lab.stop`, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    expect((await s.wait('notice', (e) => /stopped from the window/.test(String(e.message)))).message).toContain('the UI is still served');
    expect(s.stderr()).toContain(ui.url);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('--ui on a busy or bad port: one clear line, exit 2', async () => {
    const dir = tempDir();
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: busy\n');
    // The UI binds 127.0.0.1 only, so the blocker must too; port 0 lets the kernel pick one.
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const { port } = blocker.address() as AddressInfo;
    try {
      const busy = await runCli(['serve', file, '--ui', '--ui-port', String(port)]);
      expect(busy).toMatchObject({ code: 2, stderr: `lbdesk: cannot listen on 127.0.0.1:${port}: address in use\n` });
    } finally {
      blocker.close();
    }
    const bad = await runCli(['serve', file, '--ui', '--ui-port', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^lbdesk: .*--ui-port.*a port is a whole number from 0 to 65535/);
  });

  it('with nothing to forward it says so instead of looking hung, and still stops with exit 0', async () => {
    const file = join(tempDir(), 'empty.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: empty\nservers: [{ name: a, address: 127.0.6.90 }]\n');
    const s = serve(file);
    const notice = await s.wait('notice', (e) => e.message.startsWith('nothing to forward'));
    expect(notice.message).toBe(`nothing to forward: ${file} has no enabled service or target set (add one, then SIGHUP to reload)`);
    // Said again after a reload that leaves nothing to forward (here: the same file).
    s.child.kill('SIGHUP');
    await s.wait('reload');
    await until(() => s.events.filter((e) => e.type === 'notice' && e.message.startsWith('nothing to forward')).length === 2 || undefined, 10_000, 'a second notice');
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('refuses an invalid workspace (exit 1, the problem at file:line:col) and an unreadable one (exit 2)', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: bad\nservices:\n  - { name: v, address: 127.0.6.70, port: nope, group: g }\n');
    const bad = await runCli(['serve', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.yaml:4:\d+: services\[0\]\.port: /);
    expect(bad.stderr).toContain('is not a valid workspace (');
    expect(bad.stderr).not.toContain('    at ');
    const missing = await runCli(['serve', join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});
