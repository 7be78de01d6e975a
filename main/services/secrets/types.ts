// One port for every secret (SSH passwords, key passphrases, RADIUS secrets, LDAP binds).
// Implementations: safeStorage in the app, OS keyring or prompt in the CLI, memory in tests.
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  has(name: string): Promise<boolean>;
  /**
   * The secret, to be sent to `host` (a password on the wire, a shared secret). A store may
   * refuse a host the secret was not first used with (BoundSecretStore); without this, get().
   */
  getToSend?(name: string, host: string): Promise<string | undefined>;
  /** Where set() keeps values (told to the page); a store without it keeps them in memory. */
  keeping?(): SecretKeeping;
}

/** What a store says of itself, or memory only. */
export function keepingOf(store: SecretStore): SecretKeeping {
  return store.keeping?.() ?? { kept: 'memory', note: MEMORY_ONLY };
}

export const MEMORY_ONLY = 'kept in memory only, until lbdesk stops: nothing was written';


/** A secret that leaves the machine for `host`: through the store's host binding when it has one. */
export function secretToSend(store: SecretStore, name: string, host: string): Promise<string | undefined> {
  return store.getToSend ? store.getToSend(name, host) : store.get(name);
}

/** Secret names are namespaced so one store can serve every kind (defined in shared/ for the UI too). */
export { secretName } from '../../../shared/api/secrets';
import type { SecretKeeping } from '../../../shared/api/secrets';
