// `npm start`: build if needed, then the desktop app where Electron's binary is installed and a
// display exists, else browser mode (`lbdesk demo`) with a clear message and the URL.
// `npm start -- site.yaml` opens that workspace in the app; `--browser` forces browser mode.
import { existsSync, statSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export function electronBinary() {
  try {
    const path = require('electron'); // the binary's path, or a throw when it was never downloaded
    return typeof path === 'string' && existsSync(path) && statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Why the desktop app cannot open here, or undefined when it can. */
function noDesktop(env = process.env) {
  if (!electronBinary()) return 'the Electron binary is not installed (offline install with ELECTRON_SKIP_BINARY_DOWNLOAD=1?)';
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  return undefined;
}

const built = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/cli/lbdesk.cjs'].every((f) => existsSync(join(root, f)));
if (!built || process.env.LBDESK_REBUILD) {
  console.log('lbdesk: building (first start) ...');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
}

// npm runs this in the package folder: a workspace named on the command line is the user's,
// relative to where they typed it (INIT_CWD).
const isWorkspace = (a) => /\.ya?ml$/i.test(a);
const args = process.argv.slice(2).map((a) => (isWorkspace(a) ? resolve(process.env.INIT_CWD ?? process.cwd(), a) : a));
const forceBrowser = args.includes('--browser') || process.env.LBDESK_BROWSER === '1';
const why = forceBrowser ? undefined : noDesktop();
let child;
if (!forceBrowser && !why) {
  console.log('lbdesk: starting the desktop app');
  // Browser-mode options mean nothing to the app; a workspace file is passed on.
  const appArgs = args.filter((a, i) => a !== '--ui-port' && args[i - 1] !== '--ui-port');
  child = spawn(electronBinary(), [root, ...appArgs], { stdio: 'inherit' });
} else {
  if (why) console.log(`lbdesk: ${why};\nlbdesk: starting browser mode instead (opened in your browser when there is a desktop, else open the URL below).`);
  // The workspace named is what browser mode opens (its `demo` takes it as the file to open).
  const demoArgs = [...args.filter((a) => a !== '--browser' && !isWorkspace(a)), ...args.filter(isWorkspace).slice(0, 1)];
  child = spawn(process.execPath, [join(root, 'out/cli/lbdesk.cjs'), 'demo', ...demoArgs], { stdio: 'inherit' });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
