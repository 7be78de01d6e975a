// End to end: a rendered haproxy.cfg runs in real HAProxy (master-worker) on loopback, sends
// traffic to the right backends, and a re-render + reload (USR2 to the master) changes it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderForAppliance } from '../../../../main/services/drivers';
import type { WorkspaceInput } from '../../../../shared/model/schema';
import { HAPROXY, missing, workspace } from '../../../helpers/drivers';
import { skipBecause } from '../../../helpers/skip';

interface Backend { name: string; address: string; port: number; server: http.Server }

/** A backend that answers its name, and `/health` with OK (or DOWN when unhealthy). */
async function startBackend(name: string, address: string, healthy: boolean): Promise<Backend> {
  const server = http.createServer((req, res) => {
    res.setHeader('Connection', 'close');
    res.end(req.url === '/health' ? (healthy ? 'status: OK\n' : 'status: DOWN\n') : name);
  });
  await new Promise<void>((done) => server.listen(0, address, done));
  return { name, address, port: (server.address() as net.AddressInfo).port, server };
}

async function freePort(address: string): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((done) => s.listen(0, address, done));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((done) => s.close(done));
  return port;
}

function get(address: string, port: number): Promise<string> {
  return new Promise((done, fail) => {
    const req = http.get({ host: address, port, path: '/', agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => done(body));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
  });
}

/** `count` requests, one connection each: which backend answered how often. */
async function spread(address: string, port: number, count: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const name = await get(address, port).catch((e: Error) => `error: ${e.message}`);
    seen[name] = (seen[name] ?? 0) + 1;
  }
  return seen;
}

/** Polls (bounded) until `ok`; returns the last value either way. */
async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let v = await probe();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    v = await probe();
  }
  return v;
}

const FRONT = '127.0.7.10';

function site(port: number, members: { b: Backend; weight: number }[]): Partial<WorkspaceInput> {
  return {
    healthTimers: { interval: '300ms', retryInterval: '150ms', failAfter: 2, restoreAfter: 1, timeout: '1s' },
    servers: members.map(({ b }) => ({ name: b.name, address: b.address })),
    groups: [{
      name: 'web',
      members: members.map(({ b, weight }) => ({ server: b.name, port: b.port, weight })),
      healthCheck: { type: 'http', http: { path: '/health', expect: 'OK' } },
    }],
    services: [{ name: 'web-vip', address: FRONT, port, group: 'web', algorithm: 'weighted-round-robin' }],
    appliances: [{ name: 'lab', host: '127.0.0.1', driver: 'haproxy' }],
  };
}

/** The rendered file as pushed; without root the privilege drop cannot run, so only then it goes. */
function render(extra: Partial<WorkspaceInput>): { text: string; validate: string } {
  const model = workspace(extra);
  const r = renderForAppliance(model, model.appliances[0]!, { workspacePath: '/tmp/lab.yaml' });
  expect(r.errors).toEqual([]);
  const text = process.getuid?.() === 0 ? r.text : r.text.replace(/^ {4}(chroot|user|group) .*\n/gm, '');
  return { text, validate: r.validateCommand };
}

