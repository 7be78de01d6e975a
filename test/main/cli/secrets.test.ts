// The CLI's secrets as docs/security.md says: LBDESK_SECRET_<NAME>, then the OS keyring (a private
// GNOME Keyring here), then a prompt on a terminal; without one, an error naming the secret and
// the exact command that stores it — which, run as printed, makes the next run work. The secret
// (a key passphrase) is generated here and must never be printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli';
import { missingKeyringBins, startKeyring, type PrivateKeyring } from '../../helpers/keyring';
import { haveSshd, keygen, startSshd, type Sshd } from '../../helpers/sshd';
import { secretEnvVariable } from '../../../main/services/secrets/env';
import { skipBecause } from '../../helpers/skip';

const missing = [...missingKeyringBins(), ...(haveSshd ? [] : ['sshd'])];
if (missing.length) console.warn(`cli-secrets: skipped: ${missing.join(', ')} not installed`);

describe.skipIf(skipBecause(missing.length > 0 && `missing ${missing.join(', ')}`, 'lbdesk secrets'))('lbdesk secrets: environment, keyring, and how to store one', { timeout: 120_000 }, () => {
  let dir: string;
  let keyring: PrivateKeyring;
  let sshd: Sshd;
  let workspaceFile: string;
  let keyFile: string;
  const passphrase = randomBytes(12).toString('base64url');
  let env: NodeJS.ProcessEnv;
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config'), '--accept-new'];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-cli-secrets-'));
    keyring = await startKeyring(join(dir, 'keyring'));
    // An encrypted key: logging in needs its passphrase from the secret store.
    const sshdDir = join(dir, 'sshd');
    mkdirSync(sshdDir);
    keyFile = join(dir, 'enc_ed25519');
    const key = keygen(keyFile, 'ed25519', passphrase);
    writeFileSync(join(sshdDir, 'authorized_keys'), `${key.pub}\n`, { mode: 0o600 });
    sshd = await startSshd({ host: '127.0.9.201', dir: sshdDir });
    writeFileSync(join(dir, 'known_hosts'), '');
    writeFileSync(join(dir, 'ssh_config'), '');
    writeFileSync(join(dir, 'live.cfg'), '# running config\n');
    workspaceFile = join(dir, 'site.yaml');
    writeFileSync(workspaceFile, [
      'lbdesk: 1', 'name: secrets',
      'servers: [{ name: web1, address: 127.0.9.202 }]',
      'groups: [{ name: web, members: [{ server: web1, port: 8081 }] }]',
      'services: [{ name: web-vip, address: 127.0.9.203, port: 8080, group: web }]',
      'appliances:',
      `  - { name: lab, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: key, keyFile: ${keyFile}, driver: haproxy, configPath: ${join(dir, 'live.cfg')} }`,
      `  - { name: pw, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: password, driver: haproxy, configPath: ${join(dir, 'live.cfg')} }`,
      '',
    ].join('\n'));
    env = { ...keyring.env, LBDESK_DATA_DIR: join(dir, 'data'), SSH_AUTH_SOCK: '' };
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    keyring?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const name = () => `key/${keyFile}/passphrase`;
  const noLeak = (r: { stdout: string; stderr: string }) => expect(`${r.stdout}${r.stderr}`).not.toContain(passphrase);

  it('not stored, no terminal: exit at once naming the secret and the exact command; run as printed, the next diff logs in', async () => {
    const refused = await runCli(['diff', workspaceFile, '--appliance', 'lab', ...ssh()], { env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    const command = `secret-tool store --label='lbdesk: ${name()}' application lbdesk secret ${name()}`;
    expect(refused.stderr).toContain(`secret "${name()}" is needed but there is no terminal to ask for it; store it in the keyring first: ${command} (or set ${secretEnvVariable(name())})`);
    expect(refused.stderr.trim().split('\n')).toHaveLength(2); // the accepted host key, then the error

    // The user runs the printed command; secret-tool reads the value on stdin.
    execFileSync('sh', ['-c', command], { env: keyring.env, input: passphrase });
    const diff = await runCli(['diff', workspaceFile, '--appliance', 'lab', ...ssh()], { env });
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toContain('-# running config');
    expect(diff.stdout).toMatch(/^\+frontend /m);
    noLeak(refused);
    noLeak(diff);
  });

  it('LBDESK_SECRET_<NAME> works without any keyring', async () => {
    const r = await runCli(['diff', workspaceFile, '--appliance', 'lab', ...ssh()], { env: { ...env, LBDESK_KEYRING: 'off', [secretEnvVariable(name())]: passphrase } });
    expect(r.code, r.stderr).toBe(1);
    noLeak(r);
  });

  it('an appliance password not stored: the error says how to store it', async () => {
    const r = await runCli(['pull', workspaceFile, '--appliance', 'pw', ...ssh()], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("secret \"appliance/pw/password\" is needed but there is no terminal to ask for it; store it in the keyring first: secret-tool store --label='lbdesk: appliance/pw/password' application lbdesk secret appliance/pw/password (or set LBDESK_SECRET_APPLIANCE_PW_PASSWORD)");
  });

  it('check: a RADIUS shared secret not stored is said once, with how to store it; its member fails', async () => {
    const file = join(dir, 'radius.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: radius',
      'servers: [{ name: r1, address: 127.0.9.204 }]',
      'groups:',
      '  - { name: aaa, members: [{ server: r1, port: 1812 }], healthCheck: { type: radius, radius: { secret: radius-shared } } }',
      '  - { name: other, members: [{ server: r1, port: 1 }], healthCheck: { type: tcp } }',
      '',
    ].join('\n'));
    const [r, other] = await Promise.all([runCli(['check', file, '--group', 'aaa', '--json'], { env }), runCli(['check', file, '--group', 'other', '--json'], { env })]);
    // Only the secrets of the members checked are fetched (and would be asked for).
    expect(other.stderr).toBe('');
    expect(JSON.parse(other.stdout).members).toHaveLength(1);
    expect(r.code).toBe(2);
    const hint = "store it in the keyring first: secret-tool store --label='lbdesk: named/radius-shared' application lbdesk secret named/radius-shared (or set LBDESK_SECRET_RADIUS_SHARED)";
    expect(r.stderr).toBe(`lbdesk: warning: secret "named/radius-shared" is needed but there is no terminal to ask for it; ${hint}\n`);
    const out = JSON.parse(r.stdout) as { members: { state: string; reason: string }[] };
    expect(out.members).toHaveLength(1);
    expect(out.members[0]!.state).toBe('unavailable');
    expect(out.members[0]!.reason).toBe('shared secret "radius-shared" is not in the secret store');
  });
});
