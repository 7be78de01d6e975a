// What the sync core needs to know about one appliance, independent of any driver.
import type { Appliance } from '../../../shared/model/schema';
import type { SshEndpoint } from '../ssh/connect';

export interface VerifyTarget { address: string; port: number }

export interface SyncTarget {
  appliance: string;
  endpoint: SshEndpoint;
  /** Absolute path of the live config on the appliance. */
  configPath: string;
  /** Shell command; `{file}` becomes the quoted candidate path. Optional: no validation when absent. */
  validateCommand?: string;
  /** Shell command that makes the running service read the live file. */
  reloadCommand: string;
  /** TCP VIPs to connect to from the appliance after a reload. */
  verify?: VerifyTarget[];
  /** manage: sections: the addresses the pushed file itself listens on (the site's own frontends too). */
  verifyFile?: (data: Buffer) => VerifyTarget[];
  /** Lines that change by themselves, masked before comparing and diffing. */
  volatile?: RegExp[];
  /** `exec` = plain `cat` over exec (servers without SFTP); `scp` = the SCP protocol over exec. */
  transfer?: 'auto' | 'sftp' | 'exec' | 'scp';
  /** `sudo`: upload as the login user, then every step on the config as root through sudo. */
  become?: 'sudo';
  /** Workspace file the config was rendered from (kept in history). */
  workspace?: string;
  /**
   * `manage: sections`: the file to push is made from the one the appliance holds now (read
   * under the push lock). `base` is the version lbdesk last pulled or pushed, when history has it.
   */
  onto?: (live: Buffer | undefined, base: Buffer | undefined, force: boolean) => OntoOutcome;
}

/** A sections render onto the live file: the bytes to push, or why not; conflicts either way. */
export type OntoOutcome = { data: Buffer; conflicts: string[] } | { refused: string; conflicts: string[] };

export function targetLabel(t: SyncTarget): string {
  const e = t.endpoint;
  return `${e.user ? `${e.user}@` : ''}${e.host}${e.port && e.port !== 22 ? `:${e.port}` : ''}`;
}

/** How to log in to an appliance: the one builder, for file drivers and a vendor's CLI alike. */
export function endpointOf(appliance: Appliance): SshEndpoint {
  return {
    appliance: appliance.name,
    host: appliance.host,
    port: appliance.port,
    user: appliance.user,
    auth: appliance.auth,
    keyFile: appliance.keyFile,
    hostKey: appliance.hostKey,
    legacyAlgorithms: appliance.legacyAlgorithms,
  };
}
