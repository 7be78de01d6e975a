// Connections against real OpenSSH servers on loopback: host keys, auth, ssh config, ProxyJump.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostKeyPrompt } from '../../../../shared/api/sync';
import { connectSsh, SshConfigSet, SshError, type SshEndpoint, type SshOptions } from '../../../../main/services/ssh';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import { haveAgent, haveSshd, noSshd, keygen, startAgent, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping SSH connection tests: /usr/sbin/sshd is not installed');

const NO_CONFIG = SshConfigSet.empty();

async function refusal(p: Promise<unknown>): Promise<SshError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(SshError);
  return err as SshError;
}

/** sshd log lines that show a credential reached the server. */
const AUTH_LINE = /Accepted|Failed|Postponed/;

describe.skipIf(skipBecause(noSshd, 'SSH connections'))('SSH connections', () => {
  let sshd: Sshd;
  let dir: string;
  let ep: SshEndpoint;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-conn-'));
    sshd = await startSshd({ host: '127.0.8.5' });
    ep = { appliance: 'lab', host: sshd.host, port: sshd.port, user: 'root', auth: 'key', keyFile: sshd.userKey.path };
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const kh = (name: string, text = '') => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const exec = async (endpoint: SshEndpoint, opts: SshOptions) => {
    const c = await connectSsh(endpoint, { sshConfig: NO_CONFIG, ...opts });
    try { return (await c.exec('echo connected-$((6*7))')).stdout.trim(); } finally { c.close(); }
  };

  it('refuses an unknown host key before any credential is sent, and writes nothing', async () => {
    const file = kh('unknown');
    const logBefore = sshd.log().length;
    const err = await refusal(connectSsh(ep, { sshConfig: NO_CONFIG, knownHostsFile: file }));
    expect(err.kind).toBe('host-key-unknown');
    expect(err.message).toContain(sshd.hostKey.fingerprint);
    expect(err.message).toMatch(/--accept-new/);
    expect(err.hostKey).toMatchObject({ host: sshd.host, port: sshd.port, keyType: 'ssh-ed25519', fingerprint: sshd.hostKey.fingerprint, reason: 'unknown' });
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise((r) => setTimeout(r, 200)); // proves a negative: no late auth attempt in sshd's log
    expect(sshd.log().slice(logBefore)).not.toMatch(AUTH_LINE);
  });

  it('accepts a new key when confirmed, stores it hashed where OpenSSH itself finds and trusts it', async () => {
    const file = kh('accept');
    const prompts: HostKeyPrompt[] = [];
    expect(await exec(ep, { knownHostsFile: file, confirmHostKey: async (p) => { prompts.push(p); return true; } })).toBe('connected-42');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.fingerprint).toBe(sshd.hostKey.fingerprint);
    expect(readFileSync(file, 'utf8')).toMatch(/^\|1\|\S+ ssh-ed25519 \S+\n$/);
    // The real OpenSSH client, strict, with this file:
    const out = execFileSync('ssh', [
      '-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${file}`,
      '-i', sshd.userKey.path, '-p', String(sshd.port), `root@${sshd.host}`, 'echo openssh-ok',
    ], { encoding: 'utf8' });
    expect(out.trim()).toBe('openssh-ok');
    // Now known: no prompt.
    expect(await exec(ep, { knownHostsFile: file, confirmHostKey: async () => { throw new Error('must not ask'); } })).toBe('connected-42');
  });

  it('always refuses a changed key, even when the user would say yes, before any credential is sent', async () => {
    const other = keygen(join(dir, 'other_host_key'));
    const [type, b64] = other.pub.split(' ');
    const file = kh('changed', `[${sshd.host}]:${sshd.port} ${type} ${b64}\n`);
    const refused: HostKeyPrompt[] = [];
    let asked = 0;
    const logBefore = sshd.log().length;
    const err = await refusal(connectSsh(ep, {
      sshConfig: NO_CONFIG, knownHostsFile: file,
      confirmHostKey: async () => { asked++; return true; }, onHostKeyRefused: (p) => refused.push(p),
    }));
    expect(err.kind).toBe('host-key-changed');
    expect(err.message).toMatch(/HOST KEY CHANGED/);
    expect(err.message).toContain(`${file}:1`);
    expect(asked).toBe(0);
    expect(refused).toEqual([expect.objectContaining({ reason: 'changed', fingerprint: sshd.hostKey.fingerprint, knownFrom: `${file}:1` })]);
    await new Promise((r) => setTimeout(r, 200)); // proves a negative: no late auth attempt in sshd's log
    expect(sshd.log().slice(logBefore)).not.toMatch(AUTH_LINE);
  });

  it('honours a workspace hostKey pin: matching connects without asking, different is refused', async () => {
    expect(await exec({ ...ep, hostKey: sshd.hostKey.fingerprint }, { knownHostsFile: kh('pin1') })).toBe('connected-42');
    const wrong = keygen(join(dir, 'pin_other')).fingerprint;
    const err = await refusal(connectSsh({ ...ep, hostKey: wrong }, { sshConfig: NO_CONFIG, knownHostsFile: kh('pin2'), confirmHostKey: async () => true }));
    expect(err.kind).toBe('host-key-changed');
    expect(err.message).toContain(`workspace pins ${wrong}`);
  });

  it('trusts keys hashed by ssh-keyscan | ssh-keygen -H', async () => {
    const file = kh('scanned', execFileSync('ssh-keyscan', ['-p', String(sshd.port), '-t', 'ed25519', sshd.host], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    expect(await exec(ep, { knownHostsFile: file })).toBe('connected-42');
  });

  it('authenticates with a passphrase-protected key: from the secret store, or asked for', async () => {
    const pass = randomBytes(12).toString('base64');
    const key = keygen(join(dir, 'enc_key'), 'ed25519', pass);
    appendFileSync(join(sshd.dir, 'authorized_keys'), `${key.pub}\n`);
    const file = kh('enc', `${sshd.knownHostsLine}\n`);
    const encEp = { ...ep, keyFile: key.path };
    const store = new MemorySecretStore();
    await store.set(secretName.keyPassphrase(key.path), pass);
    expect(await exec(encEp, { knownHostsFile: file, secrets: store })).toBe('connected-42');

    const asked: string[] = [];
    expect(await exec(encEp, { knownHostsFile: file, secrets: new MemorySecretStore(), askSecret: async (p) => { asked.push(p.prompt); return pass; } })).toBe('connected-42');
    expect(asked).toEqual([`passphrase for ${key.path}`]);

    const wrong = `${pass}x`;
    const bad = await refusal(connectSsh(encEp, { sshConfig: NO_CONFIG, knownHostsFile: file, askSecret: async () => wrong }));
    expect(bad.kind).toBe('auth');
    expect(bad.message).toBe(`wrong passphrase for key ${key.path}`);
    expect(bad.message).not.toContain(wrong);
    const none = await refusal(connectSsh(encEp, { sshConfig: NO_CONFIG, knownHostsFile: file }));
    expect(none.kind).toBe('secret-missing');
  });

  it.skipIf(skipBecause(!haveAgent && 'ssh-agent or ssh-add is missing (apt-get install openssh-client)', 'ssh-agent authentication'))(`authenticates through a real ssh-agent${haveAgent ? '' : ' (skipped: ssh-agent or ssh-add is missing: apt-get install openssh-client)'}`, async () => {
    const agent = await startAgent(dir, [sshd.userKey.path]);
    const empty = await startAgent(dir, []);
    try {
      const file = kh('agent', `${sshd.knownHostsLine}\n`);
      const agentEp: SshEndpoint = { ...ep, auth: 'agent', keyFile: undefined };
      expect(await exec(agentEp, { knownHostsFile: file, agentSocket: agent.socket })).toBe('connected-42');
      const err = await refusal(connectSsh(agentEp, { sshConfig: NO_CONFIG, knownHostsFile: file, agentSocket: empty.socket }));
      expect(err.kind).toBe('auth');
      expect(err.message).toMatch(/authentication failed for root@127\.0\.8\.5:\d+ \(tried ssh-agent\)/);
    } finally {
      await agent.stop();
      await empty.stop();
    }
  });

  it('resolves the workspace host through an ssh config alias', async () => {
    const cfgFile = join(dir, 'ssh_config');
    writeFileSync(cfgFile, `Host lab-lb\n  HostName ${sshd.host}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${sshd.userKey.path}\n`);
    const file = kh('alias', `${sshd.knownHostsLine}\n`);
    const c = await connectSsh({ appliance: 'lab', host: 'lab-lb', port: 22, auth: 'key' }, { sshConfigFile: cfgFile, knownHostsFile: file });
    try {
      expect(c.label).toBe(`root@${sshd.host}:${sshd.port}`);
      expect((await c.exec('echo via-alias')).stdout).toBe('via-alias\n');
    } finally {
      c.close();
    }
  });

  describe('ProxyJump', () => {
    let target: Sshd;
    beforeAll(async () => {
      // Same user key, its own host key: a different machine behind the jump host.
      target = await startSshd({ host: '127.0.8.7', dir: sshd.dir, hostKeyName: 'behind' });
    });
    afterAll(async () => { await target?.stop(); });

    const config = () => {
      const file = join(dir, 'jump_config');
      writeFileSync(file, [
        'Host behind',
        `  HostName ${target.host}`,
        `  Port ${target.port}`,
        '  User root',
        `  ProxyJump root@${sshd.host}:${sshd.port}`,
        '',
      ].join('\n'));
      return file;
    };
    const behind: SshEndpoint = { appliance: 'behind', host: 'behind', auth: 'key', keyFile: '' };

    it('checks the jump host key on its own', async () => {
      const ke = { ...behind, keyFile: sshd.userKey.path };
      const onlyTarget = kh('jump1', `${target.knownHostsLine}\n`);
      const err = await refusal(connectSsh(ke, { sshConfigFile: config(), knownHostsFile: onlyTarget }));
      expect(err.kind).toBe('host-key-unknown');
      expect(err.hostKey).toMatchObject({ host: sshd.host, port: sshd.port, jump: true, appliance: 'behind' });

      const other = keygen(join(dir, 'jump_other')).pub.split(' ');
      const changedJump = kh('jump2', `${target.knownHostsLine}\n[${sshd.host}]:${sshd.port} ${other[0]} ${other[1]}\n`);
      const err2 = await refusal(connectSsh(ke, { sshConfigFile: config(), knownHostsFile: changedJump, confirmHostKey: async () => true }));
      expect(err2.kind).toBe('host-key-changed');
      expect(err2.message).toMatch(/jump host/);

      const both = kh('jump3', `${target.knownHostsLine}\n${sshd.knownHostsLine}\n`);
      const jumpLog = sshd.log().length;
      const c = await connectSsh(ke, { sshConfigFile: config(), knownHostsFile: both });
      try {
        expect((await c.exec('echo behind-ok')).stdout).toBe('behind-ok\n');
        expect(c.label).toBe(`root@${target.host}:${target.port}`);
      } finally {
        c.close();
      }
      // The first hop really carried it.
      expect(sshd.log().slice(jumpLog)).toMatch(/Accepted publickey for root/);
    });
  });

  describe('legacy algorithms', () => {
    let old: Sshd;
    beforeAll(async () => {
      old = await startSshd({
        host: '127.0.8.8', hostKeyType: 'rsa', hostKeyName: 'old',
        extra: ['HostKeyAlgorithms ssh-rsa', 'KexAlgorithms diffie-hellman-group14-sha1'],
      });
    });
    afterAll(async () => { await old?.stop(); });

    it('are off by default and work when the appliance opts in', async () => {
      const file = kh('legacy', `${old.knownHostsLine}\n`);
      const oldEp: SshEndpoint = { appliance: 'old', host: old.host, port: old.port, user: 'root', auth: 'key', keyFile: old.userKey.path };
      const err = await refusal(connectSsh(oldEp, { sshConfig: NO_CONFIG, knownHostsFile: file }));
      expect(err.message).toMatch(/legacyAlgorithms: true/);
      expect(await exec({ ...oldEp, legacyAlgorithms: true }, { knownHostsFile: file })).toBe('connected-42');
    });
  });
});
