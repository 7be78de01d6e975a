// Where the data-path worker's code is, from sources (tsx, vitest) and from a bundle.
// The build bundles main/services/engine/worker.ts to `engine-worker.cjs` beside each bundle
// that contains the engine (out/cli/engine-worker.cjs for the CLI).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface WorkerEntry {
  file: string;
  /** The file is TypeScript: run it through tsx's require hook. */
  typescript: boolean;
}

/** LBDESK_ENGINE_WORKER overrides; else the bundled worker beside this code; else worker.ts. */
export function engineWorkerPath(): WorkerEntry {
  const override = process.env.LBDESK_ENGINE_WORKER;
  if (override) return { file: override, typescript: override.endsWith('.ts') };
  for (const file of [join(__dirname, 'engine-worker.cjs'), join(__dirname, '..', 'cli', 'engine-worker.cjs')]) {
    if (existsSync(file)) return { file, typescript: false };
  }
  const ts = join(__dirname, 'worker.ts');
  if (existsSync(ts)) return { file: ts, typescript: true };
  throw new Error(`the forwarding engine's worker is missing (looked for engine-worker.cjs and worker.ts in ${__dirname})`);
}

export function startEngineWorker(workerData: unknown): Worker {
  const entry = engineWorkerPath();
  if (!entry.typescript) return new Worker(entry.file, { workerData });
  // A worker does not inherit tsx from its parent: load its require hook first, then the file.
  const tsx = createRequire(join(__dirname, 'worker-path.ts')).resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry.file)});`, { eval: true, workerData });
}
