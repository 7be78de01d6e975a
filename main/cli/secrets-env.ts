// The command line's secrets: a workspace names its shared secrets (radius.secret,
// ldap.bindSecret); their values come from LBDESK_SECRET_<NAME> environment variables, never
// from the workspace file.
import type { Workspace } from '../../shared/model/schema';
import { MemorySecretStore } from '../services/secrets/memory';
import { secretName } from '../services/secrets/types';

export const SECRETS_HELP = 'Shared secrets named in the workspace (radius.secret, ldap.bindSecret) are read from\nLBDESK_SECRET_<NAME> environment variables (name upper-cased, other characters as "_").';

export function secretVariable(name: string): string {
  return `LBDESK_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** Adds the value of every secret the workspace's checks name and the environment has (again on a reload). */
export async function addSecretsFromEnv(ws: Workspace, store: MemorySecretStore): Promise<MemorySecretStore> {
  for (const hc of [...ws.groups.map((g) => g.healthCheck), ...ws.targetSets.map((t) => t.healthCheck)]) {
    for (const name of [hc?.radius?.secret, hc?.ldap?.bindSecret]) {
      if (!name) continue;
      const value = process.env[secretVariable(name)];
      if (value !== undefined) await store.set(secretName.named(name), value);
    }
  }
  return store;
}
