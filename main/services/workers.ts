// Where a worker thread's code is, from sources (tsx, vitest) and from a bundle. The build
// bundles each worker to `<name>.cjs` beside the CLI (out/cli/); the Electron main bundle
// (out/main/) finds the same files one directory over.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** Bundle name → source file, relative to this directory. */
export const WORKERS = {
  'engine-worker': 'engine/data-path.ts',
  'probe-worker': 'health/probes/tcp-worker.ts',
  'validate-worker': 'workspace/validate-thread.ts',
} as const;
export type WorkerName = keyof typeof WORKERS;

export interface WorkerEntry {
  file: string;
  /** The file is TypeScript: run it through tsx's require hook. */
  typescript: boolean;
}

/** `override` (a path from the environment) wins; else the bundled worker; else its source. */
export function workerPath(name: WorkerName, override?: string): WorkerEntry {
  if (override) return { file: override, typescript: override.endsWith('.ts') };
  for (const file of [join(__dirname, `${name}.cjs`), join(__dirname, '..', 'cli', `${name}.cjs`)]) {
    if (existsSync(file)) return { file, typescript: false };
  }
  const ts = join(__dirname, WORKERS[name]);
  if (existsSync(ts)) return { file: ts, typescript: true };
  throw new Error(`the ${name} thread's code is missing (looked for ${name}.cjs and ${WORKERS[name]} in ${__dirname})`);
}

export function startWorker(entry: WorkerEntry, workerData?: unknown): Worker {
  if (!entry.typescript) return new Worker(entry.file, { workerData });
  // A worker does not inherit tsx from its parent: load its require hook first, then the file.
  const tsx = createRequire(join(__dirname, 'workers.ts')).resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry.file)});`, { eval: true, workerData });
}
