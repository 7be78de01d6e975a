// `lbdesk serve --events` reading faults on stdin, and `serve --scenario` running a scenario file
// start to finish: the real CLI, real HTTP servers on loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../shared/api/engine';
import { runCli, startCli } from '../../helpers/cli';
import { freePort, until } from '../../helpers/engine';

const A = { vip: '127.0.42.10', web1: '127.0.42.11', web2: '127.0.42.12' };
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(): Promise<{ dir: string; file: string }> {
  const port = await freePort(A.web1);
  const vport = await freePort(A.vip);
  for (const [name, address] of [['web1', A.web1], ['web2', A.web2]] as const) {
    const server = createServer((req, res) => res.end(`${name}\n`));
    await new Promise<void>((r) => server.listen(port, address, () => r()));
    cleanups.push(() => new Promise((r) => server.close(r)));
  }
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-faults-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'site.yaml');
  writeFileSync(file, `lbdesk: 1
name: faults
healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }
servers:
  - { name: web1, address: ${A.web1} }
  - { name: web2, address: ${A.web2} }
groups:
  - name: web
    members: [ { server: web1, port: ${port} }, { server: web2, port: ${port} } ]
    healthCheck: { type: http, http: { path: / }, degradedAbove: 400ms }
services:
  - { name: vip, address: ${A.vip}, port: ${vport}, group: web }
`);
  return { dir, file };
}

describe('serve --events: faults on stdin', () => {
  it('applies and clears faults while the lab runs; a bad line is an error event and serve goes on', async () => {
    const { file, dir } = await site();
    const child = startCli(['serve', file, '--events'], { env: { LBDESK_DATA_DIR: join(dir, 'data') } });
    cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    const events: EngineEvent[] = [];
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        events.push(JSON.parse(out.slice(0, nl)) as EngineEvent);
        out = out.slice(nl + 1);
      }
    });
    const wait = <T extends EngineEvent['type']>(type: T, pred: (e: Extract<EngineEvent, { type: T }>) => boolean = () => true) =>
      until(() => events.find((e) => e.type === type && pred(e as never)), 20_000, `${type} event`) as Promise<Extract<EngineEvent, { type: T }>>;
    await wait('state', (e) => e.server === 'web1' && e.to === 'available');
    child.stdin!.write('fault web/web1 explode\nfault web/web1 refuse\n');
    expect(await wait('error')).toMatchObject({ message: expect.stringMatching(/^stdin: "fault web\/web1 explode": "explode" is not a fault/) });
    expect(await wait('fault')).toMatchObject({ member: expect.stringMatching(/^web\/web1:\d+$/), fault: 'refuse', via: expect.stringMatching(/^127\.254\./) });
    const down = await wait('state', (e) => e.server === 'web1' && e.to === 'unavailable');
    expect(down).toMatchObject({ fault: 'refuse', bound: [expect.any(Number), expect.any(Number)], withinBound: expect.any(Boolean) });
    expect(down.detectedMs).toBeLessThanOrEqual(down.bound![1] + 2500);
    child.stdin!.write('clear all\n');
    expect(await wait('clear')).toMatchObject({ fault: 'refuse' });
    expect(await wait('state', (e) => e.server === 'web1' && e.to === 'available' && e.from === 'unavailable')).toMatchObject({ fault: 'refuse', withinBound: expect.any(Boolean) });
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.on('exit', r))).toBe(0);
  });
});

describe('serve --scenario', () => {
  it('runs the scenario start to finish: a PASS line per expected transition, exit 0', async () => {
    const { file, dir } = await site();
    const scenario = join(dir, 'proof.yaml');
    writeFileSync(scenario, `# web1 slow, then gone, then back
- at: 500ms fault web/web1 delay 800ms
- expect: web/web1 degraded within 5s
- at: 3s fault web/web1 blackhole
- expect: web/web1 unavailable within 10s
- expect: web/web2 available within 1s
- at: 12s clear web/web1
- expect: web/web1 available within 8s
`);
    const r = await runCli(['serve', file, '--scenario', scenario], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
    const verdicts = r.stdout.split('\n').filter((l) => /^(PASS|FAIL) /.test(l));
    expect(verdicts).toEqual([
      expect.stringMatching(/^PASS web\/web1 degraded within 5000 ms: after \d+ ms \(delay: \d+ ms, bound 0-\d+ ms/),
      expect.stringMatching(/^PASS web\/web2 available within 1000 ms: after \d+ ms$/),
      expect.stringMatching(/^PASS web\/web1 unavailable within 10000 ms: after \d+ ms \(blackhole: \d+ ms, bound \d+-\d+ ms/),
      expect.stringMatching(/^PASS web\/web1 available within 8000 ms: after \d+ ms \(blackhole: /),
    ]);
    expect(r.stdout).toMatch(/scenario .*proof\.yaml: 4 of 4 expected transitions passed/);
    expect(r.code).toBe(0);
  });

  it('exits 1 when an expectation fails, and refuses a bad scenario with file:line:col before running anything', async () => {
    const { file, dir } = await site();
    const failing = join(dir, 'failing.yaml');
    writeFileSync(failing, '- at: 200ms fault web/web1 delay 800ms\n- expect: web/web1 unavailable within 1s\n');
    const r = await runCli(['serve', file, '--scenario', failing], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
    expect(r.stdout).toMatch(/^FAIL web\/web1 unavailable within 1000 ms: still web\/web1:\d+ (available|degraded) after 1s$/m);
    expect(r.stdout).toMatch(/0 of 1 expected transitions passed, 1 failed/);
    expect(r.code).toBe(1);

    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, '- at: 1s fault web/web7 refuse\n- expect: web/web1 asleep within 2s\n- at: 1s stop a1\n- hello: 1\n');
    const b = await runCli(['serve', file, '--scenario', bad], { env: { LBDESK_DATA_DIR: join(dir, 'data') } });
    expect(b.stderr.split('\n').filter((l) => l.startsWith(bad))).toEqual([
      expect.stringMatching(/bad\.yaml:1:7: \[0\]\.at: no member "web\/web7" in the workspace \(members: web\/web1:\d+, web\/web2:\d+\)$/),
      expect.stringMatching(/bad\.yaml:2:11: \[1\]\.expect: "asleep" is not a state: use available, degraded or unavailable$/),
      expect.stringMatching(/bad\.yaml:3:7: \[2\]\.at: no box "a1" in the workspace's pairs$/),
      expect.stringMatching(/bad\.yaml:4:3: \[3\]: "hello" is not a step: use at or expect$/),
    ]);
    expect(b.stderr).toMatch(/4 problems in the scenario; nothing was run/);
    expect(b.stdout).not.toMatch(/listening/);
    expect(b.code).toBe(2);
  });
});
