// Replay of a recorded trace under other timers, every figure worked out by hand below.
//
// Recorded timers R: interval 10s, retryInterval 5s, failAfter 3, restoreAfter 2, timeout 2s.
// The lab checked at (s): 0 10 20 pass | 30 35 40 45 fail | 50 55 65 pass. Under R:
//   0 unknown -> available; 30, 35 failures 1 and 2; 40 the third: unavailable; 50 pass 1;
//   55 pass 2: available. In service while failing 30-40 = 10s; out while passing 50-55 = 5s.
// Replayed under O: interval 4s, retryInterval 1s, failAfter 2, restoreAfter 3. A check at t
// sees the latest result at or before t: checks 0 4 … 28 pass (8 checks), 32 fails (sees 30),
// 33 fails: unavailable at 33; retries every 1s, 50 51 52 pass: available at 52; then 56 60 64.
//   Checks: 9 + 20 (33…52) + 3 = 32. Served while failing 30-33 = 3s; out while passing 50-52 = 2s.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay, type Sample } from '../../../../main/services/whatif';
import { runCli } from '../../../helpers/cli';
import type { ReplayReport } from '../../../../shared/api/whatif';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => T0 + s * 1000;
const PASS = [0, 10, 20, 50, 55, 65];
const FAIL = [30, 35, 40, 45];
const samples: Sample[] = [...PASS, ...FAIL].sort((a, b) => a - b).map((s) => ({ at: at(s), ok: PASS.includes(s), reason: PASS.includes(s) ? 'connect OK' : 'connect ECONNREFUSED' }));
const R = { interval: 10_000, retryInterval: 5_000, failAfter: 3, restoreAfter: 2, timeout: 2_000 };
const O = { interval: 4_000, retryInterval: 1_000, failAfter: 2, restoreAfter: 3, timeout: 2_000 };
const changes = (r: ReplayReport['recorded']) => r.changes.map((c) => `${(c.at - T0) / 1000} ${c.from}>${c.to}`);

describe('replay', () => {
  it('the recorded run is the checker\'s state machine on the recorded results', () => {
    const r = replay({ member: 'web/web1', source: 'test', samples, recorded: R, other: O, thresholds: {} });
    expect(changes(r.recorded)).toEqual(['0 unknown>available', '40 available>unavailable', '55 unavailable>available']);
    expect(r.recorded).toMatchObject({ checks: 10, servedWhileFailingMs: 10_000, outWhilePassingMs: 5_000, failures: [{ began: at(30), detected: at(40), afterMs: 10_000 }] });
  });

  it('under other timers: when each change would have happened, and the time served while failing', () => {
    const r = replay({ member: 'web/web1', source: 'test', samples, recorded: R, other: O, thresholds: {} });
    expect(changes(r.replayed)).toEqual(['0 unknown>available', '33 available>unavailable', '52 unavailable>available']);
    expect(r.replayed).toMatchObject({ checks: 32, servedWhileFailingMs: 3_000, outWhilePassingMs: 2_000, failures: [{ began: at(30), detected: at(33), afterMs: 3_000 }] });
    expect(r.end).toBe(at(65));
  });

  it('the same timers replayed give the recorded changes', () => {
    const r = replay({ member: 'web/web1', source: 'test', samples, recorded: R, other: R, thresholds: {} });
    expect(changes(r.replayed)).toEqual(changes(r.recorded));
    expect(r.replayed.servedWhileFailingMs).toBe(10_000);
  });

  it('looser timers miss a short failure: served all along, never detected', () => {
    // interval 60s: the checks at 0 and 60 both pass; the failure 30-50 is never seen.
    const r = replay({ member: 'web/web1', source: 'test', samples, recorded: R, other: { ...R, interval: 60_000 }, thresholds: {} });
    expect(r.replayed).toMatchObject({ checks: 2, servedWhileFailingMs: 20_000, failures: [{ began: at(30) }] });
    expect(r.replayed.failures[0]!.detected).toBeUndefined();
  });

  it('a pass slower than the other timeout is a failure there, decided at the timeout', () => {
    const slow: Sample[] = [0, 10].map((s) => ({ at: at(s), ok: true, reason: 'HTTP/1.0 200', rttMs: 1500 }));
    const r = replay({ member: 'web/web1', source: 'test', samples: slow, recorded: R, other: { ...R, timeout: 1000 }, thresholds: {} });
    expect(changes(r.recorded)).toEqual(['1.5 unknown>available']);
    expect(changes(r.replayed)).toEqual(['1 unknown>unavailable']);
    expect(r.replayed.changes[0]!.reason).toBe('no answer within timeout 1000 ms (the recorded pass took 1500 ms)');
  });
});

