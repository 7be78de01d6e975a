// The app's SecretStore with a real reversible cipher in place of safeStorage (AES-256-GCM with a
// key held in memory, as the OS keyring would hold it): values survive a restart, only ciphertext
// reaches the disk, and without a real keyring nothing is written at all.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { BASIC_TEXT_WARNING, SafeStorageSecretStore, secretsFile, UNAVAILABLE_WARNING } from '../../../main/app/secrets';
import { aesEncryptor, tempDir } from '../../helpers/app-ipc';

const SECRETS = {
  'appliance/lb1/password': 'Tr0ub4dor&3-ssh',
  'key//home/me/.ssh/id_ed25519/passphrase': 'correct horse battery staple',
  'named/radius-shared': 'r4dius-s3cr3t-ünïcode',
};

let tmp: ReturnType<typeof tempDir>;
const logs: string[] = [];
const log = (level: string, m: string) => logs.push(`${level} ${m}`);
beforeEach(() => {
  tmp = tempDir('app-secrets');
  logs.length = 0;
});
afterEach(() => tmp.cleanup());

describe('SafeStorageSecretStore with a keyring', () => {
  it('keeps values across restarts and writes only ciphertext, owner-readable', async () => {
    const key = randomBytes(32);
    const file = secretsFile(tmp.dir);
    const store = new SafeStorageSecretStore(file, aesEncryptor(key), { platform: 'linux', log });
    expect(store.persistent).toBe(true);
    expect(store.warnings).toEqual([]);
    for (const [name, value] of Object.entries(SECRETS)) await store.set(name, value);

    const text = readFileSync(file, 'utf8');
    for (const value of Object.values(SECRETS)) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(Buffer.from(value).toString('base64'));
      expect(text).not.toContain(Buffer.from(value).toString('hex'));
    }
    const parsed = JSON.parse(text) as { version: number; secrets: Record<string, string> };
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed.secrets).sort()).toEqual(Object.keys(SECRETS).sort());
    for (const blob of Object.values(parsed.secrets)) expect(blob).toMatch(/^[A-Za-z0-9+/]+=*$/);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);

    const again = new SafeStorageSecretStore(file, aesEncryptor(key), { platform: 'linux', log });
    for (const [name, value] of Object.entries(SECRETS)) expect(await again.get(name)).toBe(value);
    expect(await again.has('appliance/lb1/password')).toBe(true);
    await again.delete('appliance/lb1/password');
    expect(await again.has('appliance/lb1/password')).toBe(false);
    const third = new SafeStorageSecretStore(file, aesEncryptor(key), { platform: 'linux', log });
    expect(await third.get('appliance/lb1/password')).toBeUndefined();
    expect(await third.get('named/radius-shared')).toBe(SECRETS['named/radius-shared']);
  });

  it('serialises concurrent writes without losing one', async () => {
    const store = new SafeStorageSecretStore(secretsFile(tmp.dir), aesEncryptor(), { platform: 'linux' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`named/s${i}`, `value-${i}`)));
    const parsed = JSON.parse(readFileSync(secretsFile(tmp.dir), 'utf8')) as { secrets: Record<string, string> };
    expect(Object.keys(parsed.secrets)).toHaveLength(20);
  });

  it('reports a value it cannot decrypt (keyring reset) by name only, and keeps the blob', async () => {
    const file = secretsFile(tmp.dir);
    await new SafeStorageSecretStore(file, aesEncryptor(randomBytes(32)), { platform: 'linux' }).set('appliance/lb1/password', 'old-secret-value');
    const other = new SafeStorageSecretStore(file, aesEncryptor(randomBytes(32)), { platform: 'linux', log });
    expect(await other.get('appliance/lb1/password')).toBeUndefined();
    expect(logs.join('\n')).toContain('"appliance/lb1/password"');
    expect(logs.join('\n')).not.toContain('old-secret-value');
    expect(readFileSync(file, 'utf8')).toContain('appliance/lb1/password');
  });

  it('moves an unreadable file aside instead of overwriting it', async () => {
    const file = secretsFile(tmp.dir);
    writeFileSync(file, '{ not json');
    const store = new SafeStorageSecretStore(file, aesEncryptor(), { platform: 'linux', log });
    await store.set('named/x', 'y');
    expect(logs.some((l) => l.startsWith('error') && l.includes('unreadable'))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).secrets['named/x']).toBeDefined();
  });
});

describe('SafeStorageSecretStore without a keyring', () => {
  it('on Linux basic_text: warns, keeps values for the session, writes nothing', async () => {
    const enc = aesEncryptor(randomBytes(32), 'basic_text');
    const store = new SafeStorageSecretStore(secretsFile(tmp.dir), enc, { platform: 'linux', log });
    expect(store.persistent).toBe(false);
    expect(store.warnings).toEqual([BASIC_TEXT_WARNING]);
    expect(logs).toEqual([`warn secrets: ${BASIC_TEXT_WARNING}`]);
    await store.set('appliance/lb1/password', 'session-only');
    expect(await store.get('appliance/lb1/password')).toBe('session-only');
    expect(await store.has('appliance/lb1/password')).toBe(true);
    expect(existsSync(secretsFile(tmp.dir))).toBe(false);
    expect(enc.calls).toBe(0);
    await store.delete('appliance/lb1/password');
    expect(await store.has('appliance/lb1/password')).toBe(false);
  });

  it('the backend only matters on Linux', () => {
    const store = new SafeStorageSecretStore(secretsFile(tmp.dir), aesEncryptor(randomBytes(32), 'basic_text'), { platform: 'darwin' });
    expect(store.persistent).toBe(true);
  });

  it('when encryption is unavailable: warns and writes nothing', async () => {
    const enc = { ...aesEncryptor(), isEncryptionAvailable: () => false };
    const store = new SafeStorageSecretStore(secretsFile(tmp.dir), enc, { platform: 'win32', log });
    expect(store.warnings).toEqual([UNAVAILABLE_WARNING]);
    await store.set('named/x', 'y');
    expect(existsSync(secretsFile(tmp.dir))).toBe(false);
  });
});
