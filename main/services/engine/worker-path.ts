// The data-path worker's code (see ../workers.ts for where bundles and sources are looked up).
import type { Worker } from 'node:worker_threads';
import { startWorker, workerPath, type WorkerEntry } from '../workers';

export type { WorkerEntry };

/** LBDESK_ENGINE_WORKER overrides; else the bundled engine-worker.cjs; else data-path.ts. */
export function engineWorkerPath(): WorkerEntry {
  return workerPath('engine-worker', process.env.LBDESK_ENGINE_WORKER);
}

export function startEngineWorker(workerData: unknown): Worker {
  return startWorker(engineWorkerPath(), workerData);
}
