// The command line's secrets. Sync commands and `check` use the CLI store (LBDESK_SECRET_<NAME>
// variables, the OS keyring, a prompt on a terminal: main/services/secrets/cli.ts); `serve`
// reads the variables only (addSecretsFromEnv). A workspace names its shared secrets
// (radius.secret, ldap.bindSecret); values never come from the workspace file.
import type { Workspace } from '../../shared/model/schema';
import { createCliSecretStore } from '../services/secrets/cli';
import { secretEnvVariable } from '../services/secrets/env';
import { KeyringError } from '../services/secrets/keyring';
import { MemorySecretStore } from '../services/secrets/memory';
import { SecretUnavailableError } from '../services/secrets/prompt';
import { secretName, type SecretStore } from '../services/secrets/types';

export const SECRETS_HELP = 'Shared secrets named in the workspace (radius.secret, ldap.bindSecret) are read from\nLBDESK_SECRET_<NAME> environment variables (name upper-cased, other characters as "_").';

export const CLI_SECRETS_HELP = `Secrets (SSH passwords, key passphrases, shared secrets named in the workspace) come from
LBDESK_SECRET_<NAME> environment variables, then the OS keyring (secret-tool; LBDESK_KEYRING=off
skips it), then a prompt on the terminal. Store one with:
  secret-tool store --label='lbdesk: appliance/NAME/password' application lbdesk secret appliance/NAME/password`;

export function secretVariable(name: string): string {
  return secretEnvVariable(secretName.named(name));
}

/** The shared secrets the workspace's checks name (only that group's with `group`). */
function checkSecretNames(workspace: Workspace, group?: string): string[] {
  const names = new Set<string>();
  const checks = group === undefined
    ? [...workspace.groups.map((g) => g.healthCheck), ...workspace.targetSets.map((t) => t.healthCheck)]
    : [...workspace.groups.filter((g) => g.name === group).map((g) => g.healthCheck), ...workspace.targetSets.filter((t) => `ts${t.number}` === group).map((t) => t.healthCheck)];
  for (const hc of checks) {
    for (const name of [hc?.radius?.secret, hc?.ldap?.bindSecret]) if (name) names.add(name);
  }
  return [...names];
}

/** Adds the value of every secret the workspace's checks name and the environment has (again on a reload). */
export async function addSecretsFromEnv(workspace: Workspace, store: MemorySecretStore): Promise<MemorySecretStore> {
  for (const name of checkSecretNames(workspace)) {
    const value = process.env[secretVariable(name)];
    if (value !== undefined) await store.set(secretName.named(name), value);
  }
  return store;
}

/** The CLI store, made on first use (the keyring probe runs secret-tool) and shared by the process. */
class LazyCliStore implements SecretStore {
  private made?: Promise<SecretStore>;
  private store(): Promise<SecretStore> {
    return (this.made ??= createCliSecretStore().then((s) => s.store));
  }
  async get(name: string) { return (await this.store()).get(name); }
  async set(name: string, value: string) { await (await this.store()).set(name, value); }
  async delete(name: string) { await (await this.store()).delete(name); }
  async has(name: string) { return (await this.store()).has(name); }
}

let shared: SecretStore | undefined;
export function cliSecretStore(): SecretStore {
  return (shared ??= new LazyCliStore());
}

/**
 * The check secrets, fetched before any probe runs: a prompt must not race a probe's timeout.
 * A secret that cannot be had is returned in `missing` (the words say how to store it, for the
 * caller to print once); the probes needing it fail saying it is not in the secret store.
 */
export async function secretsForChecks(workspace: Workspace, group?: string, from: SecretStore = cliSecretStore()): Promise<{ store: MemorySecretStore; missing: string[] }> {
  const store = new MemorySecretStore();
  const missing: string[] = [];
  for (const name of checkSecretNames(workspace, group)) {
    const key = secretName.named(name);
    try {
      const value = await from.get(key);
      if (value !== undefined) await store.set(key, value);
    } catch (err) {
      if (!(err instanceof SecretUnavailableError || err instanceof KeyringError)) throw err;
      missing.push(err.message);
    }
  }
  return { store, missing };
}
