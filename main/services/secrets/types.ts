// One port for every secret (SSH passwords, key passphrases, RADIUS secrets, LDAP binds).
// Implementations: safeStorage in the app, OS keyring or prompt in the CLI, memory in tests.
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  has(name: string): Promise<boolean>;
}

/** Secret names are namespaced so one store can serve every kind (defined in shared/ for the UI too). */
export { secretName } from '../../../shared/api/secrets';
