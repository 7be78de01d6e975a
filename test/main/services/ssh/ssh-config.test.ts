// ~/.ssh/config resolution as OpenSSH does it (from files the test writes; never the user's own).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SshConfigSet, parseProxyJump } from '../../../../main/services/ssh';

describe('ssh config resolution', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-sshcfg-'));
  mkdirSync(join(dir, 'conf.d'));
  writeFileSync(join(dir, 'conf.d', '10-site.conf'), 'Host site-*\n  User siteuser\n  Port 2201\n');
  writeFileSync(join(dir, 'conf.d', 'ignored.txt'), 'Host site-*\n  User wrong\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config');
  writeFileSync(file, [
    `Include ${join(dir, 'conf.d', '*.conf')}`,
    'Host lab lab-alias',
    '  HostName 127.0.8.5',
    '  Port 2200',
    '  User admin',
    '  IdentityFile ~/.ssh/lab_%r_%h',
    '  IdentityFile /keys/second',
    '  ProxyJump jumper@bastion:2222,ssh://other',
    '  ServerAliveInterval 7',
    'Host pinned',
    '  HostName 127.0.8.6',
    '  HostKeyAlias pinned-lb',
    '  UserKnownHostsFile ~/kh/%h',
    'Host *',
    '  User fallback',
    '  ConnectTimeout 4',
    '',
  ].join('\n'));

  it('resolves an alias: HostName, Port, User, IdentityFile with tokens, ProxyJump, keepalives', async () => {
    const cfg = await SshConfigSet.load([file]);
    const r = cfg.resolve('lab');
    expect(r).toMatchObject({
      alias: 'lab', hostName: '127.0.8.5', port: 2200, user: 'admin',
      identityFiles: [join(homedir(), '.ssh', 'lab_admin_127.0.8.5'), '/keys/second'],
      proxyJump: [{ host: 'bastion', port: 2222, user: 'jumper' }, { host: 'other', port: undefined, user: undefined }],
      serverAliveIntervalS: 7, connectTimeoutS: 4, hostKeyName: '127.0.8.5',
    });
  });

  it('lets the workspace user win, and a workspace port other than the default 22', async () => {
    const cfg = await SshConfigSet.load([file]);
    expect(cfg.resolve('lab', { user: 'root', port: 22 })).toMatchObject({ user: 'root', port: 2200 });
    expect(cfg.resolve('lab', { port: 2022 })).toMatchObject({ port: 2022 });
    expect(cfg.resolve('unknown-host')).toMatchObject({ hostName: 'unknown-host', port: 22, user: 'fallback', proxyJump: [] });
  });

  it('follows Include globs and HostKeyAlias', async () => {
    const cfg = await SshConfigSet.load([file]);
    expect(cfg.resolve('site-7')).toMatchObject({ user: 'siteuser', port: 2201 });
    const pinned = cfg.resolve('pinned');
    expect(pinned.hostKeyName).toBe('pinned-lb');
    expect(pinned.userKnownHostsFiles).toEqual([join(homedir(), 'kh', '127.0.8.6')]);
  });

  it('parses ProxyJump forms', () => {
    expect(parseProxyJump('none')).toEqual([]);
    expect(parseProxyJump('[::1]:2222')).toEqual([{ host: '::1', port: 2222, user: undefined }]);
    expect(parseProxyJump('u@h')).toEqual([{ host: 'h', port: undefined, user: 'u' }]);
  });

  it('reports an explicit config file that is missing', async () => {
    await expect(SshConfigSet.load([join(dir, 'nope')])).rejects.toThrow(/cannot read ssh config .*nope: ENOENT/);
  });
});
