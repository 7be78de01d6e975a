// The CLI's SecretStore: LBDESK_SECRET_<NAME> variables, then the OS keyring when a Secret
// Service answers; a secret neither has is asked for on the terminal (once per process) and
// never stored. Without a terminal, the error names the secret and the exact way to store it.
import { EnvSecretStore, secretEnvVariable } from './env';
import { KeyringSecretStore, findOnPath, KEYRING_APPLICATION } from './keyring';
import { MemorySecretStore } from './memory';
import { PromptSecretStore, type PromptOptions } from './prompt';
import type { SecretStore } from './types';

export interface CliSecrets {
  store: SecretStore;
  /** `keyring` when secret-tool reached a Secret Service, else `prompt`. */
  kind: 'keyring' | 'prompt';
}

/** A word for sh: left alone when plain, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command that stores `name` where the CLI looks for it (secret-tool reads the value itself). */
export function keyringStoreCommand(name: string): string {
  return `secret-tool store --label=${shellWord(`lbdesk: ${name}`)} application ${KEYRING_APPLICATION} secret ${shellWord(name)}`;
}

export async function createCliSecretStore(opts: { env?: NodeJS.ProcessEnv } & Omit<PromptOptions, 'backing' | 'hint'> = {}): Promise<CliSecrets> {
  const env = opts.env ?? process.env;
  if (env.LBDESK_KEYRING !== 'off' && findOnPath('secret-tool', env)) {
    const keyring = new KeyringSecretStore({ env });
    if (await keyring.available()) {
      return {
        kind: 'keyring',
        store: new PromptSecretStore({
          ...opts,
          backing: new EnvSecretStore(env, keyring),
          hint: (name) => `store it in the keyring first: ${keyringStoreCommand(name)} (or set ${secretEnvVariable(name)})`,
        }),
      };
    }
  }
  return {
    kind: 'prompt',
    store: new PromptSecretStore({
      ...opts,
      backing: new EnvSecretStore(env, new MemorySecretStore()),
      hint: (name) => `set ${secretEnvVariable(name)}, or run the command from a terminal, or ${keyringWhy(env)}`,
    }),
  };
}

/**
 * Where browser mode keeps the secrets the page sets: the OS keyring when a Secret Service
 * answers, else this process's memory, with the words the page shows for that.
 */
export async function browserSecretStore(env: NodeJS.ProcessEnv = process.env): Promise<SecretStore> {
  if (env.LBDESK_KEYRING !== 'off' && findOnPath('secret-tool', env)) {
    const keyring = new KeyringSecretStore({ env });
    if (await keyring.available()) return keyring;
  }
  return new MemorySecretStore(`kept in memory only, until this lbdesk stops (nothing is written; no keyring): to keep secrets, ${keyringWhy(env)}`);
}

/** Why the keyring was not used, as advice: switched off, no secret-tool, or no keyring answering. */
function keyringWhy(env: NodeJS.ProcessEnv): string {
  if (env.LBDESK_KEYRING === 'off') return 'use the keyring (it is off: LBDESK_KEYRING=off)';
  if (!findOnPath('secret-tool', env)) return 'install libsecret-tools and a Secret Service keyring';
  return 'start a Secret Service keyring (secret-tool found none answering)';
}
