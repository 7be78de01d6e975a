// keyboard-interactive with `auth: password`: against a real sshd whose only method is
// keyboard-interactive answered by PAM (pam_unix) for a local user the test creates, and
// against ssh2's server for a second round (a one-time code) the user must answer.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Server } from 'ssh2';
import { askOnTerminal } from '../../../../main/services/secrets/prompt';
import type { InteractivePrompt } from '../../../../shared/api/sync';
import { connectSsh, SshConfigSet, type SshEndpoint, type SshOptions } from '../../../../main/services/ssh';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import { createUser, haveRoot, haveUseradd, type TestUser } from '../../../helpers/boxes';
import { haveSshd, keygen, SSHD, startSshd, type Sshd } from '../../../helpers/sshd';
import { HAPROXY, pushSequence, Site } from '../../../helpers/sync/box-site';
import { skipBecause } from '../../../helpers/skip';

const pamUnix = ['/usr/lib/x86_64-linux-gnu/security/pam_unix.so', '/lib/x86_64-linux-gnu/security/pam_unix.so', '/usr/lib/aarch64-linux-gnu/security/pam_unix.so'].some(existsSync);
const why = !haveRoot ? 'not root (useradd, /etc/pam.d)' : !haveUseradd ? 'no useradd' : !haveSshd ? 'no sshd' : !pamUnix ? 'no pam_unix.so' : '';
if (why) console.warn(`skipping the PAM keyboard-interactive test: ${why}`);

async function storeWith(appliance: string, password: string): Promise<MemorySecretStore> {
  const s = new MemorySecretStore();
  await s.set(secretName.appliancePassword(appliance), password);
  return s;
}

