// The auth walk on real key files (ssh-keygen): what a step that cannot be attempted does.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAuthMethod } from 'ssh2';
import { authHandler, type AuthStep } from '../../../../main/services/ssh/auth';
import type { SshError } from '../../../../main/services/ssh/errors';
import type { SecretStore } from '../../../../main/services/secrets/types';
import { BoundSecretStore } from '../../../../main/services/secrets/bound';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { keygen } from '../../../helpers/sshd';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store like the CLI's without a terminal: a secret it lacks is an error, not undefined. */
const noTerminal: SecretStore = {
  get: async (name: string) => {
    throw new Error(`secret "${name}" is needed but there is no terminal to ask for it`);
  },
  set: async () => undefined,
  delete: async () => undefined,
  has: async () => false,
};

/** The first method the handler offers, or false. */
function firstMethod(steps: AuthStep[], state: { failure?: SshError; tried: string[] }, secrets: SecretStore = noTerminal, host = '192.0.2.10'): Promise<AnyAuthMethod | false> {
  const handler = authHandler({ appliance: 'lb1', host, username: 'root', steps, secrets }, state);
  return new Promise((resolve) => (handler as (l: unknown, p: unknown, n: (m: AnyAuthMethod | false) => void) => void)(null, null, resolve));
}

describe('auth steps that cannot be attempted', () => {
  const encrypted = keygen(join(dir, 'id_enc'), 'ed25519', randomBytes(9).toString('base64'));
  const plain = keygen(join(dir, 'id_plain'));

  it('a default key whose passphrase cannot be had is skipped, as OpenSSH does in batch mode', async () => {
    const state = { tried: [] as string[] };
    const m = await firstMethod([{ kind: 'key', file: encrypted.path, required: false }, { kind: 'key', file: plain.path, required: false }], state);
    expect(m).toMatchObject({ type: 'publickey', username: 'root' });
    expect(state.tried).toEqual([`key ${plain.path}`]);
    expect(state).not.toHaveProperty('failure');
  });

  it('the key the appliance names stops the walk with the store\'s reason', async () => {
    const state: { failure?: SshError; tried: string[] } = { tried: [] };
    expect(await firstMethod([{ kind: 'key', file: encrypted.path, required: true }, { kind: 'key', file: plain.path, required: false }], state)).toBe(false);
    expect(state.failure?.message).toMatch(/no terminal to ask for it/);
  });

  it('a key file that is not there is said in words (--identity /nonexistent said "ENOENT")', async () => {
    const state: { failure?: SshError; tried: string[] } = { tried: [] };
    const missing = join(dir, 'no-such-key');
    expect(await firstMethod([{ kind: 'key', file: missing, required: true }], state)).toBe(false);
    expect(state.failure?.message).toBe(`cannot read key file ${missing}: no such file`);
  });
});

describe('a stored appliance password goes only to the host it was first used with', () => {
  it('is sent to its first host again, refused (never sent) to another until stored again', async () => {
    const store = new BoundSecretStore(new MemorySecretStore(), join(dir, 'bindings.json'));
    await store.set('appliance/lb1/password', 'S3cret-lb1');
    const first = await firstMethod([{ kind: 'password' }], { tried: [] }, store, '192.0.2.10');
    expect(first).toMatchObject({ type: 'password', password: 'S3cret-lb1' });
    expect(await firstMethod([{ kind: 'password' }], { tried: [] }, store, '192.0.2.10')).toMatchObject({ type: 'password' });
    // The page edited the appliance's host to one of its own: nothing is offered.
    const state: { failure?: SshError; tried: string[] } = { tried: [] };
    expect(await firstMethod([{ kind: 'password' }], state, store, '127.0.12.9')).toBe(false);
    expect(state.failure?.kind).toBe('secret-refused');
    expect(state.failure?.message).toBe('appliance lb1: secret appliance/lb1/password is only sent to 192.0.2.10, where it was first used, not to 127.0.12.9: if the workspace really moved, store the secret again');
    expect(readFileSync(join(dir, 'bindings.json'), 'utf8')).not.toContain('S3cret');
    expect(statSync(join(dir, 'bindings.json')).mode & 0o777).toBe(0o600);
    // The user storing it again is the consent for the new host.
    await store.set('appliance/lb1/password', 'S3cret-lb1');
    expect(await firstMethod([{ kind: 'password' }], { tried: [] }, store, '127.0.12.9')).toMatchObject({ type: 'password' });
  });
});

