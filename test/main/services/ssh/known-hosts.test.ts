// known_hosts in OpenSSH's own format, checked against OpenSSH's own tools.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHosts, hashHostName, patternsMatch, fingerprintOf } from '../../../../main/services/ssh';
import { keygen } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';

const haveKeygen = existsSync('/usr/bin/ssh-keygen');

describe('known_hosts host patterns', () => {
  it('matches plain names, lists, wildcards, negations and [host]:port', () => {
    expect(patternsMatch('lb1.example.net', 'lb1.example.net')).toBe(true);
    expect(patternsMatch('LB1.example.net', 'lb1.example.net')).toBe(true);
    expect(patternsMatch('a,b,lb1', 'lb1')).toBe(true);
    expect(patternsMatch('*.example.net', 'lb1.example.net')).toBe(true);
    expect(patternsMatch('lb?.example.net', 'lb12.example.net')).toBe(false);
    expect(patternsMatch('*.example.net,!lb1.example.net', 'lb1.example.net')).toBe(false);
    expect(patternsMatch('[127.0.8.1]:2222', '[127.0.8.1]:2222')).toBe(true);
    expect(patternsMatch('127.0.8.1', '[127.0.8.1]:2222')).toBe(false);
    expect(patternsMatch('[127.0.8.1]:*', '[127.0.8.1]:2222')).toBe(true);
  });

  it('matches hashed entries only for the hashed name', () => {
    const hashed = hashHostName('[127.0.8.1]:2222');
    expect(hashed).toMatch(/^\|1\|[A-Za-z0-9+/=]{28}\|[A-Za-z0-9+/=]{28}$/);
    expect(patternsMatch(hashed, '[127.0.8.1]:2222')).toBe(true);
    expect(patternsMatch(hashed, '[127.0.8.1]:2223')).toBe(false);
  });
});

describe.skipIf(skipBecause(!haveKeygen && 'ssh-keygen is missing (apt-get install openssh-client)', 'known_hosts files'))('known_hosts files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-kh-'));
  const keyA = keygen(join(dir, 'a'));
  const keyB = keygen(join(dir, 'b'));
  const keyR = keygen(join(dir, 'r'), 'ecdsa');
  const blob = (pub: string) => Buffer.from(pub.split(' ')[1]!, 'base64');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('computes the fingerprint ssh-keygen prints', () => {
    expect(fingerprintOf(blob(keyA.pub))).toBe(keyA.fingerprint);
  });

  it('tells known, changed, unknown (with other types) and revoked apart', async () => {
    const file = join(dir, 'kh1');
    const [typeA, b64A] = keyA.pub.split(' ');
    const [typeB, b64B] = keyB.pub.split(' ');
    const [typeR, b64R] = keyR.pub.split(' ');
    writeFileSync(file, [
      '# comment line',
      `lb1,192.0.2.99 ${typeA} ${b64A} comment`,
      `[lb2]:2222 ${typeA} ${b64A}`,
      `lb3 ${typeR} ${b64R}`,
      `@revoked * ${typeB} ${b64B}`,
      'garbage',
      '',
    ].join('\n'));
    const kh = await KnownHosts.load([file]);
    expect(kh.check('lb1', 22, blob(keyA.pub))).toEqual({ status: 'known', from: `${file}:2` });
    expect(kh.check('lb2', 2222, blob(keyA.pub)).status).toBe('known');
    expect(kh.check('lb2', 22, blob(keyA.pub)).status).toBe('unknown');
    expect(kh.check('lb1', 22, blob(keygen(join(dir, 'c')).pub))).toMatchObject({ status: 'changed', from: `${file}:2` });
    expect(kh.check('lb3', 22, blob(keyA.pub))).toEqual({ status: 'unknown', otherTypes: [typeR] });
    expect(kh.check('anything', 22, blob(keyB.pub))).toEqual({ status: 'revoked', from: `${file}:5` });
  });

  it('writes hashed entries that OpenSSH finds, after a file without a final newline', async () => {
    const file = join(dir, 'kh2');
    const [typeA, b64A] = keyA.pub.split(' ');
    writeFileSync(file, `other ${typeA} ${b64A}`);
    const kh = await KnownHosts.load([file]);
    await kh.add('127.0.8.1', 2222, blob(keyB.pub));
    await kh.add('lb9.example.net', 22, blob(keyA.pub));
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')).toHaveLength(4);
    expect(text).not.toContain('127.0.8.1');
    const found = execFileSync('ssh-keygen', ['-F', '[127.0.8.1]:2222', '-f', file], { encoding: 'utf8' });
    expect(found).toContain(keyB.pub.split(' ')[1]);
    expect(execFileSync('ssh-keygen', ['-F', 'lb9.example.net', '-f', file], { encoding: 'utf8' })).toContain('line 3');
    const reread = await KnownHosts.load([file]);
    expect(reread.check('127.0.8.1', 2222, blob(keyB.pub))).toEqual({ status: 'known', from: `${file}:2` });
  });

  it('reads entries hashed by ssh-keygen -H', async () => {
    const file = join(dir, 'kh3');
    const [typeA, b64A] = keyA.pub.split(' ');
    writeFileSync(file, `[lb4.example.net]:2200 ${typeA} ${b64A}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    expect(readFileSync(file, 'utf8')).toMatch(/^\|1\|/);
    const kh = await KnownHosts.load([file]);
    expect(kh.check('lb4.example.net', 2200, blob(keyA.pub)).status).toBe('known');
  });
});
