// Commit-confirmed against a real sshd: the timer runs on the appliance, detached from SSH.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { confirmPush, diffConfig, listHistory, pushConfig } from '../../../../main/services/sync';
import { makeAppliance, testOptions, waitFor, type TestAppliance } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping commit-confirmed tests: /usr/sbin/sshd is not installed');

/** Pids of confirm timers watching this appliance's marker (none must survive a failed push or a confirm). */
function timers(app: TestAppliance): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes('lbdesk-confirm') && l.includes(app.dir)).map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** The processes a timer started (its `sleep`): they must end with it. */
function childrenOf(pids: number[]): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim().split(/\s+/).map(Number)).filter(([, ppid]) => pids.includes(ppid!)).map(([pid]) => pid!);
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(skipBecause(noSshd, 'commit-confirmed'))('commit-confirmed', () => {
  let sshd: Sshd;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-confirm-'));
    sshd = await startSshd({ host: '127.0.8.2' });
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('restores the previous config and reloads when no confirm arrives in time', async () => {
    const app = makeAppliance(sshd, 'timeout', root);
    writeFileSync(app.live, 'ok v1\n');
    const opts = testOptions(sshd, app.dir);
    const r = await pushConfig(app.target, 'ok v2\n', { ...opts, confirmWithinMs: 1000 });
    expect(r.outcome, r.reason).toBe('applied');
    expect(r.pending?.deadline).toBeGreaterThan(Date.now() - 1000);
    expect(app.read()).toBe('ok v2\n');
    expect(app.reloads()).toBe(1);
    expect(await waitFor(() => app.read() === 'ok v1\n' && app.reloads() === 2, 8000)).toBe(true);
    expect(await waitFor(() => timers(app).length === 0, 3000)).toBe(true);
    // The next run tells the user what happened, and the restored file is not "changed on the appliance".
    const next = await pushConfig(app.target, 'ok v3\n', opts);
    expect(next.outcome, next.reason).toBe('applied');
    expect(next.notes.join()).toMatch(/was not confirmed: the appliance restored the previous config/);
    expect((await confirmPush(app.target, opts)).outcome).toBe('none');
    // The history says so too: the v2 push is rolled back, not "applied".
    const pushes = (await listHistory(opts.dataDir!, app.target.appliance)).filter((e) => e.kind === 'push');
    expect(pushes.map((e) => [e.outcome, e.confirm])).toEqual([['rolled-back', 'rolled-back'], ['applied', undefined]]);
  });

  it('a service the rollback\'s reload starts does not keep the push lock (the next push goes through)', async () => {
    const app = makeAppliance(sshd, 'daemon', root);
    // A reload that leaves a long-running process behind, as `haproxy -D -sf` does.
    const pidFile = join(app.dir, 'daemon.pid');
    writeFileSync(app.target.reloadCommand, `#!/bin/sh\necho reload >> '${join(app.dir, 'reloads')}'\nsleep 60 </dev/null >/dev/null 2>&1 &\necho $! >> '${pidFile}'\n`);
    writeFileSync(app.live, 'ok v1\n');
    const opts = testOptions(sshd, app.dir);
    try {
      expect((await pushConfig(app.target, 'ok v2\n', { ...opts, confirmWithinMs: 1000 })).outcome).toBe('applied');
      expect(await waitFor(() => app.read() === 'ok v1\n' && app.reloads() === 2, 8000)).toBe(true);
      expect(await waitFor(() => timers(app).length === 0, 3000)).toBe(true);
      const next = await pushConfig(app.target, 'ok v3\n', opts);
      expect(next.outcome, next.reason).toBe('applied');
    } finally {
      // Each reload left a sleeper behind: end them.
      const pids = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number) : [];
      for (const pid of pids) {
        try {
          process.kill(pid);
        } catch {
          // already gone
        }
      }
    }
  });

  it('confirm keeps the new config and stops the timer', async () => {
    const app = makeAppliance(sshd, 'keep', root);
    writeFileSync(app.live, 'ok v1\n');
    const opts = testOptions(sshd, app.dir);
    expect((await pushConfig(app.target, 'ok v2\n', { ...opts, confirmWithinMs: 1500 })).outcome).toBe('applied');
    expect(timers(app)).toHaveLength(1);
    const sleepers = childrenOf(timers(app));
    expect(sleepers.length).toBeGreaterThan(0);
    const c = await confirmPush(app.target, opts);
    expect(c.outcome).toBe('confirmed');
    expect(await waitFor(() => timers(app).length === 0, 3000)).toBe(true);
    // Its sleep too (dash's kill refused "--", so only the shell died and sleep ran on).
    expect(await waitFor(() => sleepers.every((pid) => !alive(pid)), 3000)).toBe(true);
    await new Promise((r) => setTimeout(r, 2000)); // proves a negative: past the window, no rollback
    expect(app.read()).toBe('ok v2\n');
    expect(app.reloads()).toBe(1);
    expect(app.extras().sort()).toEqual(['.app.cfg.lbdesk-lkg', '.app.cfg.lbdesk-lock']);
    expect((await confirmPush(app.target, opts)).outcome).toBe('none');
    const [entry] = (await listHistory(opts.dataDir!, app.target.appliance)).filter((e) => e.kind === 'push');
    expect([entry?.outcome, entry?.confirm]).toEqual(['applied', 'confirmed']);
  });

  it('confirm after the timer fired says too late, and the history records the rollback', async () => {
    const app = makeAppliance(sshd, 'late', root);
    writeFileSync(app.live, 'ok v1\n');
    const opts = testOptions(sshd, app.dir);
    expect((await pushConfig(app.target, 'ok v2\n', { ...opts, confirmWithinMs: 1000 })).outcome).toBe('applied');
    expect((await listHistory(opts.dataDir!, app.target.appliance)).find((e) => e.kind === 'push')?.confirm).toBe('pending');
    expect(await waitFor(() => app.read() === 'ok v1\n' && app.reloads() === 2, 8000)).toBe(true);
    expect(await waitFor(() => timers(app).length === 0, 3000)).toBe(true);
    // A diff (read-only, no lock) already learns it, and the history with it.
    const d = await diffConfig(app.target, 'ok v2\n', opts);
    expect(d.rolledBack).toMatchObject({ at: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(d.pending).toBeUndefined();
    expect((await listHistory(opts.dataDir!, app.target.appliance)).find((e) => e.kind === 'push')?.outcome).toBe('rolled-back');
    const c = await confirmPush(app.target, opts);
    expect(c.outcome).toBe('too-late');
    expect(c.reason).toMatch(/^too late: the appliance restored the previous config at /);
    const entry = (await listHistory(opts.dataDir!, app.target.appliance)).find((e) => e.kind === 'push');
    expect([entry?.outcome, entry?.confirm]).toEqual(['rolled-back', 'rolled-back']);
    expect(typeof entry?.settledAt).toBe("number");
  });

  it('refuses a second push while one is pending', async () => {
    const app = makeAppliance(sshd, 'second', root);
    const opts = testOptions(sshd, app.dir);
    expect((await pushConfig(app.target, 'ok v1\n', { ...opts, confirmWithinMs: 20_000 })).outcome).toBe('applied');
    const r = await pushConfig(app.target, 'ok v2\n', opts);
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/commit-confirmed push .* is pending until/);
    // The pending push comes with the refusal (the window shows its countdown and Confirm from it).
    expect(r.pending).toEqual({ deadline: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(r.pending!.deadline).toBeGreaterThan(Date.now());
    // A diff says so too (the window brings back the countdown and Confirm from it).
    const d = await diffConfig(app.target, 'ok v2\n', opts);
    expect(d.pending).toEqual(r.pending);
    expect(d.rolledBack).toBeUndefined();
    expect(app.read()).toBe('ok v1\n');
    expect((await confirmPush(app.target, opts)).outcome).toBe('confirmed');
    expect((await pushConfig(app.target, 'ok v2\n', opts)).outcome).toBe('applied');
  });

  it('a failed push leaves no armed timer', async () => {
    const app = makeAppliance(sshd, 'nofail', root);
    writeFileSync(app.live, 'ok v1\n');
    const opts = testOptions(sshd, app.dir, { confirmWithinMs: 1000 });
    expect((await pushConfig(app.target, 'invalid\n', opts)).outcome).toBe('refused');
    const r = await pushConfig(app.target, 'ok v2\nfailreload\n', opts);
    expect(r.outcome).toBe('rolled-back');
    expect(timers(app)).toEqual([]);
    expect(existsSync(join(app.dir, '.app.cfg.lbdesk-pending'))).toBe(false);
    await new Promise((r) => setTimeout(r, 1800)); // proves a negative: past the window, no timer fires
    expect(app.read()).toBe('ok v1\n');
    expect(app.reloads()).toBe(2);
  });

  it('heals a push that cuts off its own management connection', async () => {
    const app = makeAppliance(sshd, 'cutoff', root);
    writeFileSync(app.live, 'ok reachable\n');
    // A reload that takes the SSH session down with it, like a firewall rule gone wrong.
    // It kills the nearest sshd ancestor: the session process serving this connection.
    writeFileSync(app.target.reloadCommand, [
      '#!/bin/sh',
      `echo reload >> '${join(app.dir, 'reloads')}'`,
      `grep -q '^cutme' '${app.live}' || exit 0`,
      'p=$PPID',
      'while [ "$p" -gt 1 ] && [ "$(ps -o comm= -p "$p")" != sshd ]; do p=$(ps -o ppid= -p "$p" | tr -d " "); done',
      '[ "$p" -gt 1 ] && kill -9 "$p"',
      '',
    ].join('\n'));
    const opts = testOptions(sshd, app.dir);
    const r = await pushConfig(app.target, 'ok\ncutme\n', { ...opts, confirmWithinMs: 1500 });
    expect(r.outcome).toBe('failed');
    expect(r.reason).toMatch(/restores the previous config by itself/);
    expect(app.read()).toBe('ok\ncutme\n');
    expect(await waitFor(() => app.read() === 'ok reachable\n', 8000)).toBe(true);
    expect(await waitFor(() => app.reloads() === 2, 3000)).toBe(true);
    const next = await pushConfig(app.target, 'ok reachable v2\n', opts);
    expect(next.outcome, next.reason).toBe('applied');
    expect(readFileSync(app.live, 'utf8')).toBe('ok reachable v2\n');
  });
});
