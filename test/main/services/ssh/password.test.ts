// Password auth from the secret store, against a real SSH server (ssh2's, in process: the test
// cannot give a system account a password without touching /etc/shadow).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from 'ssh2';
import { connectSsh, SshConfigSet, SshError, type SshEndpoint } from '../../../../main/services/ssh';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName, type SecretStore } from '../../../../main/services/secrets/types';
import { keygen } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';

const haveKeygen = existsSync('/usr/bin/ssh-keygen');

/** Counts every read, so a test can prove no secret was even fetched. */
class CountingStore extends MemorySecretStore implements SecretStore {
  reads = 0;
  override async get(name: string) { this.reads++; return super.get(name); }
}

describe.skipIf(skipBecause(!haveKeygen && 'ssh-keygen is missing (apt-get install openssh-client)', 'password authentication'))('password authentication', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-pw-'));
  const password = randomBytes(12).toString('base64');
  let server: Server;
  let port: number;
  let attempts = 0;
  const hostKey = keygen(join(dir, 'host'));
  beforeAll(async () => {
    server = new Server({ hostKeys: [readFileSync(hostKey.path)] }, (client) => {
      client.on('authentication', (ctx) => {
        if (ctx.method === 'none') return ctx.reject(['password']);
        attempts++;
        if (ctx.method === 'password' && ctx.username === 'admin' && ctx.password === password) return ctx.accept();
        ctx.reject(['password']);
      });
      client.on('ready', () => {
        client.on('session', (accept) => {
          accept().on('exec', (acc, _rej, info) => {
            const stream = acc();
            stream.write(`ran ${info.command}\n`);
            stream.exit(0);
            stream.end();
          });
        });
      });
      client.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.8.10', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const ep = (): SshEndpoint => ({ appliance: 'pw-lb', host: '127.0.8.10', port, user: 'admin', auth: 'password' });
  const knownHosts = () => {
    const file = join(dir, `kh-${Math.random()}`);
    writeFileSync(file, `[127.0.8.10]:${port} ${hostKey.pub.split(' ').slice(0, 2).join(' ')}\n`);
    return file;
  };

  it('logs in with the password from the secret store', async () => {
    const store = new MemorySecretStore();
    await store.set(secretName.appliancePassword('pw-lb'), password);
    const c = await connectSsh(ep(), { sshConfig: SshConfigSet.empty(), knownHostsFile: knownHosts(), secrets: store });
    expect((await c.exec('hostname')).stdout).toBe('ran hostname\n');
    c.close();
  });

  it('asks for a missing password, and never repeats a wrong one in the error', async () => {
    const asked: string[] = [];
    const c = await connectSsh(ep(), {
      sshConfig: SshConfigSet.empty(), knownHostsFile: knownHosts(), secrets: new MemorySecretStore(),
      askSecret: async (p) => { asked.push(`${p.kind} ${p.secret}`); return password; },
    });
    c.close();
    expect(asked).toEqual(['password appliance/pw-lb/password']);

    const wrong = `${password}-wrong`;
    const err = await connectSsh(ep(), { sshConfig: SshConfigSet.empty(), knownHostsFile: knownHosts(), askSecret: async () => wrong }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).kind).toBe('auth');
    expect((err as SshError).message).not.toContain(wrong);
    const missing = await connectSsh(ep(), { sshConfig: SshConfigSet.empty(), knownHostsFile: knownHosts() }).catch((e: unknown) => e);
    expect((missing as SshError).kind).toBe('secret-missing');
  });

  it('refuses a changed host key before the password is even read from the store', async () => {
    const store = new CountingStore();
    await store.set(secretName.appliancePassword('pw-lb'), password);
    const file = join(dir, 'kh-changed');
    writeFileSync(file, `[127.0.8.10]:${port} ${keygen(join(dir, 'imposter')).pub.split(' ').slice(0, 2).join(' ')}\n`);
    const before = attempts;
    const err = await connectSsh(ep(), { sshConfig: SshConfigSet.empty(), knownHostsFile: file, secrets: store }).catch((e: unknown) => e);
    expect((err as SshError).kind).toBe('host-key-changed');
    expect(store.reads).toBe(0);
    expect(attempts).toBe(before);
  });
});
