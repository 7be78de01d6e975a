// An old SSH server, imitated by today's sshd restricted to legacy algorithms: SHA-1 kex,
// an ssh-rsa host key, CBC, and user keys accepted only with ssh-rsa (SHA-1) signatures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, SshConfigSet, type SshEndpoint, type SshOptions } from '../../../../main/services/ssh';
import { haveSshd, noSshd, keygen, startSshd, type Sshd } from '../../../helpers/sshd';
import { HAPROXY, pushSequence, Site } from '../../../helpers/sync/box-site';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping the legacy-algorithm tests: /usr/sbin/sshd is not installed');

describe.skipIf(skipBecause(noSshd, 'legacy-algorithm sshd'))('an SSH server that speaks only legacy algorithms', () => {
  let root: string;
  let sshd: Sshd;
  let ep: SshEndpoint;
  let site: Site | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-legacy-'));
    sshd = await startSshd({
      host: '127.0.9.41', hostKeyType: 'rsa', hostKeyName: 'legacy',
      extra: ['PubkeyAcceptedAlgorithms ssh-rsa', 'HostKeyAlgorithms ssh-rsa', 'KexAlgorithms diffie-hellman-group14-sha1', 'Ciphers aes128-cbc', 'MACs hmac-sha1'],
    });
    const rsa = keygen(join(sshd.dir, 'user_rsa'), 'rsa');
    writeFileSync(join(sshd.dir, 'authorized_keys'), `${rsa.pub}\n`);
    writeFileSync(join(root, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    ep = { appliance: 'old-lb', host: sshd.host, port: sshd.port, user: 'root', auth: 'key', keyFile: rsa.path };
  }, 30_000);
  afterAll(async () => {
    await site?.stop();
    await sshd?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const opts = (extra: Partial<SshOptions> = {}): SshOptions => ({ sshConfig: SshConfigSet.empty(), knownHostsFile: join(root, 'known_hosts'), ...extra });
  const fails = (e: SshEndpoint, o: SshOptions) => connectSsh(e, o).then((c) => { c.close(); return new Error('connected'); }, (err: Error) => err);

  it('refused by default, naming both offers and what would allow theirs', async () => {
    const err = await fails(ep, opts());
    expect(err.message).toContain('no matching key exchange algorithm found. Their offer: diffie-hellman-group14-sha1. lbdesk offered: curve25519-sha256');
    expect(err.message).toContain('legacyAlgorithms: true on appliance old-lb allows diffie-hellman-group14-sha1');
    expect(err.message).toContain(`"KexAlgorithms +diffie-hellman-group14-sha1" under "Host ${sshd.host}"`);
  });

  it('legacyAlgorithms: true connects, the RSA key signing with ssh-rsa after SHA-2 is refused', async () => {
    const c = await connectSsh({ ...ep, legacyAlgorithms: true }, opts());
    try {
      expect((await c.exec('echo old-ok')).stdout).toBe('old-ok\n');
    } finally {
      c.close();
    }
    expect(sshd.log()).toMatch(/Accepted publickey for root/);
  });

  it('the ssh config can allow each algorithm instead (+ forms), and take one away again (- form)', async () => {
    const cfg = join(root, 'ssh_config');
    writeFileSync(cfg, [
      `Host old-box`, `  HostName ${sshd.host}`, `  Port ${sshd.port}`,
      '  KexAlgorithms +diffie-hellman-group14-sha1', '  HostKeyAlgorithms +ssh-rsa', '  Ciphers +aes128-cbc', '  PubkeyAcceptedAlgorithms +ssh-rsa',
      'Host no-cbc', `  HostName ${sshd.host}`, `  Port ${sshd.port}`, '  Ciphers -*-cbc', '',
    ].join('\n'));
    const config = await SshConfigSet.load([cfg]);
    const c = await connectSsh({ ...ep, host: 'old-box', port: undefined }, opts({ sshConfig: config }));
    c.close();
    const err = await fails({ ...ep, host: 'no-cbc', port: undefined, legacyAlgorithms: true }, opts({ sshConfig: config }));
    expect(err.message).toMatch(/no matching cipher found\. Their offer: aes128-cbc\. lbdesk offered: aes128-gcm@openssh\.com.*\. To allow it .*"Ciphers \+aes128-cbc" under "Host no-cbc"/);
    expect(err.message).not.toContain('legacyAlgorithms: true on');
  });

  it('an RSA key with SHA-2 only says why it was refused', async () => {
    const cfg = join(root, 'ssh_config_sha2');
    writeFileSync(cfg, `Host sha2\n  HostName ${sshd.host}\n  Port ${sshd.port}\n  KexAlgorithms +diffie-hellman-group14-sha1\n  HostKeyAlgorithms +ssh-rsa\n  Ciphers +aes128-cbc\n`);
    const err = await fails({ ...ep, host: 'sha2', port: undefined }, opts({ sshConfig: await SshConfigSet.load([cfg]) }));
    expect(err.message).toMatch(/authentication failed .*\(rsa-sha2-512\).*needs legacyAlgorithms: true on the appliance, or "PubkeyAcceptedAlgorithms \+ssh-rsa"/);
  });

  it.skipIf(skipBecause(!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`, 'push over legacy algorithms'))('pushes to a HAProxy there: diff, push, commit-confirmed + confirm, pull, refused push, mode kept', async () => {
    const dir = mkdtempSync(join(root, 'etc-'));
    site = new Site({
      addresses: ['127.0.9.42', '127.0.9.43', '127.0.9.44'], dir, uid: 0, gid: 0, mode: 0o600,
      appliance: { host: sshd.host, port: sshd.port, user: 'root', auth: 'key', keyFile: ep.keyFile, legacyAlgorithms: true },
    });
    await site.start();
    await pushSequence(site, { ...opts(), dataDir: join(root, 'data') }, { rollback: false });
  }, 90_000);
});
