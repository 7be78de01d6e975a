// End to end: a real HAProxy in master-worker mode on loopback, configured only by pushes over
// a real sshd; client traffic follows the pushed config.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { pushConfig } from '../../../../main/services/sync';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { freePort, haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { testOptions, waitFor } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

const HAPROXY = '/usr/sbin/haproxy';
const ready = haveSshd && existsSync(HAPROXY);
if (!ready) console.warn(`skipping HAProxy end-to-end sync test: ${haveSshd ? HAPROXY : '/usr/sbin/sshd'} is not installed`);

function fetchText(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = get({ host, port, path: '/', agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', (e) => resolve(`error: ${e.message}`));
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/** New connections reach the new workers within moments of a reload: poll briefly, bounded. */
async function answersAt(host: string, port: number, want: string): Promise<string> {
  let got = '';
  for (let i = 0; i < 50 && got !== want; i++) {
    got = await fetchText(host, port);
    if (got !== want) await new Promise((r) => setTimeout(r, 100));
  }
  return got;
}

describe.skipIf(skipBecause(noSshd || (!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`), 'push to a real HAProxy'))('push to a real HAProxy (master-worker)', () => {
  let sshd: Sshd;
  let dir: string;
  let haproxy: ChildProcess;
  let haproxyLog = '';
  const backends: Server[] = [];
  let backendPort: number;
  let vipPort: number;
  const vip = '127.0.8.40';

  function workspace(server: 'a' | 'b'): Workspace {
    return workspaceSchema.parse({
      lbdesk: 1,
      name: 'e2e',
      servers: [{ name: 'a', address: '127.0.8.41' }, { name: 'b', address: '127.0.8.42' }],
      groups: [{ name: 'web', members: [{ server, port: backendPort }] }],
      services: [{ name: 'web-vip', address: vip, port: vipPort, group: 'web' }],
      appliances: [{
        name: 'lab-haproxy', host: sshd.host, port: sshd.port, user: 'root', auth: 'key', keyFile: sshd.userKey.path, driver: 'haproxy',
        configPath: join(dir, 'haproxy.cfg'),
        validateCommand: `${HAPROXY} -c -q -f {file}`,
        reloadCommand: `kill -USR2 $(cat ${join(dir, 'haproxy.pid')})`,
      }],
    });
  }
  const answers = (want: string) => answersAt(vip, vipPort, want);
  const prepared = (server: 'a' | 'b') => {
    const site = workspace(server);
    return openAppliance(site, site.appliances[0]!, join(dir, 'site.yaml'));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-haproxy-'));
    sshd = await startSshd({ host: '127.0.8.12' });
    backendPort = await freePort('127.0.8.41');
    vipPort = await freePort(vip);
    for (const [name, address] of [['A', '127.0.8.41'], ['B', '127.0.8.42']] as const) {
      const s = createServer((_req, res) => res.end(`backend ${name}`));
      await new Promise<void>((r) => s.listen(backendPort, address, () => r()));
      backends.push(s);
    }
    // The appliance starts with version "a", written by hand; every later change is a push.
    const first = prepared('a');
    writeFileSync(first.target.configPath, first.render.text);
    haproxy = spawn(HAPROXY, ['-W', '-f', first.target.configPath, '-p', join(dir, 'haproxy.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (d) => (haproxyLog += d));
    haproxy.stderr!.on('data', (d) => (haproxyLog += d));
    const up = await waitFor(() => existsSync(join(dir, 'haproxy.pid')), 10_000);
    if (!up) throw new Error(`haproxy did not start: ${haproxyLog}`);
  });
  afterAll(async () => {
    if (haproxy && haproxy.exitCode === null) {
      const exited = new Promise((r) => haproxy.once('exit', r));
      haproxy.kill('SIGTERM');
      await exited;
    }
    for (const s of backends) await new Promise<void>((r) => s.close(() => r()));
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('traffic follows the pushed config; an invalid config is refused by haproxy -c and changes nothing', async () => {
    expect(await answers('backend A'), haproxyLog).toBe('backend A');

    const opts = testOptions(sshd, dir);
    const b = prepared('b');
    expect(b.errors).toEqual([]);
    expect(b.target.verify).toEqual([{ address: vip, port: vipPort }]);
    const r = await pushConfig(b.target, b.render.text, opts);
    expect(r.outcome, `${r.reason}\n${haproxyLog}`).toBe('applied');
    expect(r.steps.some((s) => s.step === 'verify' && s.status === 'ok')).toBe(true);
    expect(await answers('backend B'), haproxyLog).toBe('backend B');

    const before = readFileSync(b.target.configPath, 'utf8');
    const bad = await pushConfig(b.target, `${before}\nbackend broken\n    server x 127.0.8.43:notaport\n`, opts);
    expect(bad.outcome).toBe('refused');
    expect(bad.reason).toMatch(/validation failed/);
    expect(readFileSync(b.target.configPath, 'utf8')).toBe(before);
    expect(await fetchText(vip, vipPort)).toBe('backend B');

    // And back to A through the same path.
    const a = prepared('a');
    expect((await pushConfig(a.target, a.render.text, opts)).outcome).toBe('applied');
    expect(await answers('backend A'), haproxyLog).toBe('backend A');
  }, 90_000);
});
