// Connecting to a test appliance the way lbdesk does (ssh/connect.ts): pinned known_hosts,
// an empty ssh config (never the user's), key auth.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, type SshConnection, type SshEndpoint, type SshOptions } from '../../../main/services/ssh';

export interface TestEndpoint { host: string; port: number; keyFile: string; knownHostsLine: string; user?: string }

export function sshFor(t: TestEndpoint, appliance = 'test-appliance'): { endpoint: SshEndpoint; options: SshOptions } {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-ssh-'));
  const knownHostsFile = join(dir, 'known_hosts');
  const sshConfigFile = join(dir, 'ssh_config');
  writeFileSync(knownHostsFile, `${t.knownHostsLine}\n`);
  writeFileSync(sshConfigFile, '');
  return {
    endpoint: { appliance, host: t.host, port: t.port, user: t.user ?? 'admin', auth: 'key', keyFile: t.keyFile },
    options: { knownHostsFile, sshConfigFile, readyTimeoutMs: 10_000, keepaliveIntervalMs: 5000 },
  };
}

export async function connectTo(t: TestEndpoint, appliance?: string): Promise<SshConnection> {
  const { endpoint, options } = sshFor(t, appliance);
  return connectSsh(endpoint, options);
}
