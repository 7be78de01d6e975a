// Makes sure out/ holds a build of the current main-process sources before a test reads it:
// rebuilds (once, under a lock shared by parallel test files) when an output is missing or older
// than a source of main/, shared/ or the build config. Renderer edits alone do not trigger it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Not from ./helpers: that loads the app's services, and the CLI test helper imports this file.
const ROOT = resolve(__dirname, '../..');

export const OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/cli/lbdesk.cjs', 'out/cli/engine-worker.cjs', 'out/cli/probe-worker.cjs', 'out/cli/validate-worker.cjs'];
const SOURCES = ['main', 'shared', 'electron.vite.config.ts', 'scripts/build.mjs'];

function newest(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let max = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    max = Math.max(max, newest(join(path, name)));
  }
  return max;
}

export function isFresh(outputs: readonly string[] = OUTPUTS): boolean {
  const outs = outputs.map((f) => statSync(join(ROOT, f), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (outs.some((t) => t === 0)) return false;
  const src = Math.max(...SOURCES.map((s) => newest(join(ROOT, s))));
  return Math.min(...outs) >= src;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lock left by a test process that no longer runs (killed mid-build). */
function stale(lock: string): boolean {
  const pid = Number.parseInt(readFileSync(join(lock, 'pid'), 'utf8'), 10);
  if (!Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Builds unless every one of `outputs` is newer than every source. */
export async function ensureBuilt(outputs: readonly string[] = OUTPUTS): Promise<void> {
  const ready = () => isFresh(outputs);
  if (ready()) return;
  const lock = join(tmpdir(), `lbdesk-build-${createHash('sha1').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      let gone = false;
      try {
        gone = stale(lock);
      } catch {
        gone = false; // its owner is between mkdir and writing the pid
      }
      if (gone) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      else await sleep(250);
    }
  }
  try {
    if (!ready()) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (!outputs.every((f) => existsSync(join(ROOT, f)))) throw new Error('the build did not produce every output');
}
