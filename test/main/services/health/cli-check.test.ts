// `lbdesk check` as a user runs it: the real CLI in a child process, real servers on
// loopback (127.0.4.80-89), rows, JSON shape and Nagios-style exit codes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../../helpers/cli';
import { freePort, startHttpServer, startRadiusServer, startTcpListener, type Running } from '../../../helpers/servers';

const open: Running[] = [];
let dir: string;
let file: string;
let bad: string;
const secret = `s-${process.pid}-${Date.now()}`; // made up per run, never a fixture

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-check-'));
  const web = await startHttpServer('127.0.4.80', (req, res) => res.end(req.url === '/status' ? 'status OK' : 'no'));
  const slow = await startHttpServer('127.0.4.81', (_req, res) => setTimeout(() => res.end('status OK'), 400));
  const tsl = await startTcpListener('127.0.4.83');
  const radius = await startRadiusServer('127.0.4.84', { secret, reply: 2 });
  open.push(web, slow, tsl, radius);
  const closed = await freePort('127.0.4.82');
  const workspace = {
    lbdesk: 1,
    name: 'cli-check',
    healthTimers: { timeout: '3s' },
    servers: [
      { name: 'web1', address: '127.0.4.80' },
      { name: 'slow1', address: '127.0.4.81' },
      { name: 'dead1', address: '127.0.4.82' },
      { name: 'off1', address: '127.0.4.82', enabled: false },
      { name: 'rad1', address: '127.0.4.84' },
    ],
    groups: [
      { name: 'web', members: [{ server: 'web1', port: web.port }], healthCheck: { type: 'http', http: { path: '/status', expect: 'OK' } } },
      { name: 'slow', members: [{ server: 'slow1', port: slow.port }], healthCheck: { type: 'http', http: { path: '/status', expect: 'OK' }, degradedAbove: '200ms', availableBelow: '100ms' } },
      { name: 'mixed', members: [{ server: 'web1', port: web.port }, { server: 'dead1', port: closed }, { server: 'off1', port: closed }] },
      { name: 'aaa', members: [{ server: 'rad1', port: radius.port }], healthCheck: { type: 'radius', radius: { secret: 'lab-radius' } } },
    ],
    targetSets: [{ number: 3, address: '127.0.4.85', ports: [tsl.port], servers: [{ address: '127.0.4.83', description: 'DA-MP 1' }] }],
  };
  file = join(dir, 'site.yaml');
  writeFileSync(file, stringify(workspace));
  bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'lbdesk: 1\nname: bad\nhealthTimers:\n  interval: soon\n');
});

afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('lbdesk check', () => {
  it('prints one row per member; JSON has the contract shape; exit 2 when some member is unavailable', async () => {
    // Generous child timeouts: six CLI processes on a busy two-core machine are slow to start.
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { env, timeoutMs: 150_000 });
    const [json, table, available] = await Promise.all([
      run(['check', file, '--json'], { LBDESK_SECRET_LAB_RADIUS: secret }),
      run(['check', file]),
      run(['check', file, '--group', 'web']),
    ]);
    const [degraded, unknownGroup, invalid, targetSet] = await Promise.all([
      run(['check', file, '--group', 'slow', '--json']),
      run(['check', file, '--group', 'nope']),
      run(['check', bad]),
      // Target-set members are listed as tsN: the same name selects them.
      run(['check', file, '--group', 'ts3', '--json']),
    ]);

    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout) as { members: Record<string, unknown>[] };
    expect(doc.members.map((m) => [m.group ?? `ts${m.targetSet}`, m.server, m.state])).toEqual([
      ['web', 'web1', 'available'],
      ['slow', 'slow1', 'degraded'],
      ['mixed', 'web1', 'available'],
      ['mixed', 'dead1', 'unavailable'],
      ['mixed', 'off1', 'unavailable'],
      ['aaa', 'rad1', 'available'],
      ['ts3', '127.0.4.83', 'available'],
    ]);
    const web1 = doc.members[0]!;
    expect(Object.keys(web1)).toEqual(['group', 'server', 'address', 'port', 'check', 'layer', 'state', 'score', 'rttMs', 'reason']);
    expect(web1).toMatchObject({ address: '127.0.4.80', check: 'http', layer: 7 });
    expect(web1.score).toBeGreaterThanOrEqual(4); // available: 4-10, by response time (docs/health.md)
    expect(web1.reason).toBe('HTTP/1.1 200, "OK" found in first 1000 bytes');
    expect(doc.members[2]).toMatchObject({ check: 'tcp', layer: 4 }); // auto on a non-well-known port
    expect(doc.members[3]).toMatchObject({ reason: 'connect ECONNREFUSED', score: 1 });
    expect(doc.members[4]).toMatchObject({ state: 'unavailable', reason: 'disabled' });
    expect(doc.members[5]).toMatchObject({ check: 'radius', reason: expect.stringMatching(/^Status-Server answered Access-Accept/) });
    expect(doc.members[6]).toMatchObject({ targetSet: 3, check: 'tcp', layer: 4 });
    for (const m of doc.members) expect(Number.isInteger(m.score) && (m.score as number) >= 1 && (m.score as number) <= 10).toBe(true);

    // Without the secret in the environment the RADIUS member cannot be checked.
    expect(table.code).toBe(2);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^GROUP +SERVER +ADDRESS +PORT +CHECK +STATE +SCORE +RTT +REASON$/);
    expect(lines.find((l) => l.startsWith('aaa'))).toContain('shared secret "lab-radius" is not in the secret store');
    expect(lines.find((l) => l.includes('off1'))).toMatch(/unavailable +1 +- +disabled$/);
    expect(lines.at(-1)).toBe('7 members: 3 available, 1 degraded, 3 unavailable');

    expect(available.code).toBe(0);
    expect(available.stdout).toContain('1 member: 1 available, 0 degraded, 0 unavailable');
    expect(degraded.code).toBe(1);
    expect(JSON.parse(degraded.stdout).members[0]).toMatchObject({ state: 'degraded', score: expect.any(Number) });

    expect(unknownGroup.code).toBe(3);
    expect(unknownGroup.stderr.trim()).toBe('lbdesk: unknown group "nope" (known: web, slow, mixed, aaa, ts3)');
    expect(targetSet.code).toBe(0);
    expect(JSON.parse(targetSet.stdout).members.map((m: { targetSet?: number; server: string }) => [m.targetSet, m.server])).toEqual([[3, '127.0.4.83']]);
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toMatch(/bad\.yaml:4:13: healthTimers\.interval: "soon" is not a duration/);
    expect(invalid.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 300_000);
});
