// `become: sudo` against a real sshd and sudo: non-root users push a root-owned HAProxy config
// (0640 root:root in a root-only folder) — one with a NOPASSWD rule, one whose rule asks for a
// password, one whose rule allows only haproxy. Rules live in /etc/sudoers.d for the test only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import { pushConfig } from '../../../../main/services/sync';
import type { PushOptions } from '../../../../main/services/sync/push';
import { createUser, haveRoot, haveUseradd, type TestUser } from '../../../helpers/boxes';
import { haveSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { HAPROXY, pushSequence, Site } from '../../../helpers/sync/box-site';
import { testOptions } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

const SUDO = '/usr/bin/sudo';
const why = !haveRoot ? 'not root (useradd, /etc/sudoers.d)' : !haveUseradd ? 'no useradd' : !haveSshd ? 'no sshd' : !existsSync(SUDO) ? 'no sudo' : !existsSync(HAPROXY) ? `no ${HAPROXY}` : '';
if (why) console.warn(`skipping the become: sudo tests: ${why}`);

describe.skipIf(skipBecause(why, 'become: sudo'))('become: sudo', () => {
  let root: string;
  let sshd: Sshd;
  let site: Site;
  const users: TestUser[] = [];
  let rules: string;
  const password = `sp-${randomBytes(9).toString('base64url')}`;
  let nopasswd: TestUser;
  let asks: TestUser;
  let narrow: TestUser;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-sudo-'));
    chmodSync(root, 0o755);
    nopasswd = createUser('sn', '/bin/sh', join(root, 'home-sn'));
    asks = createUser('sp', '/bin/sh', join(root, 'home-sp'), password);
    narrow = createUser('sr', '/bin/sh', join(root, 'home-sr'));
    users.push(nopasswd, asks, narrow);
    // sudo skips files whose names contain a dot: this one has none.
    rules = join('/etc/sudoers.d', `lbdesk-test-${randomBytes(4).toString('hex')}`);
    writeFileSync(rules, [
      `${nopasswd.name} ALL=(root) NOPASSWD: ALL`,
      `${asks.name} ALL=(root) ALL`,
      `${narrow.name} ALL=(root) NOPASSWD: ${HAPROXY}`,
      '',
    ].join('\n'), { mode: 0o440 });
    execFileSync('/usr/sbin/visudo', ['-c', '-q', '-f', rules]);
    sshd = await startSshd({ host: '127.0.9.31', sftp: true });
    chmodSync(sshd.dir, 0o755);
    chmodSync(join(sshd.dir, 'authorized_keys'), 0o644);
    const dir = join(root, 'etc');
    mkdirSync(dir, { mode: 0o755 });
    site = new Site({ addresses: ['127.0.9.32', '127.0.9.33', '127.0.9.34'], dir, uid: 0, gid: 0, mode: 0o640, appliance: { host: '127.0.9.31' } });
    await site.start();
  }, 30_000);

  afterAll(async () => {
    await site?.stop();
    await sshd?.stop();
    if (rules) rmSync(rules, { force: true });
    for (const u of users) u.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const as = (u: TestUser) => site.as({ host: sshd.host, port: sshd.port, user: u.name, auth: 'key', keyFile: sshd.userKey.path, become: 'sudo' });
  const opts = (u: TestUser, extra: Partial<PushOptions> = {}): PushOptions => ({ ...testOptions(sshd, root), dataDir: join(root, `data-${u.name}`), ...extra });

  it('NOPASSWD: the whole sequence as root through sudo -n; 0640 root:root kept in a root-only folder', async () => {
    await pushSequence(as(nopasswd), opts(nopasswd));
  }, 90_000);

  it('a rule that asks: the password from appliance/NAME/sudo-password goes on stdin, never in a command line', async () => {
    const store = new MemorySecretStore();
    await store.set(secretName.sudoPassword('box'), password);
    const s = as(asks);
    const before = site.stat();
    const r = await pushConfig(s.target(), s.text('b'), opts(asks, { secrets: store }));
    expect(r.outcome, r.reason).toBe('applied');
    expect(await site.answers('backend B')).toBe('backend B');
    expect(site.stat()).toBe(before);
    expect(sshd.log()).not.toContain(password);

    const missing = await pushConfig(s.target(), s.text('a'), opts(asks, { secrets: new MemorySecretStore() }));
    expect(missing.outcome).toBe('refused');
    expect(missing.reason).toMatch(/sudo asks for a password and none is in the secret store \(appliance\/box\/sudo-password\)/);

    const wrong = new MemorySecretStore();
    await wrong.set(secretName.sudoPassword('box'), 'not-it');
    const bad = await pushConfig(s.target(), s.text('a'), opts(asks, { secrets: wrong }));
    expect(bad.outcome).toBe('refused');
    expect(bad.reason).toMatch(/sudo did not accept the password from appliance\/box\/sudo-password/);
    expect(readFileSync(site.live, 'utf8')).toBe(s.text('b'));
  }, 60_000);

  it('a rule that does not allow sh: refused, naming what sudo refused; the appliance is untouched', async () => {
    const s = as(narrow);
    const before = readFileSync(site.live, 'utf8');
    const r = await pushConfig(s.target(), s.text('a'), opts(narrow));
    expect(r.outcome).toBe('refused');
    expect(r.reason).toMatch(/sudo refused to run "sh -c …" as root for lbdsr\w+ .*: no sudoers rule allows it \(allowed: \(root\) NOPASSWD: \/usr\/sbin\/haproxy\)/);
    expect(readFileSync(site.live, 'utf8')).toBe(before);
    expect(site.temps()).toEqual([]);
  });
});
