// Builds the services behind the contract once, for whichever shell hosts them (app, browser mode).
import type { EngineIo } from '../engine';
import { join } from 'node:path';
import type { AppInfo } from '../../../shared/api/contract';
import type { SecretStore } from '../secrets/types';
import { BoundSecretStore } from '../secrets/bound';
import { createHandlers, type HandlerDeps } from './handlers';
import { EventBus } from './events';
import type { Handlers } from './dispatch';
import { workspaceStore } from '../workspace';
import { Lab } from '../lab';
import { labHandlers } from './lab';
import { applianceHandlers } from './appliances';
import { importFileHandlers } from './import';

export interface AppServicesOptions {
  shell: AppInfo['shell'];
  dataDir: string;
  /** Folder holding `assets/` (the checkout, or the packaged app's resources). */
  resourcesDir: string;
  secrets: SecretStore;
  openExternal?: HandlerDeps['openExternal'];
  dialogs?: HandlerDeps['dialogs'];
  extra?: Partial<Handlers>;
  /** The workspace the window opens first (see HandlerDeps.startPath). */
  startPath?: string;
  /** SSH files for appliance pushes (tests point these at temp files). */
  knownHostsFile?: string;
  sshConfigFile?: string;
  /** Socket layer of the lab's forwarding engine (default: its own). */
  io?: EngineIo;
}

export interface AppServices {
  handlers: Partial<Handlers>;
  events: EventBus;
  lab: Lab;
  /** The store the services use: stored secrets bound to the places they were first sent to. */
  secrets: BoundSecretStore;
  stop(): Promise<void>;
}

export function createAppServices(opts: AppServicesOptions): AppServices {
  const events = new EventBus();
  // The page drives everything below: stored secrets go only to the hosts they were first used with.
  const secrets = new BoundSecretStore(opts.secrets, join(opts.dataDir, 'secret-hosts.json'));
  const lab = new Lab({ secrets, emit: events.emit, ...(opts.io ? { io: opts.io } : {}) });
  const handlers = createHandlers({
    shell: opts.shell,
    dataDir: opts.dataDir,
    demoSource: join(opts.resourcesDir, 'assets', 'demo', 'lab-site-a.yaml'),
    secrets,
    store: workspaceStore,
    emit: events.emit,
    openExternal: opts.openExternal,
    dialogs: opts.dialogs,
    startPath: opts.startPath,
    extra: {
      ...labHandlers(lab, secrets),
      ...applianceHandlers({ secrets, emit: events.emit, dataDir: opts.dataDir, knownHostsFile: opts.knownHostsFile, sshConfigFile: opts.sshConfigFile }),
      ...importFileHandlers(),
      ...opts.extra,
    },
  });
  return { handlers, events, lab, secrets, stop: async () => void (await lab.stop()) };
}
