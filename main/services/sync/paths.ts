// Files lbdesk keeps beside the live config on the appliance. All live in the config's own
// directory, so the final rename stays on one filesystem and is atomic.
import { posix } from 'node:path';

export interface RemotePaths {
  live: string;
  dir: string;
  /** Prefix of every lbdesk file for this config: `<dir>/.<base>.lbdesk`. */
  prefix: string;
  /** Last-known-good copy of the previous live file. */
  backup: string;
  /** Held (flock, or mkdir fallback) while a push or confirm runs. */
  lock: string;
  /** Exists while a commit-confirmed timer waits; holds deadline, hash and the timer's pid. */
  pending: string;
  /** Written by a timer that fired and restored the backup. */
  fired: string;
  /** A fresh, unique temp name for an upload or a copy. */
  temp(tag: string): string;
  /** Shell glob of stale temp files (swept under the lock). */
  tempGlob: string;
}

export function remotePaths(configPath: string): RemotePaths {
  if (!configPath.startsWith('/')) throw new Error(`configPath must be absolute: ${configPath}`);
  const dir = posix.dirname(configPath);
  const prefix = posix.join(dir, `.${posix.basename(configPath)}.lbdesk`);
  return {
    live: configPath,
    dir,
    prefix,
    backup: `${prefix}-lkg`,
    lock: `${prefix}-lock`,
    pending: `${prefix}-pending`,
    fired: `${prefix}-fired`,
    temp: (tag) => `${prefix}-tmp-${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    tempGlob: `${prefix}-tmp-*`,
  };
}
