// The app's services as a window drives them, for tests against a real sshd: their own data
// folder, known_hosts and an empty ssh config under `dir`, and the window's answer to a host-key
// question (accept the unknown key it was shown) given at once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callDirect } from '../../main/services/api/dispatch';
import { browserShell } from '../../main/services/api/shell';
import { createAppServices, type AppServices } from '../../main/services/api/wiring';
import { MemorySecretStore } from '../../main/services/secrets/memory';
import type { SecretStore } from '../../main/services/secrets/types';
import { ROOT } from './cli';

/** `secrets`: the store the window's services hold (a test may count what is read from it). */
export function windowServices(dir: string, secrets: SecretStore = new MemorySecretStore()): AppServices {
  writeFileSync(join(dir, 'ssh_config'), '');
  const svc = createAppServices({
    shell: browserShell(), dataDir: join(dir, 'data'), resourcesDir: ROOT, secrets,
    knownHostsFile: join(dir, 'known_hosts'), sshConfigFile: join(dir, 'ssh_config'),
  });
  svc.events.subscribe((e) => {
    if (e.event === 'hostKey.prompt') void callDirect(svc.handlers, 'hostKey.answer', { id: (e.payload as { id: string }).id, accept: true });
  });
  return svc;
}
