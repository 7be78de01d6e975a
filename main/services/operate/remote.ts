// The Remote a runtime gets: a command-driven box (adx…) has no config file, so none of the
// Remote's file paths is ever used there; it gets the connection with the root as a placeholder.
import type { SshConnection } from '../ssh/connect';
import { Remote } from '../sync/remote';
import type { SudoOptions } from '../sync/sudo';
import type { SyncTarget } from '../sync/target';

export function runtimeRemote(conn: SshConnection, target: SyncTarget, opts: SudoOptions): Remote {
  return Remote.for(conn, target.configPath ? target : { ...target, configPath: '/' }, opts);
}
