// What the vendor push, pull and diff need to know about one `driver: cli` appliance.
import { cliSchema, type Appliance, type CliSettings } from '../../../../shared/model/schema';
import type { SshEndpoint } from '../../ssh/connect';
import { endpointOf } from '../target';
import type { TransferMode } from '../../transfer/types';
import { cliPatterns, cliVolatile, type CliPatterns } from '../../drivers/box-patterns';

export interface CliTarget {
  appliance: string;
  endpoint: SshEndpoint;
  transfer: TransferMode;
  settings: CliSettings;
  patterns: CliPatterns;
  /**
   * A file on the appliance that holds its running config (`runConfig` on many boxes), read by
   * SFTP/SCP for pull and diff; without it, `settings.pullCommand` runs in the CLI.
   */
  configPath?: string;
  volatile: RegExp[];
  /** Workspace file the config was rendered from (kept in history). */
  workspace?: string;
}

export function cliTarget(appliance: Appliance, workspacePath?: string): CliTarget {
  const settings = appliance.cli ?? cliSchema.parse({});
  return {
    appliance: appliance.name,
    endpoint: endpointOf(appliance),
    transfer: appliance.transfer,
    settings,
    patterns: cliPatterns(settings),
    ...(appliance.configPath ? { configPath: appliance.configPath } : {}),
    volatile: cliVolatile(settings),
    ...(workspacePath ? { workspace: workspacePath } : {}),
  };
}

/** Where the config lives, for reports and diff headers. */
export function cliWhere(target: CliTarget): string {
  return target.configPath ?? target.settings.uploadPath ?? 'running-config';
}