describe('lbdesk replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-replay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const workspace = join(dir, 'site.yaml');
  writeFileSync(workspace, `lbdesk: 1
name: replay-site
servers: [{ name: web1, address: 198.51.100.21 }]
groups:
  - name: web
    members: [{ server: web1, port: 8081 }]
    healthCheck: { type: tcp }
    healthTimers: { interval: 10s, retryInterval: 5s, failAfter: 3, restoreAfter: 2, timeout: 2s }
services: [{ name: web-vip, address: 192.0.2.10, port: 80, group: web }]
`);
  const json = join(dir, 'web1.json');
  writeFileSync(json, JSON.stringify({ results: samples.map((s) => ({ ...s, evidence: {} })), changes: [] }));
  // HAProxy logs a check only when it moves the health counter: not the passes while fully up
  // (10, 20, 65) nor the failure while fully down (45). Three formats of time stamp.
  const log = join(dir, 'haproxy.log');
  const line = (s: number, ok: boolean, status: string) => `Health check for server web-vip/web1 ${ok ? 'succeeded, reason: Layer4 check passed' : 'failed, reason: Layer4 connection problem, info: "Connection refused"'}, check duration: 0ms, status: ${status}.`;
  writeFileSync(log, [
    `2026-12-01T10:00:00.000Z lb1 haproxy[7]: ${line(0, true, '3/3 UP')}`,
    `Dec  1 10:00:30 lb1 haproxy[7]: ${line(30, false, '2/3 UP')}`,
    `Dec  1 10:00:30 lb1 haproxy[7]: Health check for server other-vip/web1 failed, reason: Layer4 timeout, check duration: 2001ms, status: 0/2 DOWN.`,
    `<29>Dec  1 10:00:35 lb1 haproxy[7]: ${line(35, false, '1/3 UP')}`,
    `lb1 haproxy[7]: [01/Dec/2026:10:00:40.000] ${line(40, false, '0/3 DOWN')}`,
    'Dec  1 10:00:40 lb1 haproxy[7]: Server web-vip/web1 is DOWN, reason: Layer4 connection problem. 0 active and 0 backup servers left.',
    `2026-12-01T10:00:50Z lb1 haproxy[7]: ${line(50, true, '1/2 DOWN')}`,
    `2026-12-01T10:00:55Z lb1 haproxy[7]: ${line(55, true, '3/3 UP')}`,
    '',
  ].join('\n'));
  const timers = ['--interval', '4s', '--retry-interval', '1s', '--fail-after', '2', '--restore-after', '3'];

  it('the lab\'s JSON history: the two runs side by side', async () => {
    const r = await runCli(['replay', workspace, '--member', 'web/web1', '--history', json, ...timers]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('replay web/web1: 10 results from lab history (JSON), 2026-12-01T10:00:00.000Z to 2026-12-01T10:01:05.000Z (65s)');
    expect(lines[1]).toBe('recorded timers: interval 10s, retryInterval 5s, failAfter 3, restoreAfter 2, timeout 2s');
    expect(lines[2]).toBe('replayed timers: interval 4s, retryInterval 1s, failAfter 2, restoreAfter 3, timeout 2s');
    expect(lines).toContain(`${'in service while failing'.padEnd(26)}${'10s'.padEnd(30)}3s`);
    expect(lines).toContain(`${'failure at +30s'.padEnd(26)}${'out after 10s'.padEnd(30)}out after 3s`);
    expect(lines).toContain('  +33s       available -> unavailable: connect ECONNREFUSED after 2 failures');
  });

  it('HAProxy log lines, the member\'s own backend only, three time formats: the same answer', async () => {
    const r = await runCli(['replay', workspace, '--member', 'web/web1', '--history', log, '--year', '2026', '--json', ...timers]);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as ReplayReport;
    expect(report).toMatchObject({ source: 'HAProxy log, backend web-vip', results: 6, end: at(55) });
    expect(changes(report.recorded)).toEqual(['0 unknown>available', '40 available>unavailable', '55 unavailable>available']);
    expect(changes(report.replayed)).toEqual(['0 unknown>available', '33 available>unavailable', '52 unavailable>available']);
    expect(report.replayed).toMatchObject({ checks: 29, servedWhileFailingMs: 3_000, outWhilePassingMs: 2_000 });
    expect(report.recorded.servedWhileFailingMs).toBe(10_000);
  });

  it('usage: an unknown member, a bad timer, a history with no lines for the member: exit 2, one line', async () => {
    const unknown = await runCli(['replay', workspace, '--member', 'web/web2', '--history', json]);
    expect(unknown).toMatchObject({ code: 2, stderr: 'lbdesk: --member: group web has no member web2 (did you mean "web1"?)\n' });
    const bad = await runCli(['replay', workspace, '--member', 'web/web1', '--history', json, '--fail-after', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^lbdesk: --fail-after 0: .+\n$/);
    const other = join(dir, 'other.log');
    writeFileSync(other, 'Dec  1 10:00:30 lb1 haproxy[7]: Health check for server app/web9 failed, reason: Layer4 timeout, check duration: 2001ms, status: 0/2 DOWN.\n');
    const none = await runCli(['replay', workspace, '--member', 'web/web1', '--history', other]);
    expect(none).toMatchObject({ code: 2, stderr: `lbdesk: ${other}: no health-check lines for web/web1 or web-vip/web1 (it has app/web9)\n` });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "results": [\n  { "at": 1, "ok": true },\n  oops ] }');
    const notJson = await runCli(['replay', workspace, '--member', 'web/web1', '--history', broken]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(new RegExp(`^lbdesk: ${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:3: not valid JSON`));
  });
});
