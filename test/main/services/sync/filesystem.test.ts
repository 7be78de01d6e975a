// A full, read-only or immutable config folder: every push is refused in the OS's own words,
// the live file stays as it was, and nothing of lbdesk's is left behind but its lock file.
// The folder is a tiny tmpfs the test mounts and removes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushConfig } from '../../../../main/services/sync';
import { haveRoot } from '../../../helpers/boxes';
import { haveSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { makeAppliance, testOptions, type TestAppliance } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

const why = !haveRoot ? 'not root (mount)' : !haveSshd ? 'no sshd' : '';
if (why) console.warn(`skipping the full/read-only/immutable filesystem tests: ${why}`);

/** Whether this kernel's tmpfs takes chattr +i (it does since Linux 6.0). */
function immutableWorks(dir: string): boolean {
  const probe = join(dir, 'probe');
  writeFileSync(probe, 'x');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'pipe' });
    execFileSync('chattr', ['-i', probe], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

describe.skipIf(skipBecause(why, 'full, read-only or immutable config folder'))('a full, read-only or immutable config folder', () => {
  let root: string;
  let mnt: string;
  let sshd: Sshd;
  let app: TestAppliance;
  const fillers: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-fs-'));
    mnt = join(root, 'mnt');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0755', 'lbdesk-test', mnt]);
    sshd = await startSshd({ host: '127.0.9.51', sftp: true });
    app = makeAppliance(sshd, 'app', mnt);
    writeFileSync(app.live, 'ok v1\n', { mode: 0o640 });
  }, 30_000);
  afterEach(() => {
    try { execFileSync('chattr', ['-i', app.live], { stdio: 'ignore' }); } catch { /* not set */ }
    try { execFileSync('mount', ['-o', 'remount,rw', mnt], { stdio: 'ignore' }); } catch { /* already rw */ }
    for (const f of fillers.splice(0)) rmSync(f, { force: true });
  });
  afterAll(async () => {
    await sshd?.stop();
    if (mnt) { try { execFileSync('umount', [mnt], { stdio: 'ignore' }); } catch { /* not mounted */ } }
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Fills the filesystem with 4 KiB files (bounded), then frees `keep` of them. */
  function fill(keep: number): void {
    // The lock file holds its page already (the holder line a push writes reuses it).
    writeFileSync(join(app.dir, '.app.cfg.lbdesk-lock'), 'x'.repeat(200));
    for (let i = 0; i < 200; i++) {
      const f = join(mnt, `filler-${i}`);
      try {
        writeFileSync(f, Buffer.alloc(4096));
        fillers.push(f);
      } catch {
        rmSync(f, { force: true });
        break;
      }
    }
    for (let i = 0; i < keep; i++) unlinkSync(fillers.pop()!);
  }
  const leftovers = () => app.extras().filter((f) => !f.endsWith('-lock'));
  const opts = () => testOptions(sshd, root, { dataDir: join(root, 'data') });

  for (const transfer of ['auto', 'exec'] as const) {
    it(`full (${transfer === 'auto' ? 'SFTP' : 'exec'} upload): "No space left on device", nothing left behind`, async () => {
      fill(0);
      const r = await pushConfig({ ...app.target, transfer }, `ok v2\n${'x'.repeat(8000)}\n`, { ...opts(), force: true });
      expect(r.outcome).toBe('refused');
      expect(r.reason).toMatch(/^cannot write \S+\.app\.cfg\.lbdesk-tmp-new-\w+: No space left on device$/);
      expect(app.read()).toBe('ok v1\n');
      expect(leftovers()).toEqual([]);
    });
  }

  it('room for the upload but not for the commit-confirmed marker: refused in the OS\'s words, no 0-byte marker', async () => {
    fill(1);
    const r = await pushConfig(app.target, 'ok v3\n', { ...opts(), force: true, confirmWithinMs: 20_000 });
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/^cannot write the pending marker \S+: No space left on device$/);
    expect(app.read()).toBe('ok v1\n');
    expect(leftovers().filter((f) => f !== '.app.cfg.lbdesk-lkg')).toEqual([]);
  });

  it('read-only: refused at the lock with "Read-only file system"', async () => {
    execFileSync('mount', ['-o', 'remount,ro', mnt]);
    const r = await pushConfig(app.target, 'ok v4\n', { ...opts(), force: true });
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/cannot write \S+\.app\.cfg\.lbdesk-lock: Read-only file system/);
    expect(app.read()).toBe('ok v1\n');
  });

  it('immutable live file: refused at the rename with "Operation not permitted", nothing left behind', async (ctx) => {
    if (skipBecause(!immutableWorks(mnt) && 'this kernel\'s tmpfs does not take chattr +i', 'immutable config folder')) ctx.skip();
    // The backup of an earlier push is a hard link: the same inode, immutable too. Without it the push gets to the rename.
    rmSync(join(app.dir, '.app.cfg.lbdesk-lkg'), { force: true });
    execFileSync('chattr', ['+i', app.live]);
    const r = await pushConfig(app.target, 'ok v5\n', { ...opts(), force: true });
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/^cannot replace \S+app\.cfg: Operation not permitted \(immutable\? lsattr shows an "i"; chattr -i clears it\)$/);
    expect(app.read()).toBe('ok v1\n');
    expect(leftovers().filter((f) => f !== '.app.cfg.lbdesk-lkg')).toEqual([]);
    expect(app.reloads()).toBe(0);
  });
});