describe.skipIf(skipBecause(!HAPROXY && 'haproxy is not installed (apt-get install haproxy)', 'HAProxy runs a rendered config'))('HAProxy runs a rendered config (master-worker, loopback)', () => {
  if (!HAPROXY) missing('haproxy');
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-haproxy-e2e-'));
  const cfg = join(dir, 'haproxy.cfg');
  const pidFile = join(dir, 'haproxy.pid');
  const backends: Backend[] = [];
  let master: ChildProcess | undefined;
  let logs = '';
  let port = 0;

  beforeAll(async () => {
    backends.push(
      await startBackend('b1', '127.0.7.21', true),
      await startBackend('b2', '127.0.7.22', true),
      await startBackend('b3', '127.0.7.23', true),
      await startBackend('b4', '127.0.7.24', false),
    );
    port = await freePort(FRONT);
  });

  afterAll(async () => {
    if (master && master.exitCode === null) {
      master.kill('SIGTERM');
      await new Promise((done) => {
        const t = setTimeout(() => { master!.kill('SIGKILL'); done(undefined); }, 5000);
        master!.once('exit', () => { clearTimeout(t); done(undefined); });
      });
    }
    await Promise.all(backends.map((b) => new Promise((done) => b.server.close(done))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('validates with the driver command, starts, and spreads by weight', async () => {
    const [b1, b2] = backends;
    const { text, validate } = render(site(port, [{ b: b1!, weight: 1 }, { b: b2!, weight: 3 }]));
    writeFileSync(cfg, text);
    const check = spawnSync('sh', ['-c', validate.replace('{file}', cfg)], { encoding: 'utf8', timeout: 20_000 });
    expect(`${check.stdout}${check.stderr}`).toContain('Configuration file is valid');
    expect(check.status).toBe(0);

    master = spawn(HAPROXY!, ['-W', '-f', cfg, '-p', pidFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    master.stdout!.on('data', (d) => (logs += d));
    master.stderr!.on('data', (d) => (logs += d));
    const first = await until(() => get(FRONT, port).catch(() => ''), (v) => v !== '', 10_000);
    expect(first, `HAProxy did not answer; its output:\n${logs}`).not.toBe('');

    const seen = await spread(FRONT, port, 40);
    expect(seen.b1! + seen.b2!).toBe(40);
    expect(seen.b1).toBeGreaterThanOrEqual(8);
    expect(seen.b1).toBeLessThanOrEqual(12);
  });

  it('re-render, USR2 to the master: the new members and weights serve, the failing check keeps b4 out', async () => {
    expect(master?.exitCode, logs).toBeNull();
    const [, b2, b3, b4] = backends;
    const masterPid = Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]);
    expect(masterPid).toBe(master!.pid);
    const { text } = render(site(port, [{ b: b2!, weight: 1 }, { b: b3!, weight: 1 }, { b: b4!, weight: 1 }]));
    writeFileSync(cfg, text);
    process.kill(masterPid, 'SIGUSR2');

    // Settled: the old worker no longer takes new connections and b4 failed its checks.
    const settled = await until(() => spread(FRONT, port, 10), (s) => Object.keys(s).sort().join() === 'b2,b3', 15_000);
    expect(Object.keys(settled).sort(), `${JSON.stringify(settled)}\n${logs}`).toEqual(['b2', 'b3']);

    const seen = await spread(FRONT, port, 40);
    expect(Object.keys(seen).sort()).toEqual(['b2', 'b3']);
    expect(seen.b2).toBeGreaterThanOrEqual(16);
    expect(seen.b3).toBeGreaterThanOrEqual(16);
    expect(master!.exitCode).toBeNull();
  });

  it('a target set hashes on the client address and port (IPFE): one client\'s connections reach every server', async () => {
    expect(master?.exitCode, logs).toBeNull();
    // A target set forwards TSA:port to each server's same port: one port free on all three.
    let p = 0;
    let servers: Backend[] = [];
    for (let tries = 0; tries < 20 && servers.length < 2; tries++) {
      p = await freePort('127.0.7.30');
      servers = [];
      for (const [name, address] of [['t1', '127.0.7.31'], ['t2', '127.0.7.32']] as const) {
        const srv = http.createServer((_req, res) => res.end(name));
        const ok = await new Promise<boolean>((done) => srv.once('error', () => done(false)).listen(p, address, () => done(true)));
        if (ok) servers.push({ name, address, port: p, server: srv });
      }
      if (servers.length < 2) await Promise.all(servers.map((b) => new Promise((done) => b.server.close(done))));
    }
    backends.push(...servers);
    expect(servers).toHaveLength(2);
    const { text } = render({
      healthTimers: { interval: '300ms', retryInterval: '150ms', failAfter: 2, restoreAfter: 1, timeout: '1s' },
      targetSets: [{ number: 1, address: '127.0.7.30', ports: [p], algorithm: 'hash', protocols: 'tcp', servers: servers.map((b) => ({ address: b.address })) }],
      appliances: [{ name: 'lab', host: '127.0.0.1', driver: 'haproxy' }],
    });
    writeFileSync(cfg, text);
    process.kill(Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]), 'SIGUSR2');
    // Settled once the new worker has bound the target set's port (before that: refused).
    // Every connection comes from 127.0.0.1 on a new source port: hashed on the address alone
    // (balance source) all would go to one server.
    const seen = await until(() => spread('127.0.7.30', p, 30), (s) => Object.keys(s).sort().join() === 't1,t2', 15_000);
    expect(Object.keys(seen).sort(), `${JSON.stringify(seen)}\n${logs}`).toEqual(['t1', 't2']);
  });
});
