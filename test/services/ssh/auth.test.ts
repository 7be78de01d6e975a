// The auth walk on real key files (ssh-keygen): what a step that cannot be attempted does.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAuthMethod } from 'ssh2';
import { authHandler, type AuthStep } from '../../../main/services/ssh/auth';
import type { SshError } from '../../../main/services/ssh/errors';
import type { SecretStore } from '../../../main/services/secrets/types';
import { keygen } from '../../helpers/sshd';

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
function firstMethod(steps: AuthStep[], state: { failure?: SshError; tried: string[] }): Promise<AnyAuthMethod | false> {
  const handler = authHandler({ appliance: 'lb1', username: 'root', steps, secrets: noTerminal }, state);
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
});
