// Where lbdesk keeps its own files (recent list, demo copy, push history, window state).
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LBDESK_DATA_DIR) return env.LBDESK_DATA_DIR;
  const home = homedir();
  switch (platform()) {
    case 'darwin': return join(home, 'Library', 'Application Support', 'lbdesk');
    case 'win32': return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'lbdesk');
    default: return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'lbdesk');
  }
}
