// What lbdesk last knew about each remote config file, to refuse overwriting a file someone
// changed on the appliance since our last pull or push. Kept in the user's data folder.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDir } from '../paths';
import { sha256 } from '../hash';

export interface RemoteState {
  appliance: string;
  target: string;
  configPath: string;
  /** sha256 of the file as last pulled or pushed; null when it did not exist. */
  hash: string | null;
  /** A push whose rename may have happened before the connection dropped. */
  inflight?: string;
  /** A commit-confirmed push waiting for confirm. */
  pending?: { hash: string; backupHash: string | null; deadline: number };
  updatedAt: number;
}

export function syncDataDir(override?: string): string {
  return override ?? dataDir();
}

function stateFile(dir: string, target: string, configPath: string): string {
  const key = sha256(`${target}\0${configPath}`).slice(0, 32);
  return join(dir, 'remotes', `${key}.json`);
}

export async function loadState(dir: string, target: string, configPath: string): Promise<RemoteState | undefined> {
  try {
    return JSON.parse(await readFile(stateFile(dir, target, configPath), 'utf8')) as RemoteState;
  } catch {
    return undefined;
  }
}

export async function saveState(dir: string, state: RemoteState): Promise<void> {
  const file = stateFile(dir, state.target, state.configPath);
  await mkdir(join(dir, 'remotes'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ ...state, updatedAt: Date.now() }, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}
