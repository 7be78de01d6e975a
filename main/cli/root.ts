// Where the CLI finds the built renderer and shipped assets, from sources (tsx) or the bundle.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The checkout or installed package root: the first ancestor holding package.json and assets/. */
export function packageRoot(start = __dirname): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'assets'))) return dir;
    const up = dirname(dir);
    if (up === dir) return resolve(start, '..', '..');
    dir = up;
  }
}
