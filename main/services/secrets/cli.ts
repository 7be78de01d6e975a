// The CLI's SecretStore: the OS keyring when a Secret Service answers, else prompt-only. Either
// way a secret the keyring lacks is asked for on the terminal (once per process) and never stored.
import { KeyringSecretStore, findOnPath, KEYRING_APPLICATION } from './keyring';
import { PromptSecretStore, type PromptOptions } from './prompt';
import type { SecretStore } from './types';

export interface CliSecrets {
  store: SecretStore;
  /** `keyring` when secret-tool reached a Secret Service, else `prompt`. */
  kind: 'keyring' | 'prompt';
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
          backing: keyring,
          hint: (name) => `store it in the keyring first: secret-tool store --label='lbdesk: ${name}' application ${KEYRING_APPLICATION} secret ${name}`,
        }),
      };
    }
  }
  return {
    kind: 'prompt',
    store: new PromptSecretStore({ ...opts, hint: 'run the command from a terminal, or install libsecret-tools and a Secret Service keyring' }),
  };
}
