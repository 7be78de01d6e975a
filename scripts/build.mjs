// Builds everything: the Electron main/preload/renderer (electron-vite) and the plain-Node CLI,
// which also serves browser mode, bundled by esbuild with its workers.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');

// The native data path (C, N-API) first: it says itself when it cannot be built (the engine
// then runs its JavaScript data path and says so too).
execFileSync(process.execPath, [join(root, 'scripts/build-native.mjs'), ...(quiet ? ['--quiet'] : [])], { cwd: root, stdio: 'inherit' });

execFileSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', ...(quiet ? ['--logLevel', 'error'] : [])], {
  cwd: root,
  stdio: 'inherit',
});

// Worker entries are bundled next to the CLI; each module finds its worker by this file name.
const workers = [
  ['main/services/engine/data-path.ts', 'engine-worker'],
  ['main/services/health/probes/tcp-worker.ts', 'probe-worker'],
  ['main/services/workspace/validate-thread.ts', 'validate-worker'],
].filter(([src]) => existsSync(join(root, src)));

await build({
  absWorkingDir: root,
  entryPoints: { lbdesk: 'main/cli/bin.ts', ...Object.fromEntries(workers.map(([src, out]) => [out, src])) },
  outdir: 'out/cli',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  logLevel: quiet ? 'error' : 'info',
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;' },
});
