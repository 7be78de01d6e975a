// driver: pingdirectory — PingDirectoryProxy, configured by dsconfig batch files
// (docs/pingdirectory.md). Everything the driver knows lives in this folder: the batch format
// (batch.ts), the workspace as proxy objects (want.ts), the batch file (render.ts), import (import.ts).
import type { Driver } from '../types';
import { importPingDirectory } from './import';
import { renderPingDirectory } from './render';

export const pingdirectoryDriver: Driver = {
  name: 'pingdirectory',
  // No file on the proxy and no reload: the batch file is applied by dsconfig itself.
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render: (workspace, appliance) => renderPingDirectory(workspace, appliance),
  volatile: [],
  importer: (text, file, opts) => importPingDirectory(text, file, opts),
};
