// One running app: a second launch (double-click on a workspace, `lbdesk-app file.yaml`) hands
// its file to the first instance and quits. This finds that file in a launch's command line.
import { extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKSPACE = new Set(['.yaml', '.yml']);

/**
 * The workspace file named on a command line, made absolute against the launch's working
 * directory: the last argument ending in .yaml/.yml that is not a switch. argv[0] is the
 * executable; Chromium adds its own switches, and in development argv[1] is the app folder.
 */
export function workspaceArgument(argv: readonly string[], cwd: string): string | undefined {
  let found: string | undefined;
  let afterDashDash = false;
  for (const arg of argv.slice(1)) {
    if (!afterDashDash && arg === '--') {
      afterDashDash = true;
      continue;
    }
    if (!afterDashDash && arg.startsWith('-')) continue;
    if (arg.includes('\0') || !WORKSPACE.has(extname(arg).toLowerCase())) continue;
    found = arg;
  }
  if (found === undefined) return undefined;
  if (/^file:\/\//i.test(found)) {
    try {
      found = fileURLToPath(found);
    } catch {
      return undefined;
    }
  }
  return isAbsolute(found) ? resolve(found) : resolve(cwd, found);
}
