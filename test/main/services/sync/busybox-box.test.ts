// An embedded box: Dropbear, a BusyBox sh login shell and only BusyBox applets on PATH (no
// bash, coreutils, flock, nohup, sftp-server), a non-root push user, a real HAProxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SshConfigSet, connectSsh } from '../../../../main/services/ssh';
import type { PushOptions } from '../../../../main/services/sync/push';
import { authorize, BUSYBOX, busyboxDir, createUser, DROPBEAR, haveRoot, haveUseradd, startDropbear, type Dropbear, type TestUser } from '../../../helpers/boxes';
import { keygen } from '../../../helpers/sshd';
import { HAPROXY, pushSequence, Site } from '../../../helpers/sync/box-site';
import { skipBecause } from '../../../helpers/skip';

const missing = [DROPBEAR, HAPROXY, '/usr/bin/unshare'].filter((p) => !existsSync(p));
if (!BUSYBOX) missing.push('busybox');
const why = !haveRoot ? 'not root (useradd and a mount namespace need it)' : !haveUseradd ? 'no useradd' : missing.length ? `missing ${missing.join(', ')}` : '';
if (why) console.warn(`skipping the BusyBox/Dropbear appliance test: ${why}`);

describe.skipIf(skipBecause(why, 'BusyBox appliance behind Dropbear'))('a BusyBox appliance behind Dropbear', () => {
  let root: string;
  let user: TestUser;
  let dropbear: Dropbear;
  let site: Site;
  let opts: PushOptions;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-bb-'));
    chmodSync(root, 0o755); // the box's user walks into its home below
    const bb = busyboxDir(join(root, 'bin'));
    user = createUser('bb', '/bin/sh', join(root, 'home'));
    const key = keygen(join(root, 'user_ed25519'));
    authorize(user, key);
    dropbear = await startDropbear('127.0.9.1', root, bb);
    const dir = join(user.home, 'etc');
    mkdirSync(dir);
    execFileSync('chown', [`${user.uid}:${user.gid}`, dir]);
    site = new Site({
      addresses: ['127.0.9.2', '127.0.9.3', '127.0.9.4'], dir, uid: user.uid, gid: user.gid, mode: 0o600,
      appliance: { host: dropbear.host, port: dropbear.port, user: user.name, auth: 'key', keyFile: key.path },
    });
    await site.start();
    writeFileSync(join(root, 'known_hosts'), `${dropbear.knownHostsLine}\n`);
    opts = { knownHostsFile: join(root, 'known_hosts'), sshConfig: SshConfigSet.empty(), dataDir: join(root, 'data') };
  }, 30_000);

  afterAll(async () => {
    await site?.stop();
    await dropbear?.stop();
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('is what the issue describes: BusyBox sh, no bash/coreutils/flock/nohup, no SFTP', async () => {
    const conn = await connectSsh(site.target().endpoint, opts);
    try {
      const r = await conn.exec('readlink -f /proc/$$/exe; for t in bash flock nohup; do command -v $t || echo "no $t"; done; stat --version 2>&1 | head -1');
      expect(r.stdout).toMatch(/busybox/);
      expect(r.stdout).toMatch(/no bash\nno flock\nno nohup\n/);
      expect(r.stdout).not.toMatch(/coreutils/);
      await expect(conn.sftp()).rejects.toThrow(/SFTP/);
    } finally {
      conn.close();
    }
  });

  it('diff, push (verified with BusyBox nc), commit-confirmed rollback, confirm, pull, a refused push; mode 0600 and owner kept', async () => {
    await pushSequence(site, opts);
  }, 90_000);
});
