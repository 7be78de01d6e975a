// Push, pull and diff against a real OpenSSH sshd on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { diffConfig, listHistory, pullConfig, pushConfig, readHistory } from '../../../../main/services/sync';
import { makeAppliance, testOptions } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping sync push tests: /usr/sbin/sshd is not installed');

describe.skipIf(skipBecause(noSshd, 'push / pull / diff over sshd'))('push / pull / diff over a real sshd', () => {
  let sshd: Sshd;
  let noSftp: Sshd;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-push-'));
    sshd = await startSshd({ host: '127.0.8.1' });
    noSftp = await startSshd({ host: '127.0.8.1', dir: sshd.dir, sftp: false });
  });
  afterAll(async () => {
    await noSftp?.stop();
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** Bytes a text editor would not produce: CRLF, UTF-8, a NUL-free binary-ish tail, no final newline. */
  function awkward(tag: string, size = 200_000): Buffer {
    const head = Buffer.from(`ok ${tag}\r\nüñíçødé ✓\n\ttabs and 'quotes' "double" $(not run) \`nor this\`\n`);
    const body = Buffer.alloc(size);
    for (let i = 0; i < size; i++) body[i] = 1 + ((i * 7919 + tag.length) % 255);
    return Buffer.concat([head, body]);
  }

  it('push then pull round-trips byte for byte, keeps the mode, reloads once and records history', async () => {
    const app = makeAppliance(sshd, 'roundtrip', root);
    writeFileSync(app.live, 'ok old\n');
    chmodSync(app.live, 0o640);
    const opts = testOptions(sshd, app.dir);
    const data = awkward('v1');
    const r = await pushConfig(app.target, data, opts);
    expect(r.outcome, r.reason).toBe('applied');
    expect(readFileSync(app.live).equals(data)).toBe(true);
    expect(statSync(app.live).mode & 0o777).toBe(0o640);
    expect(app.reloads()).toBe(1);
    expect(app.extras().sort()).toEqual(['.app.cfg.lbdesk-lkg', '.app.cfg.lbdesk-lock']);
    expect(readFileSync(join(app.dir, '.app.cfg.lbdesk-lkg'), 'utf8')).toBe('ok old\n');

    const pulled = await pullConfig(app.target, opts);
    expect(pulled.data.equals(data)).toBe(true);

    const history = await listHistory(opts.dataDir!, app.name);
    expect(history.map((h) => h.kind)).toEqual(['before-push', 'push']);
    expect(history[1]!.outcome).toBe('applied');
    const stored = await readHistory(opts.dataDir!, app.name, history[1]!.id);
    expect(stored.data.equals(data)).toBe(true);
    const before = await readHistory(opts.dataDir!, app.name, history[0]!.id);
    expect(before.data.toString()).toBe('ok old\n');
  });

  it('a config path whose folder does not exist is refused, and says so', async () => {
    const app = makeAppliance(sshd, 'nofolder', root);
    const missing = join(app.dir, 'no-such-folder');
    const r = await pushConfig({ ...app.target, configPath: join(missing, 'app.cfg') }, 'ok\n', testOptions(sshd, app.dir));
    expect(r.outcome).toBe('refused');
    expect(r.reason).toBe(`cannot take the push lock ${join(missing, '.app.cfg.lbdesk-lock')}: the folder ${missing} does not exist on the appliance`);
  });

  it('a validation failure leaves the file, the reload count and the directory untouched', async () => {
    const app = makeAppliance(sshd, 'invalid', root);
    writeFileSync(app.live, 'ok running\n');
    const opts = testOptions(sshd, app.dir);
    const r = await pushConfig(app.target, 'broken config\n', opts);
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/validation failed \(exit 1\): invalid config: no ok line/);
    expect(app.read()).toBe('ok running\n');
    expect(app.reloads()).toBe(0);
    expect(app.extras()).toEqual(['.app.cfg.lbdesk-lock']);
    expect(r.steps.filter((s) => s.status === 'fail').map((s) => s.step)).toEqual(['validate']);
  });

  it('a failed reload restores the last-known-good file and reloads it', async () => {
    const app = makeAppliance(sshd, 'badreload', root);
    const old = awkward('old', 5000);
    writeFileSync(app.live, old);
    const opts = testOptions(sshd, app.dir);
    const r = await pushConfig(app.target, 'ok new\nfailreload\n', opts);
    expect(r.outcome, r.reason).toBe('rolled-back');
    expect(r.reason).toMatch(/reload failed \(exit 1\).*restored and reloaded/);
    expect(readFileSync(app.live).equals(old)).toBe(true);
    expect(app.reloads()).toBe(2);
    // The rolled-back version is in history, marked as such; the next push is not "changed on the appliance".
    const history = await listHistory(opts.dataDir!, app.name);
    expect(history.at(-1)!.outcome).toBe('rolled-back');
    expect((await pushConfig(app.target, 'ok fixed\n', opts)).outcome).toBe('applied');
  });

  it('pushing what is already there changes nothing', async () => {
    const app = makeAppliance(sshd, 'same', root);
    const opts = testOptions(sshd, app.dir);
    expect((await pushConfig(app.target, 'ok same\n', opts)).outcome).toBe('applied');
    const r = await pushConfig(app.target, 'ok same\n', opts);
    expect(r.outcome).toBe('unchanged');
    expect(app.reloads()).toBe(1);
  });

  it('refuses a remote file changed since the last push unless forced', async () => {
    const app = makeAppliance(sshd, 'drift', root);
    const opts = testOptions(sshd, app.dir);
    expect((await pushConfig(app.target, 'ok mine\n', opts)).outcome).toBe('applied');
    writeFileSync(app.live, 'ok edited by hand on the appliance\n');
    const r = await pushConfig(app.target, 'ok mine v2\n', opts);
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/changed on the appliance since the last pull or push/);
    expect(app.read()).toBe('ok edited by hand on the appliance\n');
    // A pull acknowledges the remote version; so does --force.
    await pullConfig(app.target, opts);
    expect((await pushConfig(app.target, 'ok mine v2\n', opts)).outcome).toBe('applied');
    writeFileSync(app.live, 'ok edited again\n');
    expect((await pushConfig(app.target, 'ok mine v3\n', { ...opts, force: true })).outcome).toBe('applied');
    expect(app.read()).toBe('ok mine v3\n');
  });

  it('refuses to replace a file edited on the appliance while the push validated it', async () => {
    const app = makeAppliance(sshd, 'race', root);
    writeFileSync(app.live, 'ok before\n');
    // The validate command doubles as "someone edits the live file right now".
    writeFileSync(join(app.dir, 'validate.sh'), `#!/bin/sh\necho 'ok concurrent edit' > '${app.live}'\n`);
    const r = await pushConfig(app.target, 'ok pushed\n', testOptions(sshd, app.dir));
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/changed on the appliance while pushing/);
    expect(app.read()).toBe('ok concurrent edit\n');
    expect(app.reloads()).toBe(0);
  });

  it('refuses concurrent pushes: in one process, and against another holder of the appliance lock', async () => {
    const app = makeAppliance(sshd, 'locked', root);
    const opts = testOptions(sshd, app.dir);
    const both = await Promise.all([pushConfig(app.target, 'ok a\n', opts), pushConfig(app.target, 'ok b\n', opts)]);
    expect(both.map((r) => r.outcome).sort()).toEqual(['applied', 'refused']);
    expect(both.find((r) => r.outcome === 'refused')!.reason).toMatch(/another push/);

    // Another lbdesk (or anything) holding the lock file on the appliance.
    const holder = spawn('flock', [join(app.dir, '.app.cfg.lbdesk-lock'), '-c', 'echo held; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    await new Promise((r) => holder.stdout!.once('data', r));
    try {
      const r = await pushConfig(app.target, 'ok c\n', opts);
      expect(r.outcome).toBe('refused');
      expect(r.reason).toMatch(/another push to .* is running/);
    } finally {
      process.kill(-holder.pid!, 'SIGKILL');
    }
    expect((await pushConfig(app.target, 'ok c\n', opts)).outcome).toBe('applied');
  });

  it('sweeps stale temp files of an interrupted push', async () => {
    const app = makeAppliance(sshd, 'stale', root);
    writeFileSync(join(app.dir, '.app.cfg.lbdesk-tmp-new-deadbeef'), 'half a config');
    const r = await pushConfig(app.target, 'ok\n', testOptions(sshd, app.dir));
    expect(r.outcome).toBe('applied');
    expect(r.notes.join()).toMatch(/removed 1 stale temp file/);
    expect(app.extras().filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it('--dry-run uploads and validates but never touches the live file', async () => {
    const app = makeAppliance(sshd, 'dry', root);
    writeFileSync(app.live, 'ok live\n');
    const opts = testOptions(sshd, app.dir, { dryRun: true });
    const good = await pushConfig(app.target, 'ok candidate\n', opts);
    expect(good.outcome).toBe('would-apply');
    const bad = await pushConfig(app.target, 'not ok\n', opts);
    expect(bad.outcome).toBe('refused');
    expect(app.read()).toBe('ok live\n');
    expect(app.reloads()).toBe(0);
    expect(app.extras().filter((f) => f.includes('tmp') || f.includes('lkg'))).toEqual([]);
  });

  it('works without the SFTP subsystem (plain exec transfer), byte for byte', async () => {
    const app = makeAppliance(noSftp, 'nosftp', root);
    const opts = testOptions(noSftp, app.dir);
    const data = awkward('exec', 100_000);
    const r = await pushConfig(app.target, data, opts);
    expect(r.outcome, r.reason).toBe('applied');
    expect(r.steps.find((s) => s.step === 'rename' && s.status === 'ok')!.message).toBe('mv');
    expect(readFileSync(app.live).equals(data)).toBe(true);
    expect((await pullConfig(app.target, opts)).data.equals(data)).toBe(true);
  });

  describe('verify: connect to the VIP from the appliance', () => {
    let vip: Server;
    let port: number;
    beforeAll(async () => {
      vip = createServer((s) => s.end());
      await new Promise<void>((r) => vip.listen(0, '127.0.8.30', () => r()));
      port = (vip.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => vip.close(() => r())));

    it('applies when the VIP answers', async () => {
      const app = makeAppliance(sshd, 'vip-ok', root);
      const r = await pushConfig({ ...app.target, verify: [{ address: '127.0.8.30', port }] }, 'ok\n', testOptions(sshd, app.dir));
      expect(r.outcome, r.reason).toBe('applied');
      expect(r.steps.some((s) => s.step === 'verify' && s.status === 'ok')).toBe(true);
    });

    it('rolls back when nothing answers on the VIP after the reload', async () => {
      const app = makeAppliance(sshd, 'vip-dead', root);
      writeFileSync(app.live, 'ok working\n');
      const dead = { address: '127.0.8.31', port };
      const r = await pushConfig({ ...app.target, verify: [dead] }, 'ok broken\n', testOptions(sshd, app.dir, { verifyTimeoutMs: 600 }));
      expect(r.outcome).toBe('rolled-back');
      expect(r.reason).toContain(`127.0.8.31:${port}`);
      expect(app.read()).toBe('ok working\n');
      expect(app.reloads()).toBe(2);
    });
  });

  it('restores a version from history', async () => {
    const app = makeAppliance(sshd, 'restore', root);
    const opts = testOptions(sshd, app.dir);
    await pushConfig(app.target, 'ok v1\n', opts);
    await pushConfig(app.target, 'ok v2\n', opts);
    const v1hash = createHash('sha256').update('ok v1\n').digest('hex');
    const v1 = (await listHistory(opts.dataDir!, app.name)).find((h) => h.kind === 'push' && h.hash === v1hash)!;
    const { data } = await readHistory(opts.dataDir!, app.name, v1.id);
    const r = await pushConfig(app.target, data, { ...opts, kind: 'restore' });
    expect(r.outcome).toBe('applied');
    expect(app.read()).toBe('ok v1\n');
    expect((await listHistory(opts.dataDir!, app.name)).at(-1)!.kind).toBe('restore');
  });

  it('diff shows a unified diff of the appliance file against the rendered one', async () => {
    const app = makeAppliance(sshd, 'diff', root);
    writeFileSync(app.live, 'ok\nline two\nline three\n');
    const opts = testOptions(sshd, app.dir);
    const d = await diffConfig(app.target, 'ok\nline 2\nline three\n', opts);
    expect(d.changed).toBe(true);
    expect(d.patch).toContain(`--- a${app.live}`);
    expect(d.patch).toContain('-line two\n+line 2\n');
    const same = await diffConfig(app.target, 'ok\nline two\nline three\n', opts);
    expect(same.changed).toBe(false);
    expect(same.patch).toBe('');
    // Volatile lines (a render timestamp) do not count as a change.
    writeFileSync(app.live, '# rendered 2026-01-01T00:00:00Z\nok\n');
    const masked = await diffConfig({ ...app.target, volatile: [/rendered \S+/] }, '# rendered 2026-11-29T21:00:00Z\nok\n', opts);
    expect(masked.changed).toBe(false);
  });

  it('diff never shows a password from the live config or the render, even a changed one', async () => {
    const app = makeAppliance(sshd, 'redact', root);
    writeFileSync(app.live, 'global\n  stats auth admin:OldStatsPw-1\nuserlist u\n  user ops insecure-password Plain9\n');
    const d = await diffConfig(app.target, 'global\n  stats auth admin:NewStatsPw-2\nuserlist u\n  user ops insecure-password Plain9\n', testOptions(sshd, app.dir));
    expect(d.changed).toBe(true);
    expect(d.patch).toContain('-  stats auth admin:<redacted>\n+  stats auth admin:<redacted>\n');
    for (const secret of ['OldStatsPw-1', 'NewStatsPw-2', 'Plain9']) expect(d.patch).not.toContain(secret);
  });

  it('diff of a file that is not UTF-8 keeps its bytes: the patch applies with patch(1)', async () => {
    const app = makeAppliance(sshd, 'latin1', root);
    const remote = Buffer.concat([Buffer.from('ok\n# caf'), Buffer.from([0xe9]), Buffer.from('\nold line\n')]);
    writeFileSync(app.live, remote);
    const rendered = Buffer.concat([Buffer.from('ok\n# caf'), Buffer.from([0xe9]), Buffer.from('\nnew line\n')]);
    const d = await diffConfig(app.target, rendered, testOptions(sshd, app.dir));
    expect(d).toMatchObject({ changed: true, encoding: 'latin1' });
    const copy = join(app.dir, 'copy.cfg');
    writeFileSync(copy, remote);
    const patched = spawnSync('patch', [copy], { input: Buffer.from(d.patch, 'latin1') });
    expect(patched.status, String(patched.stderr)).toBe(0);
    expect(readFileSync(copy).equals(rendered)).toBe(true);
  });
});
