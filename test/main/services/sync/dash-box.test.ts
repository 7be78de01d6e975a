// A Debian-like box reached as a non-root user whose login shell is dash, through an sshd
// without an SFTP subsystem: uploads go over plain exec, a real HAProxy runs as that user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh } from '../../../../main/services/ssh';
import type { PushOptions } from '../../../../main/services/sync/push';
import { createUser, haveRoot, haveUseradd, type TestUser } from '../../../helpers/boxes';
import { haveSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { HAPROXY, pushSequence, Site } from '../../../helpers/sync/box-site';
import { testOptions } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

const why = !haveRoot ? 'not root (useradd needs it)' : !haveUseradd ? 'no useradd' : !haveSshd ? 'no /usr/sbin/sshd' : !existsSync(HAPROXY) ? `no ${HAPROXY}` : !existsSync('/bin/dash') ? 'no dash' : '';
if (why) console.warn(`skipping the dash/no-SFTP appliance test: ${why}`);

describe.skipIf(skipBecause(why, 'non-root dash login without SFTP'))('a non-root dash login without SFTP', () => {
  let root: string;
  let user: TestUser;
  let sshd: Sshd;
  let site: Site;
  let opts: PushOptions;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-dash-'));
    chmodSync(root, 0o755);
    user = createUser('da', '/bin/dash', join(root, 'home'));
    sshd = await startSshd({ host: '127.0.9.11', sftp: false });
    // sshd reads authorized_keys as the user.
    chmodSync(sshd.dir, 0o755);
    chmodSync(join(sshd.dir, 'authorized_keys'), 0o644);
    const dir = join(user.home, 'etc');
    mkdirSync(dir);
    chownSync(dir, user.uid, user.gid);
    site = new Site({
      addresses: ['127.0.9.12', '127.0.9.13', '127.0.9.14'], dir, uid: user.uid, gid: user.gid, mode: 0o640,
      appliance: { host: sshd.host, port: sshd.port, user: user.name, auth: 'key', keyFile: sshd.userKey.path },
    });
    await site.start();
    opts = testOptions(sshd, root);
  }, 30_000);

  afterAll(async () => {
    await site?.stop();
    await sshd?.stop();
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('logs in to dash, with no sbin on PATH and no SFTP', async () => {
    const conn = await connectSsh(site.target().endpoint, opts);
    try {
      const r = await conn.exec('readlink /proc/$$/exe; echo "$PATH"');
      expect(r.stdout).toMatch(/dash/);
      expect(r.stdout).not.toMatch(/sbin/);
      await expect(conn.sftp()).rejects.toThrow(/SFTP/);
    } finally {
      conn.close();
    }
  });

  it('diff, push, commit-confirmed rollback, confirm, pull, a refused push; mode 0640 and owner kept', async () => {
    await pushSequence(site, opts);
  }, 90_000);
});