describe.skipIf(skipBecause(why, 'keyboard-interactive through PAM'))('keyboard-interactive through PAM (real sshd)', () => {
  let root: string;
  let user: TestUser;
  let sshd: Sshd;
  let pamFile: string;
  const password = `pw-${randomBytes(9).toString('base64url')}`;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-kbd-'));
    user = createUser('kb', '/bin/sh', join(root, 'home'), password);
    // sshd names its PAM service after its own file name: a link gives it a service of its own.
    const binary = join(root, `lbdesk-kbd-${randomBytes(4).toString('hex')}`);
    symlinkSync(SSHD, binary);
    pamFile = join('/etc/pam.d', basename(binary));
    writeFileSync(pamFile, 'auth required pam_unix.so\naccount required pam_unix.so\nsession required pam_permit.so\npassword required pam_deny.so\n');
    sshd = await startSshd({ host: '127.0.9.21', pam: true, binary });
  }, 30_000);

  let site: Site | undefined;
  afterAll(async () => {
    await site?.stop();
    await sshd?.stop();
    if (pamFile) rmSync(pamFile, { force: true });
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const ep = (): SshEndpoint => ({ appliance: 'pam-lb', host: sshd.host, port: sshd.port, user: user.name, auth: 'password' });
  const opts = (extra: Partial<SshOptions>): SshOptions => {
    const kh = join(root, 'known_hosts');
    if (!existsSync(kh)) writeFileSync(kh, `${sshd.knownHostsLine}\n`);
    return { sshConfig: SshConfigSet.empty(), knownHostsFile: kh, ...extra };
  };

  it('answers the PAM password prompt from the secret store, as OpenSSH does', async () => {
    const asked: InteractivePrompt[] = [];
    const c = await connectSsh(ep(), opts({ secrets: await storeWith('pam-lb', password), answerPrompts: async (p) => { asked.push(p); return undefined; } }));
    try {
      expect((await c.exec('id -un')).stdout.trim()).toBe(user.name);
    } finally {
      c.close();
    }
    expect(asked).toEqual([]);
    expect(sshd.log()).toMatch(/Accepted keyboard-interactive\/pam/);
  });

  it('a wrong password fails once (PAM does not ask again), without its value in the error', async () => {
    const wrong = `wrong-${randomBytes(6).toString('hex')}`;
    const err = await connectSsh(ep(), opts({ secrets: await storeWith('pam-lb', wrong) })).catch((e: Error) => e);
    expect(String(err)).toMatch(/authentication failed for .*tried password, keyboard-interactive/);
    expect(String(err)).not.toContain(wrong);
  });

  it('asks for the password when the store has none', async () => {
    const c = await connectSsh(ep(), opts({ secrets: new MemorySecretStore(), askSecret: async () => password }));
    c.close();
  });

  it.skipIf(skipBecause(!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`, 'push over keyboard-interactive'))('pushes to a HAProxy over that login: diff, push, commit-confirmed + confirm, pull, refused push, mode kept', async () => {
    chmodSync(root, 0o755);
    const dir = join(user.home, 'etc');
    mkdirSync(dir);
    chownSync(dir, user.uid, user.gid);
    site = new Site({
      addresses: ['127.0.9.23', '127.0.9.24', '127.0.9.25'], dir, uid: user.uid, gid: user.gid, mode: 0o640,
      appliance: { host: sshd.host, port: sshd.port, user: user.name, auth: 'password' },
    });
    await site.start();
    await pushSequence(site, { ...opts({ secrets: await storeWith('box', password) }), dataDir: join(root, 'data') }, { rollback: false });
  }, 90_000);
});

describe('keyboard-interactive rounds the user answers (ssh2 server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-otp-'));
  const password = randomBytes(12).toString('base64');
  const code = String(100000 + Math.floor(Math.random() * 899999));
  const hostKey = keygen(join(dir, 'host'));
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = new Server({ hostKeys: [readFileSync(hostKey.path)] }, (client) => {
      client.on('authentication', (ctx) => {
        if (ctx.method !== 'keyboard-interactive') return ctx.reject(['keyboard-interactive']);
        ctx.prompt([{ prompt: 'Password: ', echo: false }], 'login', '', (a1) => {
          if (a1[0] !== password) return ctx.reject(['keyboard-interactive']);
          ctx.prompt([{ prompt: 'Verification code: ', echo: true }], 'Two-step', 'Open your authenticator app.', (a2) => (a2[0] === code ? ctx.accept() : ctx.reject()));
        });
      });
      client.on('ready', () => client.on('session', (accept) => accept().on('exec', (acc) => { const s = acc(); s.exit(0); s.end(); })));
      client.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.9.22', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });
  const ep = (): SshEndpoint => ({ appliance: 'otp-lb', host: '127.0.9.22', port, user: 'admin', auth: 'password' });
  const base = (): SshOptions => {
    const kh = join(dir, 'known_hosts');
    writeFileSync(kh, `[127.0.9.22]:${port} ${hostKey.pub.split(' ').slice(0, 2).join(' ')}\n`);
    return { sshConfig: SshConfigSet.empty(), knownHostsFile: kh };
  };

  it('shows a one-time-code round as it comes and sends the answer', async () => {
    const asked: InteractivePrompt[] = [];
    const c = await connectSsh(ep(), { ...base(), secrets: await storeWith('otp-lb', password), answerPrompts: async (p) => { asked.push(p); return [code]; } });
    c.close();
    expect(asked).toEqual([{ appliance: 'otp-lb', host: `admin@127.0.9.22:${port}`, name: 'Two-step', instructions: 'Open your authenticator app.', prompts: [{ prompt: 'Verification code: ', echo: true }] }]);
  });

  it('without a terminal or window to answer, says what was asked', async () => {
    const err = await connectSsh(ep(), { ...base(), secrets: await storeWith('otp-lb', password) }).catch((e: Error) => e);
    expect(String(err)).toMatch(/asks "Verification code:" \(keyboard-interactive\) and there is no terminal or window here to answer it/);
  });
});

describe('keyboard-interactive on the terminal (CLI)', () => {
  it('shows the title and instructions, echoes a visible code, hides a hidden answer', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d) => (shown += d));
    const asked = askOnTerminal({ host: 'admin@lb1', name: 'Two-step', instructions: 'Open your app.', prompts: [{ prompt: 'Code: ', echo: true }, { prompt: 'PIN: ', echo: false }] }, input, output);
    input.write('12x\u007f3\r');
    await vi.waitFor(() => expect(shown).toContain('PIN: '), { timeout: 5000, interval: 5 });
    input.write('9876\r');
    expect(await asked).toEqual(['123', '9876']);
    expect(shown).toContain('(admin@lb1) Two-step\nOpen your app.\nCode: 12x\b \b3');
    expect(shown).not.toContain('9876');
  });
});
