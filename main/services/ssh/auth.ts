// User authentication for one hop: ssh-agent, a key file (passphrase from the secret store or
// asked through the contract), or a password from the secret store. Secrets are fetched only
// once the host key has been accepted, and never appear in messages.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { utils, type AnyAuthMethod, type AuthHandlerMiddleware } from 'ssh2';
import type { SecretPrompt } from '../../../shared/api/sync';
import type { SecretStore } from '../secrets/types';
import { secretName, secretToSend } from '../secrets/types';
import { SecretRefusedError } from '../secrets/bound';
import { SshError } from './errors';

export type AuthStep =
  | { kind: 'agent'; socket: string }
  | { kind: 'key'; file: string; required: boolean }
  | { kind: 'password' };

export interface AuthContext {
  appliance: string;
  /** Where the password goes, `host:port` (a stored one only goes where it was first used). */
  host: string;
  username: string;
  steps: AuthStep[];
  secrets?: SecretStore;
  askSecret?: (p: SecretPrompt) => Promise<string | undefined>;
}

/** Keys OpenSSH tries when no IdentityFile is given. */
export const DEFAULT_KEY_FILES = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => join(homedir(), '.ssh', n));

async function secret(ctx: AuthContext, p: Omit<SecretPrompt, 'appliance'>, sendTo?: string): Promise<string | undefined> {
  const stored = ctx.secrets && (sendTo === undefined ? await ctx.secrets.get(p.secret) : await secretToSend(ctx.secrets, p.secret, sendTo));
  if (stored !== undefined) return stored;
  return ctx.askSecret?.({ ...p, appliance: ctx.appliance });
}

async function keyMethod(ctx: AuthContext, file: string, required: boolean): Promise<AnyAuthMethod | undefined> {
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (err) {
    if (!required) return undefined;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (code ?? 'error');
    throw new SshError('config', `cannot read key file ${file}: ${why}`);
  }
  const plain = utils.parseKey(data);
  if (!(plain instanceof Error)) return { type: 'publickey', username: ctx.username, key: data };
  if (!/passphrase/i.test(plain.message)) {
    if (!required) return undefined;
    throw new SshError('config', `key file ${file} is not a usable private key: ${plain.message}`);
  }
  const name = secretName.keyPassphrase(file);
  let pass: string | undefined;
  try {
    pass = await secret(ctx, { kind: 'passphrase', secret: name, prompt: `passphrase for ${file}` });
  } catch (err) {
    // A default key whose passphrase cannot be had here (no terminal to ask) is skipped, as
    // OpenSSH does in batch mode: the next key or method may still log in.
    if (!required) return undefined;
    throw err;
  }
  if (pass === undefined) {
    if (!required) return undefined;
    throw new SshError('secret-missing', `key ${file} is encrypted and no passphrase is in the secret store (${name}) or was given`);
  }
  if (utils.parseKey(data, pass) instanceof Error) throw new SshError('auth', `wrong passphrase for key ${file}`);
  return { type: 'publickey', username: ctx.username, key: data, passphrase: pass };
}

async function methodFor(ctx: AuthContext, step: AuthStep): Promise<AnyAuthMethod | undefined> {
  switch (step.kind) {
    case 'agent':
      return { type: 'agent', username: ctx.username, agent: step.socket };
    case 'key':
      return keyMethod(ctx, step.file, step.required);
    case 'password': {
      const name = secretName.appliancePassword(ctx.appliance);
      let password: string | undefined;
      try {
        password = await secret(ctx, { kind: 'password', secret: name, prompt: `password for ${ctx.username} on ${ctx.appliance}` }, ctx.host);
      } catch (err) {
        if (err instanceof SecretRefusedError) throw new SshError('secret-refused', `appliance ${ctx.appliance}: ${err.message}`);
        throw err;
      }
      if (password === undefined) throw new SshError('secret-missing', `no password for appliance ${ctx.appliance} in the secret store (${name})`);
      return { type: 'password', username: ctx.username, password };
    }
  }
}

export function describeStep(s: AuthStep): string {
  return s.kind === 'agent' ? 'ssh-agent' : s.kind === 'key' ? `key ${s.file}` : 'password';
}

/**
 * An ssh2 auth handler walking `steps` in order. A step that cannot even be attempted
 * (wrong passphrase, missing secret) stops the walk and is kept in `failure` for the report.
 */
export function authHandler(ctx: AuthContext, state: { failure?: SshError; tried: string[] }): AuthHandlerMiddleware {
  let i = 0;
  return (_left, _partial, next) => {
    const done = next as (m: AnyAuthMethod | false) => void;
    const advance = async (): Promise<void> => {
      while (i < ctx.steps.length) {
        const step = ctx.steps[i++]!;
        const method = await methodFor(ctx, step);
        if (method) {
          state.tried.push(describeStep(step));
          return done(method);
        }
      }
      done(false);
    };
    advance().catch((err: unknown) => {
      state.failure = err instanceof SshError ? err : new SshError('auth', `authentication could not start: ${(err as Error).message}`);
      done(false);
    });
  };
}
