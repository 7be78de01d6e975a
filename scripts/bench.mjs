// `npm run bench`: every benchmark, one after another (they share 2 cores), each printing its
// figures and ratios against the real peer. `npm run bench -- engine health` runs a subset.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join, basename } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const all = readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.ts')).sort();
const chosen = only.length ? all.filter((f) => only.includes(basename(f, '.ts'))) : all;
let failed = 0;
for (const file of chosen) {
  console.log(`\n== bench/${file}`);
  const r = spawnSync(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'bench', file)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${file} exited ${r.status ?? r.signal}`);
  }
}
process.exitCode = failed ? 1 : 0;
