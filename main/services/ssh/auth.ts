// User authentication for one hop: ssh-agent, a key file (passphrase from the secret store or
// asked through the contract), or a password from the secret store. Secrets are fetched only
// once the host key has been accepted, and never appear in messages.
import { readChecked, ReadRefused } from '../files/read';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { utils, type AnyAuthMethod, type AuthHandlerMiddleware } from 'ssh2';
import type { InteractivePrompt, SecretPrompt } from '../../../shared/api/sync';
import type { SecretStore } from '../secrets/types';
import { secretName, secretToSend } from '../secrets/types';
import { SecretRefusedError } from '../secrets/bound';
import { SshError } from './errors';
import type { RsaSignatures } from './rsa-signatures';

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
  /** keyboard-interactive rounds that are not a lone password prompt (OTP …). */
  answerPrompts?: (p: InteractivePrompt) => Promise<string[] | undefined>;
  /** `user@host:port`, for prompts. */
  label?: string;
  /** Which signatures an RSA user key makes (see rsa-signatures.ts). */
  rsa?: RsaSignatures;
}


/** A private key is a few kilobytes. */
const MAX_KEY_BYTES = 1024 * 1024;

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
    // A FIFO named as a key is refused at once, never waited on.
    data = readChecked(file, { max: MAX_KEY_BYTES, hiddenAllowed: true }).bytes;
  } catch (err) {
    if (!required) return undefined;
    throw new SshError('config', `cannot read key file ${file}: ${err instanceof ReadRefused ? err.detail : (err as Error).message}`);
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
    case 'password':
      return { type: 'password', username: ctx.username, password: await appliancePassword(ctx) };
  }
}

/** The appliance's SSH password: secret store (only to the host it is bound to), else asked. */
async function appliancePassword(ctx: AuthContext): Promise<string> {
  const name = secretName.appliancePassword(ctx.appliance);
  let password: string | undefined;
  try {
    password = await secret(ctx, { kind: 'password', secret: name, prompt: `password for ${ctx.username} on ${ctx.appliance}` }, ctx.host);
  } catch (err) {
    if (err instanceof SecretRefusedError) throw new SshError('secret-refused', `appliance ${ctx.appliance}: ${err.message}`);
    throw err;
  }
  if (password === undefined) throw new SshError('secret-missing', `no password for appliance ${ctx.appliance} in the secret store (${name})`);
  return password;
}

type Prompts = { prompt: string; echo?: boolean }[];

/**
 * keyboard-interactive as OpenSSH and PuTTY answer it: a round that is one hidden prompt
 * mentioning a password gets the appliance's password (once: a second one means it was
 * wrong); any other round (an OTP, "Verification code:") goes to the user as it comes.
 */
function keyboardMethod(ctx: AuthContext, state: { failure?: SshError }): AnyAuthMethod {
  let passwordSent = false;
  const answer = async (name: string, instructions: string, prompts: Prompts): Promise<string[]> => {
    const only = prompts.length === 1 ? prompts[0]! : undefined;
    if (only && !only.echo && /pass(word|code|phrase)/i.test(only.prompt) && !/verification|one-time|otp|token/i.test(only.prompt)) {
      if (passwordSent) throw new SshError('auth', `${ctx.label ?? ctx.appliance}: the password was not accepted (asked again: "${only.prompt.trim()}")`);
      passwordSent = true;
      return [await appliancePassword(ctx)];
    }
    const asked = prompts.map((p) => `"${p.prompt.trim()}"`).join(', ');
    if (!ctx.answerPrompts) {
      throw new SshError('secret-missing', `${ctx.label ?? ctx.appliance} asks ${asked} (keyboard-interactive) and there is no terminal or window here to answer it`);
    }
    const got = await ctx.answerPrompts({ appliance: ctx.appliance, host: ctx.label ?? ctx.host, name, instructions, prompts: prompts.map((p) => ({ prompt: p.prompt, echo: p.echo === true })) });
    if (!got || got.length !== prompts.length) throw new SshError('auth', `${ctx.label ?? ctx.appliance}: ${asked} was not answered`);
    return got;
  };
  return {
    type: 'keyboard-interactive',
    username: ctx.username,
    prompt: (name: string, instructions: string, _lang: string, prompts: Prompts, finish: (answers: string[]) => void) => {
      answer(name, instructions, prompts).then(finish, (err: unknown) => {
        state.failure = err instanceof SshError ? err : new SshError('auth', `keyboard-interactive: ${(err as Error).message}`);
        finish([]);
      });
    },
  } as AnyAuthMethod;
}

export function describeStep(s: AuthStep): string {
  return s.kind === 'agent' ? 'ssh-agent' : s.kind === 'key' ? `key ${s.file}` : 'password';
}

/**
 * An ssh2 auth handler walking `steps` in order. A step that cannot even be attempted
 * (wrong passphrase, missing secret) stops the walk and is kept in `failure` for the report.
 */
function isRsaKey(m: AnyAuthMethod): boolean {
  if (m.type !== 'publickey') return false;
  const k = utils.parseKey(m.key as Buffer, (m as { passphrase?: string }).passphrase);
  return !(k instanceof Error) && k.type === 'ssh-rsa';
}

export function authHandler(ctx: AuthContext, state: { failure?: SshError; tried: string[] }): AuthHandlerMiddleware {
  let i = 0;
  let keyboard = false;
  /** An RSA key tried with each of its signature algorithms in turn. */
  let rsaRetry: { method: AnyAuthMethod; algos: string[]; label: string } | undefined;
  return (left, _partial, next) => {
    const done = next as (m: AnyAuthMethod | false) => void;
    const advance = async (): Promise<void> => {
      if (rsaRetry?.algos.length && (!left || left.includes('publickey'))) {
        const algo = rsaRetry.algos.shift()!;
        ctx.rsa!.use(algo);
        state.tried.push(`${rsaRetry.label} (${algo})`);
        return done(rsaRetry.method);
      }
      rsaRetry = undefined;
      // A password step also answers keyboard-interactive (PAM logins), once the server says it takes that.
      if (keyboard && left?.includes('keyboard-interactive')) {
        keyboard = false;
        state.tried.push('keyboard-interactive');
        return done(keyboardMethod(ctx, state));
      }
      keyboard = false;
      while (i < ctx.steps.length) {
        const step = ctx.steps[i++]!;
        if (step.kind === 'password' && left && !left.includes('password')) {
          if (!left.includes('keyboard-interactive')) continue;
          state.tried.push('keyboard-interactive');
          return done(keyboardMethod(ctx, state));
        }
        const method = await methodFor(ctx, step);
        if (step.kind === 'password') keyboard = true;
        if (method && ctx.rsa && isRsaKey(method)) {
          const algos = ctx.rsa.plan();
          if (!algos.length) continue;
          rsaRetry = { method, algos, label: describeStep(step) };
          return advance();
        }
        if (method && ctx.rsa && method.type === 'agent') ctx.rsa.use(ctx.rsa.plan()[0] ?? 'rsa-sha2-512');
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
