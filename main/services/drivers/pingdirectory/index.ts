// driver: pingdirectory — PingDirectoryProxy, configured by dsconfig batch files
// (docs/pingdirectory.md). Everything the driver knows lives in this folder: the batch format
// (batch.ts), the workspace as proxy objects (want.ts), the batch file (render.ts), import (import.ts), the commands from a before-state with
// their inverses (plan.ts), the proxy host over SSH (remote.ts).
import type { Driver } from '../types';
import { importPingDirectory } from './import';
import { planPingDirectory } from './plan';
import { pingdirectoryBatch } from './remote';
import { renderPingDirectory } from './render';

export const pingdirectoryDriver: Driver = {
  name: 'pingdirectory',
  // No file on the proxy and no reload: the batch file is applied by dsconfig itself.
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render: (workspace, appliance) => renderPingDirectory(workspace, appliance),
  volatile: [],
  importer: (text, file, opts) => importPingDirectory(text, file, opts),
  commands: {
    plan: planPingDirectory,
    // Applied as one batch file by bin/dsconfig over SSH exec, not typed into a CLI session (docs/pingdirectory.md).
    batch: pingdirectoryBatch,
    prologue: [],
    save: [],
    leave: [],
    show: 'bin/config-diff',
  },
};
