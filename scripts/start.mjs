// `npm start`: build if needed, then the desktop app where Electron's binary is installed, else
// browser mode (`lbdesk demo`) with a clear message and the URL.
import { existsSync, statSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

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

const built = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/cli/lbdesk.cjs'].every((f) => existsSync(join(root, f)));
if (!built || process.env.LBDESK_REBUILD) {
  console.log('lbdesk: building (first start) ...');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
}

const forceBrowser = process.argv.includes('--browser') || process.env.LBDESK_BROWSER === '1';
const electron = forceBrowser ? undefined : electronBinary();
let child;
if (electron) {
  console.log('lbdesk: starting the desktop app');
  child = spawn(electron, [root], { stdio: 'inherit' });
} else {
  if (!forceBrowser) {
    console.log(
      'lbdesk: the Electron binary is not installed (offline install with ELECTRON_SKIP_BINARY_DOWNLOAD=1?);\n' +
        'lbdesk: starting browser mode instead: open the URL below in a browser.',
    );
  }
  child = spawn(process.execPath, [join(root, 'out/cli/lbdesk.cjs'), 'demo', ...process.argv.slice(2).filter((a) => a !== '--browser')], { stdio: 'inherit' });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
