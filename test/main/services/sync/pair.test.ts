// A rolling push to an HA pair of two real HAProxy boxes (master-worker), each behind its own
// loopback sshd, both serving the pair's virtual address (SO_REUSEPORT) and their own addresses.
// Standby validation fails: the active is untouched. Active reload fails: the standby goes back
// too. Both succeed: a client loop on the virtual address sees no error throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { confirmPush } from '../../../../main/services/sync';
import { pushPair, type PairBox } from '../../../../main/services/sync/pair';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { SshConfigSet } from '../../../../main/services/ssh';
import { freePort, haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { waitFor } from '../../../helpers/sync/fixture';
import { runCli } from '../../../helpers/cli';
import { windowServices } from '../../../helpers/app-services';
import { callDirect } from '../../../../main/services/api/dispatch';
import { stringify } from 'yaml';
import { skipBecause } from '../../../helpers/skip';

const HAPROXY = '/usr/sbin/haproxy';
const ready = haveSshd && existsSync(HAPROXY);
if (!ready) console.warn(`skipping the pair push test: ${haveSshd ? HAPROXY : '/usr/sbin/sshd'} is not installed`);

const VIP = '127.0.21.10';
const OWN = { h1: '127.0.21.1', h2: '127.0.21.2' } as const;
const BACKEND = { a: '127.0.21.41', b: '127.0.21.42' } as const;
type Box = keyof typeof OWN;

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

describe.skipIf(skipBecause(noSshd || (!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`), 'rolling push to an HA pair'))('rolling push to an HA pair of HAProxy boxes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-pair-push-'));
  const sshd = {} as Record<Box, Sshd>;
  const haproxy = {} as Record<Box, ChildProcess>;
  const logs: Record<Box, string> = { h1: '', h2: '' };
  const backends: Server[] = [];
  let backendPort: number;
  let vipPort: number;
  const cfg = (b: Box) => join(dir, b, 'haproxy.cfg');
  const pid = (b: Box) => join(dir, b, 'haproxy.pid');
  const flag = (b: Box) => join(dir, b, 'fail-next-reload');

  /** `server`: which backend the pushed config sends to; `strict`: the standby's validation also needs a file that is not there. */
  function workspace(server: 'a' | 'b', opts: { strict?: boolean } = {}): Workspace {
    return workspaceSchema.parse(workspaceInput(server, opts));
  }
  function workspaceInput(server: 'a' | 'b', opts: { strict?: boolean } = {}) {
    const box = (b: Box) => ({
      name: b, host: sshd[b].host, port: sshd[b].port, user: 'root', auth: 'key', keyFile: sshd[b].userKey.path, driver: 'haproxy',
      configPath: cfg(b), statsSocket: join(dir, b, 'admin.sock'),
      validateCommand: b === 'h2' && opts.strict ? `${HAPROXY} -c -q -f {file} -f ${join(dir, 'missing.cfg')}` : `${HAPROXY} -c -q -f {file}`,
      // A reload fails once when asked to (the flag file), without reloading; the rollback's reload works.
      reloadCommand: `if [ -e ${flag(b)} ]; then rm -f ${flag(b)}; echo 'reload refused (simulated)' >&2; exit 1; fi; kill -USR2 $(cat ${pid(b)})`,
    });
    return {
      lbdesk: 1, name: 'pair-push',
      servers: [{ name: 'a', address: BACKEND.a }, { name: 'b', address: BACKEND.b }],
      groups: [{ name: 'web', members: [{ server, port: backendPort }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'web-vip', address: VIP, port: vipPort, group: 'web' }],
      appliances: [box('h1'), box('h2')],
      pairs: [{ name: 'edge', interface: 'lo', members: [{ appliance: 'h1', address: OWN.h1 }, { appliance: 'h2', address: OWN.h2 }], instances: [{ id: 51, master: 'h1', services: ['web-vip'] }] }],
    };
  }
  const boxOf = (site: Workspace, b: Box): PairBox => {
    const p = openAppliance(site, site.appliances.find((a) => a.name === b)!, join(dir, 'site.yaml'));
    expect(p.errors).toEqual([]);
    return { name: b, items: [{ target: p.target, text: p.render.text }] };
  };
  const opts = () => ({ knownHostsFile: join(dir, 'known_hosts'), sshConfig: SshConfigSet.empty(), dataDir: join(dir, 'data'), verifyTimeoutMs: 5000 });
  const live = (b: Box) => readFileSync(cfg(b), 'utf8');
  const answer = (b: Box) => fetchText(OWN[b], vipPort);

  beforeAll(async () => {
    sshd.h1 = await startSshd({ host: OWN.h1 });
    sshd.h2 = await startSshd({ host: OWN.h2 });
    writeFileSync(join(dir, 'known_hosts'), `${sshd.h1.knownHostsLine}\n${sshd.h2.knownHostsLine}\n`);
    backendPort = await freePort(BACKEND.a);
    vipPort = await freePort(VIP);
    for (const [name, address] of [['A', BACKEND.a], ['B', BACKEND.b]] as const) {
      const s = createServer((_req, res) => res.end(`backend ${name}`));
      await new Promise<void>((r) => s.listen(backendPort, address, () => r()));
      backends.push(s);
    }
    // Both boxes start on version "a", written by hand; every later change is a push.
    const site = workspace('a');
    for (const b of ['h1', 'h2'] as const) {
      const { items } = boxOf(site, b);
      rmSync(join(dir, b), { recursive: true, force: true });
      mkdirSync(join(dir, b));
      writeFileSync(cfg(b), String(items[0]!.text));
      const h = spawn(HAPROXY, ['-W', '-f', cfg(b), '-p', pid(b)], { stdio: ['ignore', 'pipe', 'pipe'] });
      h.stdout!.on('data', (d) => (logs[b] += d));
      h.stderr!.on('data', (d) => (logs[b] += d));
      haproxy[b] = h;
      if (!(await waitFor(() => existsSync(pid(b)), 10_000))) throw new Error(`haproxy ${b} did not start: ${logs[b]}`);
    }
  }, 60_000);

  afterAll(async () => {
    for (const h of Object.values(haproxy)) {
      if (h.exitCode !== null) continue;
      const exited = new Promise((r) => h.once('exit', r));
      h.kill('SIGTERM');
      await exited;
    }
    for (const s of backends) await new Promise<void>((r) => s.close(() => r()));
    for (const s of Object.values(sshd)) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each box answers on its own address and on the virtual one', async () => {
    for (let i = 0; i < 50 && (await answer('h1')) !== 'backend A'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await answer('h1'), logs.h1).toBe('backend A');
    expect(await answer('h2'), logs.h2).toBe('backend A');
    expect(await fetchText(VIP, vipPort)).toBe('backend A');
    expect(live('h1')).toContain(`bind ${OWN.h1}:${vipPort}`);
  });

  it('standby validation fails: the active box is never touched', async () => {
    const before = { h1: live('h1'), h2: live('h2') };
    const site = workspace('b', { strict: true });
    const r = await pushPair('edge', boxOf(site, 'h2'), boxOf(site, 'h1'), opts());
    expect(r.outcome, r.reason).toBe('refused');
    expect(r.reason).toMatch(/^standby h2: h2 refused: .*validat/);
    expect(r.reason).toContain('h1 was not touched');
    expect(r.reports.map((x) => x.appliance)).toEqual(['h2']);
    expect(r.holds).toEqual({ h2: 'its previous config (the new one was refused before going live)', h1: 'its previous config (untouched)' });
    expect({ h1: live('h1'), h2: live('h2') }).toEqual(before);
    expect(await answer('h1')).toBe('backend A');
  }, 30_000);

  it('active reload fails: the active rolls back and the standby is put back on its previous config too', async () => {
    const before = { h1: live('h1'), h2: live('h2') };
    writeFileSync(flag('h1'), '');
    const site = workspace('b');
    const r = await pushPair('edge', boxOf(site, 'h2'), boxOf(site, 'h1'), opts());
    expect(r.outcome, r.reason).toBe('rolled-back');
    expect(r.reason).toMatch(/^active h1: h1 rolled-back: reload failed .*reload refused \(simulated\).*; h2 was put back on its previous config too$/);
    expect(r.reports.map((x) => `${x.appliance}:${x.outcome}`)).toEqual(['h2:applied', 'h1:rolled-back', 'h2:applied']);
    expect(r.holds).toEqual({ h2: 'its previous config (restored by lbdesk)', h1: 'its previous config (rolled back on the box)' });
    expect({ h1: live('h1'), h2: live('h2') }).toEqual(before);
    for (let i = 0; i < 50 && (await answer('h2')) !== 'backend A'; i++) await new Promise((res) => setTimeout(res, 100));
    expect(await answer('h1')).toBe('backend A');
    expect(await answer('h2')).toBe('backend A');
  }, 60_000);

  it('a failover test the standby does not pass: the standby goes back, the active is not pushed', async () => {
    const before = { h1: live('h1'), h2: live('h2') };
    const dead = await freePort(OWN.h2);
    const site = workspace('b');
    const failover = { release: 'true', restore: 'true', verify: [{ address: OWN.h2, port: dead }], timeoutMs: 1000 };
    const r = await pushPair('edge', boxOf(site, 'h2'), boxOf(site, 'h1'), { ...opts(), failover });
    expect(r.outcome, r.reason).toBe('rolled-back');
    expect(r.failover).toEqual({ ok: false, reason: `h2 did not answer on ${OWN.h2}:${dead} while h1 had let go (h1 took them back)` });
    expect(r.reports.map((x) => `${x.appliance}:${x.outcome}`)).toEqual(['h2:applied', 'h2:applied']);
    expect(r.holds).toEqual({ h2: 'its previous config (restored by lbdesk)', h1: 'its previous config (untouched)' });
    expect({ h1: live('h1'), h2: live('h2') }).toEqual(before);
  }, 60_000);

  it('both succeed, commit-confirmed on both, and a client on the virtual address never sees an error', async () => {
    const tries: string[] = [];
    let stop = false;
    const loop = (async () => {
      const until = Date.now() + 40_000;
      for (let i = 0; i < 2000 && !stop && Date.now() < until; i++) {
        tries.push(await fetchText(VIP, vipPort));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const site = workspace('b');
    const r = await pushPair('edge', boxOf(site, 'h2'), boxOf(site, 'h1'), { ...opts(), confirmWithinMs: 60_000 });
    await new Promise((res) => setTimeout(res, 300));
    stop = true;
    await loop;
    expect(r.outcome, r.reason).toBe('applied');
    expect(r.reason).toMatch(/h2 then h1 pushed, reloaded and verified; commit-confirmed on both boxes/);
    expect(r.reports.map((x) => `${x.appliance}:${x.outcome}`)).toEqual(['h2:applied', 'h1:applied']);
    expect(r.reports.every((x) => x.pending !== undefined)).toBe(true);
    // Each box was verified on its own address.
    expect(r.reports[0]!.steps.find((s) => s.step === 'verify' && s.status === 'start')?.message).toBe(`${OWN.h2}:${vipPort}`);
    const errors = tries.filter((t) => !t.startsWith('backend '));
    console.log(`pair push: ${tries.length} requests on the virtual address during the push, ${errors.length} errors; push ${r.reports.reduce((n, x) => n + x.durationMs, 0)} ms`);
    expect(errors).toEqual([]);
    expect(tries.at(-1)).toBe('backend B');
    for (const b of ['h2', 'h1'] as const) {
      const p = boxOf(site, b).items[0]!.target;
      expect((await confirmPush(p, opts())).outcome).toBe('confirmed');
    }
  }, 90_000);

  it('lbdesk push --pair: standby first, says which box runs what; confirm --pair confirms both', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, stringify(workspaceInput('a')));
    writeFileSync(join(dir, 'ssh_config'), '');
    const common = ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
    const env = { LBDESK_DATA_DIR: join(dir, 'data') };
    const r = await runCli(['push', file, '--pair', 'edge', '--confirm-within', '60s', ...common], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/pair edge: h2 \(standby\) first, then h1 \(active\)/);
    expect(r.stderr.indexOf('h2: reload ok')).toBeLessThan(r.stderr.indexOf('h1: reload ok'));
    expect(r.stdout).toContain('pair edge: applied: h2 then h1 pushed, reloaded and verified');
    expect(r.stdout).toMatch(/h2 \(standby\) runs the new config\nh1 \(active\) runs the new config/);
    expect(r.stdout).toContain(`confirm both with: lbdesk confirm ${file} --pair edge`);
    const c = await runCli(['confirm', file, '--pair', 'edge', ...common], { env });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^h1: confirmed.*\nh2: confirmed/);
    expect(await answer('h1')).toBe('backend A');
  }, 90_000);

  it('lbdesk push --pair keeps a drain: named before, set again on the new worker after that box\'s reload', async () => {
    const file = join(dir, 'site.yaml');
    const common = ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
    const env = { LBDESK_DATA_DIR: join(dir, 'data') };
    const member = `web/a:${backendPort}`;
    const d = await runCli(['drain', file, '--appliance', 'h1', member, ...common], { env });
    expect(d.code, d.stderr).toBe(0);
    const input = workspaceInput('a');
    (input.services[0] as { idleTimeout?: string }).idleTimeout = '5m';
    writeFileSync(file, stringify(input));
    const r = await runCli(['push', file, '--pair', 'edge', ...common], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`lbdesk: h1: keeps drain on ${member} \\(since \\S+, by \\S+\\)`));
    expect(r.stdout).toMatch(new RegExp(`h1: note: kept drain on ${member} \\(since .*\\): set again after the reload`));
    expect(r.stdout).not.toMatch(/h2: note: kept/);
    expect(live('h1')).toContain('timeout client 5m');
    const s = await runCli(['state', file, '--appliance', 'h1', '--json', ...common], { env });
    expect(JSON.parse(s.stdout).members[0]).toMatchObject({ admin: 'drain' });
    const h2 = await runCli(['state', file, '--appliance', 'h2', '--json', ...common], { env });
    expect(JSON.parse(h2.stdout).members[0]).toMatchObject({ admin: 'ready' });
  }, 90_000);

  it('the window\'s pair push keeps the drain too (one preparation with lbdesk push --pair)', async () => {
    const file = join(dir, 'site.yaml');
    const common = ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
    const env = { LBDESK_DATA_DIR: join(dir, 'data') };
    const member = `web/a:${backendPort}`;
    const svc = windowServices(dir);
    writeFileSync(file, stringify(workspaceInput('a')));
    const d = await runCli(['drain', file, '--appliance', 'h1', member, ...common], { env });
    expect(d.code, d.stderr).toBe(0);
    const input = workspaceInput('a');
    (input.services[0] as { idleTimeout?: string }).idleTimeout = '6m';
    writeFileSync(file, stringify(input));
    const r = await callDirect(svc.handlers, 'appliance.pushPair', { path: file, pair: 'edge' });
    expect(r.outcome, r.reason).toBe('applied');
    expect(r.boxes.map((b) => b.name)).toEqual(['h2', 'h1']);
    expect(live('h1')).toContain('timeout client 6m');
    const s = await runCli(['state', file, '--appliance', 'h1', '--json', ...common], { env });
    expect(JSON.parse(s.stdout).members[0]).toMatchObject({ admin: 'drain' });
  }, 90_000);
});
