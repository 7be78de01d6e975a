// Which socket layer runs, under whichever Node runs this file (npm test runs it under Node 20
// and again under the Node that Electron ships, 24.x): the data path and the TCP probe take the
// libuv handles ('uv'), never node:net silently; the native addon (N-API) loads; and where the
// runtime lacks the handles (forced here by a preload that removes process.binding) both say
// so in a notice. Loopback 127.0.11.1-4.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../../shared/api/engine';
import { memberKey } from '../../../../shared/api/types';
import { ForwardingEngine } from '../../../../main/services/engine';
import { runProbe } from '../../../../main/services/health';
import { TCP_IO, TCP_IO_FALLBACK } from '../../../../main/services/health/probes/tcp';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { ROOT, lbdeskArgs } from '../../../helpers/cli';
import { StaticHealth, freePort, startBackend, until, whoAnswers, workspace } from '../../../helpers/engine';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-io-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe(`socket layers under Node ${process.version}`, () => {
  it('the TCP probe takes the libuv handle and passes against a real listener', async () => {
    expect(process.env.LBDESK_HEALTH_IO, 'this test checks the default').toBeUndefined();
    expect(TCP_IO).toBe('uv');
    expect(TCP_IO_FALLBACK).toBeUndefined();
    const b = await startBackend('b', '127.0.11.1');
    cleanups.push(() => b.close());
    const r = await runProbe('tcp', { address: '127.0.11.1', port: b.port, timeoutMs: 2000, check: { type: 'tcp' }, secrets: new MemorySecretStore() });
    expect(r).toMatchObject({ ok: true });
  });

  for (const io of ['native', 'uv'] as const) {
    it(`the data path asked for (${io}) is the one that forwards, without a notice`, async () => {
      const b = await startBackend('b', '127.0.11.2');
      cleanups.push(() => b.close());
      const health = new StaticHealth();
      health.set(memberKey({ group: 'g', server: 'b', port: b.port }), 'available');
      const engine = new ForwardingEngine({ health, io, statsIntervalMs: 0 });
      cleanups.push(() => engine.stop());
      const events: EngineEvent[] = [];
      engine.on('event', (e) => events.push(e));
      const port = await freePort('127.0.11.3');
      const r = await engine.apply(workspace({
        lbdesk: 1, name: 'io', servers: [{ name: 'b', address: '127.0.11.2' }],
        groups: [{ name: 'g', members: [{ server: 'b', port: b.port }] }],
        services: [{ name: 'vip', address: '127.0.11.3', port, group: 'g' }],
      }));
      expect(r.ok).toBe(true);
      expect((await engine.refreshStats()).io).toBe(io);
      expect(await whoAnswers('127.0.11.3', port)).toBe('b');
      expect(events.filter((e) => e.type === 'notice')).toEqual([]);
    });
  }
});

describe('where the runtime lacks the libuv handles (process.binding removed)', () => {
  it('serve says so for the data path and for the TCP probe, and still checks and forwards on node:net', async () => {
    const dir = tempDir();
    const preload = join(dir, 'no-binding.cjs');
    writeFileSync(preload, 'process.binding = undefined;\n');
    const b = await startBackend('b', '127.0.11.4');
    cleanups.push(() => b.close());
    const port = await freePort('127.0.11.3');
    const file = join(dir, 'workspace.yaml');
    writeFileSync(file, `lbdesk: 1
name: no-uv
healthTimers: { interval: 1s, timeout: 2s }
servers: [ { name: b, address: 127.0.11.4 } ]
groups: [ { name: g, members: [ { server: b, port: ${b.port} } ], healthCheck: { type: tcp } } ]
services: [ { name: vip, address: 127.0.11.3, port: ${port}, group: g } ]
`);
    const env: NodeJS.ProcessEnv = { ...process.env, LBDESK_DATA_DIR: join(dir, 'data') };
    delete env.LBDESK_HEALTH_IO;
    delete env.LBDESK_ENGINE_IO;
    const child = spawn(process.execPath, ['--require', preload, ...lbdeskArgs(), 'serve', file, '--events', '--io', 'uv'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    const events: EngineEvent[] = [];
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        events.push(JSON.parse(out.slice(0, nl)) as EngineEvent);
        out = out.slice(nl + 1);
      }
    });
    const notices = () => events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
    await until(() => events.some((e) => e.type === 'state' && e.to === 'available'), 20_000, `member available (stderr: ${err})`);
    expect(notices()).toContain('libuv handles are not reachable from JavaScript (process.binding); forwarding with the JavaScript data path (net)');
    expect(notices()).toContain('libuv TCP handles are not reachable from JavaScript (process.binding): TCP Layer 4 health checks use node:net');
    expect(await whoAnswers('127.0.11.3', port)).toBe('b');
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.on('exit', r))).toBe(0);
  });
});
