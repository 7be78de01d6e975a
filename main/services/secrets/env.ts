// Secrets from the environment for the CLI (scripts, CI, daemons): LBDESK_SECRET_<NAME>. Read
// first, before the keyring, so a run can override what is stored; never written.
import { keepingOf, type SecretStore } from './types';

/**
 * The variable holding a secret: a workspace's named secret (`named/radius-shared`) by its own
 * name (LBDESK_SECRET_RADIUS_SHARED), anything else by its full store name
 * (`appliance/lb1/password` → LBDESK_SECRET_APPLIANCE_LB1_PASSWORD); upper-cased, other
 * characters as "_".
 */
export function secretEnvVariable(secret: string): string {
  const name = secret.startsWith('named/') ? secret.slice('named/'.length) : secret;
  return `LBDESK_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The environment in front of another store: reads look here first, writes go behind. */
export class EnvSecretStore implements SecretStore {
  constructor(private readonly env: NodeJS.ProcessEnv, private readonly behind: SecretStore) {}

  async get(name: string): Promise<string | undefined> {
    return this.env[secretEnvVariable(name)] ?? this.behind.get(name);
  }

  async set(name: string, value: string): Promise<void> {
    await this.behind.set(name, value);
  }

  async delete(name: string): Promise<void> {
    await this.behind.delete(name);
  }

  keeping() {
    return keepingOf(this.behind);
  }

  async has(name: string): Promise<boolean> {
    return this.env[secretEnvVariable(name)] !== undefined || this.behind.has(name);
  }
}
