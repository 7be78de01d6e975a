// The real services behind the contract, in-process: the renderer under test talks to the same
// handlers as the app and browser mode (files in a temp folder), through the same dispatch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ApiClient, EventMap, EventName } from '../../../shared/api/contract';
import { createAppServices, type AppServices } from '../../../main/services/api/wiring';
import { browserShell } from '../../../main/services/api/shell';
import { callDirect } from '../../../main/services/api/dispatch';
import { MemorySecretStore } from '../../../main/services/secrets/memory';

export const ROOT = resolve(__dirname, '../../..');

export interface RealApi { api: ApiClient; services: AppServices; dataDir: string; close(): Promise<void> }

/**
 * `startPath`: the file the host was started on (`serve FILE --ui`), given here as a name in the data folder.
 * `ssh`: known_hosts and ssh config of the test's own (never ~/.ssh), for tests against a real sshd.
 */
export function realApi(opts: { startFile?: string; ssh?: { knownHostsFile: string; sshConfigFile: string }; operateIdleMs?: number } = {}): RealApi {
  const dataDir = mkdtempSync(join(tmpdir(), 'lbdesk-renderer-'));
  const startPath = opts.startFile ? join(dataDir, opts.startFile) : undefined;
  const services = createAppServices({ shell: browserShell(), dataDir, resourcesDir: ROOT, secrets: new MemorySecretStore(), startPath, operateIdleMs: opts.operateIdleMs, ...opts.ssh });
  const api: ApiClient = {
    // Results cross a transport in real life: a JSON round trip keeps tests honest about that.
    call: async (method, args) => JSON.parse(JSON.stringify((await callDirect(services.handlers, method, args)) ?? null)),
    on<E extends EventName>(event: E, fn: (p: EventMap[E]) => void) {
      return services.events.subscribe((e) => {
        if (e.event === event) fn(JSON.parse(JSON.stringify(e.payload)) as EventMap[E]);
      });
    },
  };
  return {
    api,
    services,
    dataDir,
    close: async () => {
      await services.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
