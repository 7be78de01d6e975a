// Builds the services behind the contract once, for whichever shell hosts them (app, browser
// mode), and assembles the handler table: one object per area of the contract.
import type { EngineIo } from '../engine';
import { join } from 'node:path';
import { keepingOf, type SecretStore } from '../secrets/types';
import { BoundSecretStore } from '../secrets/bound';
import { ApiEvents } from '../../../shared/api/api-events';
import { handlerTable, type AreaHandlers, type Handlers } from './dispatch';
import { workspaceStore } from '../workspace';
import { Lab } from '../lab';
import { appHandlers, type AppShell } from './shell';
import { workspaceHandlers, WorkspaceFiles } from './workspace';
import { WorkspaceWatch } from '../workspace/watch';
import { labHandlers } from './lab';
import { applianceHandlers } from './appliances';
import { SshQuestions } from './ssh';
import { importHandlers } from './import';
import { reportHandlers } from './report';
import { OperateSessions } from './operate';

export interface AppServicesOptions {
  /** The desktop app's shell, or `browserShell()`. */
  shell: AppShell;
  dataDir: string;
  /** Folder holding `assets/` (the checkout, or the packaged app's resources). */
  resourcesDir: string;
  secrets: SecretStore;
  /** The workspace the window opens first (`serve --ui WS`: the file the lab runs), before the recent list. */
  startPath?: string;
  /** SSH files for appliance pushes (tests point these at temp files). */
  knownHostsFile?: string;
  sshConfigFile?: string;
  /** Socket layer of the lab's forwarding engine (default: its own). */
  io?: EngineIo;
  /** How long the Operate view's kept SSH connection may stay unused (default OPERATE_IDLE_MS). */
  operateIdleMs?: number;
}

export interface AppServices {
  handlers: Handlers;
  events: ApiEvents;
  lab: Lab;
  /** The store the services use: stored secrets bound to the places they were first sent to. */
  secrets: BoundSecretStore;
  stop(): Promise<void>;
}

function secretsHandlers(secrets: SecretStore): AreaHandlers<'secrets'> {
  return {
    'secrets.set': async ({ name, value }) => {
      await secrets.set(name, value);
      return keepingOf(secrets);
    },
    'secrets.has': async ({ name }) => secrets.has(name),
    'secrets.delete': async ({ name }) => secrets.delete(name),
  };
}

export function createAppServices(opts: AppServicesOptions): AppServices {
  const events = new ApiEvents();
  const emit = events.send;
  // The page drives everything below: stored secrets go only to the hosts they were first used with.
  const secrets = new BoundSecretStore(opts.secrets, join(opts.dataDir, 'secret-hosts.json'));
  const lab = new Lab({ secrets, emit, ...(opts.io ? { io: opts.io } : {}) });
  const files = new WorkspaceFiles(opts.dataDir, join(opts.resourcesDir, 'assets', 'demo', 'lab-site-a.yaml'));
  const questions = new SshQuestions(emit);
  const watch = new WorkspaceWatch((path, mtimeMs) => emit('workspace.changed', { path, mtimeMs }));
  const operate = new OperateSessions(opts.operateIdleMs);
  const remote = { secrets, emit, dataDir: opts.dataDir, knownHostsFile: opts.knownHostsFile, sshConfigFile: opts.sshConfigFile, questions };
  const handlers = handlerTable({
    app: appHandlers({ shell: opts.shell, files, startPath: opts.startPath }),
    workspace: workspaceHandlers({ store: workspaceStore, emit, opened: (p) => opts.shell.opened(p), follow: (p, m) => watch.follow(p, m) }, files),
    lab: labHandlers(lab, secrets),
    appliances: applianceHandlers({ ...remote, operate }),
    import: importHandlers(remote),
    report: reportHandlers(remote, lab),
    ssh: questions.handlers(),
    secrets: secretsHandlers(secrets),
  });
  return { handlers, events, lab, secrets, stop: async () => {
    operate.endAll();
    watch.stop();
    await lab.stop();
  } };
}
