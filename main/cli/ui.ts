// Browser mode for CLI commands (`serve --ui`, `demo`): the app's services behind the UI host.
import type { EngineIo } from '../services/engine';
import { join } from 'node:path';
import { createAppServices, type AppServices } from '../services/api/wiring';
import { dataDir } from '../services/paths';
import type { MemorySecretStore } from '../services/secrets/memory';
import { browserSecretStore } from '../services/secrets/cli';
import { LayeredSecretStore } from '../services/secrets/layered';
import { startUiHost } from '../host';
import { CliError } from './errors';
import { listenFailure } from './options';
import { packageRoot } from './root';
import { browserShell } from '../services/api/shell';

export interface BrowserUi { url: string; dataDir: string; services: AppServices; close(): Promise<void> }

export async function startBrowserUi(opts: { port?: number; secrets?: MemorySecretStore; startPath?: string; io?: EngineIo } = {}): Promise<BrowserUi> {
  const root = packageRoot();
  const dir = dataDir();
  // What the page sets goes to the OS keyring where there is one (else memory, and the page is told).
  const kept = await browserSecretStore();
  const secrets = opts.secrets ? new LayeredSecretStore(opts.secrets, kept) : kept;
  const services = createAppServices({ shell: browserShell(), dataDir: dir, resourcesDir: root, secrets, startPath: opts.startPath, ...(opts.io ? { io: opts.io } : {}) });
  // Secrets handed to this process (environment, keyring) are the user's word for now: their
  // old places are forgotten, so a check whose port changed since the last run is not refused.
  if (opts.secrets) await services.secrets.given(opts.secrets.names());
  let host: Awaited<ReturnType<typeof startUiHost>>;
  try {
    host = await startUiHost({ handlers: services.handlers, events: services.events, staticDir: join(root, 'out', 'renderer'), port: opts.port });
  } catch (err) {
    await services.stop(); // a taken port: nothing of ours stays behind
    const why = listenFailure(err, '127.0.0.1', opts.port);
    throw why ? new CliError(why, 2) : err;
  }
  return {
    url: host.url,
    dataDir: dir,
    services,
    close: async () => {
      await host.close();
      await services.stop();
    },
  };
}
