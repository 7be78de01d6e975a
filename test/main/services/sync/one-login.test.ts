// One SSH login per user action (issue 26 item 4), counted in the real sshd's own log: a Push
// click through the contract (diff, push, the diff after it), `lbdesk push` and the window's
// Pull (running vs workspace), against a key login and a PAM keyboard-interactive one whose
// question is asked once per action.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, chownSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callDirect } from '../../../../main/services/api/dispatch';
import type { AppServices } from '../../../../main/services/api/wiring';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import { createUser, haveRoot, haveUseradd, type TestUser } from '../../../helpers/boxes';
import { runCli } from '../../../helpers/cli';
import { noSshd, SSHD, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { windowServices } from '../../../helpers/app-services';

const logins = (sshd: Sshd) => (sshd.log().match(/^.*Accepted (?:publickey|password|keyboard-interactive)\b.*$/gm) ?? []).length;

/** Runs `action` and returns how many logins sshd logged for it (waiting for the log to catch up). */
async function loginsOf(sshd: Sshd, action: () => Promise<unknown>): Promise<number> {
  const before = logins(sshd);
  await action();
  await vi.waitFor(() => expect(logins(sshd)).toBeGreaterThan(before), { timeout: 5000, interval: 20 });
  return logins(sshd) - before;
}

function workspace(name: string, appliance: string[]): string {
  return `lbdesk: 1
name: ${name}
servers: [{ name: web1, address: 127.0.3.91 }]
groups: [{ name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp } }]
# Disabled: nothing listens on the VIP here, so the post-reload connect check has nothing to try.
services: [{ name: web-vip, address: 127.0.3.90, port: 8080, group: web, enabled: false }]
appliances:
${appliance.map((l) => `  ${l}`).join('\n')}
`;
}

describe.skipIf(skipBecause(noSshd, 'one login per action'))('one SSH login per user action (key login)', { timeout: 120_000 }, () => {
  let sshd: Sshd;
  let svc: AppServices;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-one-login-'));
  const live = join(dir, 'appliance', 'lbdesk.yaml');
  const path = join(dir, 'site.yaml');
  const text = (name: string) => workspace(name, [
    '- name: box',
    `  host: ${sshd.host}`,
    `  port: ${sshd.port}`,
    '  user: root',
    '  auth: key',
    `  keyFile: ${sshd.userKey.path}`,
    '  driver: lbdesk',
    `  configPath: ${live}`,
    "  validateCommand: \"grep -q '^lbdesk: 1' {file}\"",
    `  reloadCommand: "echo reload >> ${join(dir, 'reloads')}"`,
  ]);

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.3.81' });
    svc = windowServices(dir);
    mkdirSync(join(dir, 'appliance'), { recursive: true });
    writeFileSync(path, text('one-login'));
  });
  afterAll(async () => {
    await svc?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a Push click logs in once, and its reply carries the diff after the push', async () => {
    let r: Awaited<ReturnType<typeof callDirect<'appliance.push'>>> | undefined;
    expect(await loginsOf(sshd, async () => { r = await callDirect(svc.handlers, 'appliance.push', { path, appliance: 'box' }); })).toBe(1);
    expect(r).toMatchObject({ outcome: 'applied' });
    expect(r!.diff).toContain('+name: one-login');
    expect(r!.after).toMatchObject({ appliance: 'box', changed: false, diff: '', remotePath: live });
    expect(readFileSync(live, 'utf8')).toContain('name: one-login');
  });

  it('the window\'s Pull (running config against the workspace) logs in once', async () => {
    let running = '';
    expect(await loginsOf(sshd, async () => {
      running = (await callDirect(svc.handlers, 'appliance.configs', { path, appliance: 'box', before: { kind: 'running' }, after: { kind: 'workspace' } })).before;
    })).toBe(1);
    expect(running).toContain('name: one-login');
  });

  it('the window\'s Pull against a manage: sections render (both read from the box) logs in once', async () => {
    const cfg = join(dir, 'appliance', 'haproxy.cfg');
    writeFileSync(cfg, 'global\n    daemon\n\ndefaults\n    mode tcp\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n');
    const sections = join(dir, 'sections.yaml');
    writeFileSync(sections, workspace('one-login-sections', [
      '- name: sec',
      `  host: ${sshd.host}`,
      `  port: ${sshd.port}`,
      '  user: root',
      '  auth: key',
      `  keyFile: ${sshd.userKey.path}`,
      '  driver: haproxy',
      '  manage: sections',
      `  configPath: ${cfg}`,
      '  reloadCommand: "true"',
    ]).replace('enabled: false', 'enabled: true'));
    let c: Awaited<ReturnType<typeof callDirect<'appliance.configs'>>> | undefined;
    expect(await loginsOf(sshd, async () => {
      c = await callDirect(svc.handlers, 'appliance.configs', { path: sections, appliance: 'sec', before: { kind: 'running' }, after: { kind: 'workspace' } });
    })).toBe(1);
    expect(c!.before).not.toContain('127.0.3.90');
    expect(c!.after).toContain('timeout client 30s');
    expect(c!.after).toContain('127.0.3.90:8080');
    expect(c!.afterLabel).toMatch(/rendered onto sec's file/);
  });

  it('lbdesk push logs in once', async () => {
    writeFileSync(path, text('one-login-cli'));
    let out = '';
    expect(await loginsOf(sshd, async () => {
      const r = await runCli(['push', path, '--appliance', 'box', '--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 90_000 });
      out = r.stdout + r.stderr;
      expect(r.code, out).toBe(0);
    })).toBe(1);
    expect(out).toMatch(/box: applied/);
    expect(readFileSync(live, 'utf8')).toContain('name: one-login-cli');
  });
});

const pamUnix = ['/usr/lib/x86_64-linux-gnu/security/pam_unix.so', '/lib/x86_64-linux-gnu/security/pam_unix.so', '/usr/lib/aarch64-linux-gnu/security/pam_unix.so'].some(existsSync);
const noPam = noSshd || (!haveRoot ? 'not root (useradd, /etc/pam.d)' : !haveUseradd ? 'no useradd' : !pamUnix ? 'no pam_unix.so' : '');

describe.skipIf(skipBecause(noPam, 'one login per action over PAM'))('one SSH login per user action (PAM keyboard-interactive)', { timeout: 120_000 }, () => {
  let root: string;
  let user: TestUser;
  let sshd: Sshd;
  let pamFile: string;
  let svc: AppServices;
  const store = new MemorySecretStore();
  const password = `pw-${randomBytes(9).toString('base64url')}`;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-one-pam-'));
    chmodSync(root, 0o755);
    user = createUser('ol', '/bin/sh', join(root, 'home'), password);
    const binary = join(root, `lbdesk-one-${randomBytes(4).toString('hex')}`);
    symlinkSync(SSHD, binary);
    pamFile = join('/etc/pam.d', basename(binary));
    writeFileSync(pamFile, 'auth required pam_unix.so\naccount required pam_unix.so\nsession required pam_permit.so\npassword required pam_deny.so\n');
    sshd = await startSshd({ host: '127.0.3.82', pam: true, binary });
    const etc = join(user.home, 'etc');
    mkdirSync(etc);
    chownSync(etc, user.uid, user.gid);
    await store.set(secretName.appliancePassword('box'), password);
    svc = windowServices(root, store);
  }, 30_000);
  afterAll(async () => {
    await svc?.stop();
    await sshd?.stop();
    if (pamFile) rmSync(pamFile, { force: true });
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a Push click answers the box\'s keyboard-interactive login once', async () => {
    const live = join(user.home, 'etc', 'lbdesk.yaml');
    const path = join(root, 'site.yaml');
    writeFileSync(path, workspace('one-pam', [
      '- name: box',
      `  host: ${sshd.host}`,
      `  port: ${sshd.port}`,
      `  user: ${user.name}`,
      '  auth: password',
      '  driver: lbdesk',
      `  configPath: ${live}`,
      "  validateCommand: \"grep -q '^lbdesk: 1' {file}\"",
      '  reloadCommand: "true"',
    ]));
    // Each question PAM puts to the client (its password here, a one-time code on a real box) is logged as "Postponed".
    const asked = () => (sshd.log().match(/Postponed keyboard-interactive\/pam/g) ?? []).length;
    const before = asked();
    let r: Awaited<ReturnType<typeof callDirect<'appliance.push'>>> | undefined;
    expect(await loginsOf(sshd, async () => { r = await callDirect(svc.handlers, 'appliance.push', { path, appliance: 'box' }); })).toBe(1);
    expect(sshd.log()).toMatch(/Accepted keyboard-interactive\/pam/);
    expect(asked() - before).toBe(1);
    expect(r).toMatchObject({ outcome: 'applied', after: { changed: false } });
    expect(readFileSync(live, 'utf8')).toContain('name: one-pam');
  });
});
