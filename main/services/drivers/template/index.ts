// driver: cli — vendor appliances (ADX-, Px-, IPFE-class) driven through their command line.
// The workspace is rendered by the appliance's template; push, pull and diff live in
// main/services/sync/commands (interactive apply over SSH, SCP upload, volatile-line masking).
import { renderCliTemplate } from './render';
import { CLI_VOLATILE } from '../box-patterns';
import type { Driver } from '../types';

export const cliDriver: Driver = {
  name: 'cli',
  // No file and no shell commands: a vendor CLI is configured by the commands themselves.
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render: renderCliTemplate,
  volatile: CLI_VOLATILE,
};
