// Messages between the controller (engine.ts, main thread) and the data path (data-path.ts).
import type { EngineEvent, EngineStats } from '../../../shared/api/engine';
import type { MemberState } from '../../../shared/api/types';
import type { EngineConfig } from './config';

export interface WorkerOptions {
  /**
   * Data path: `native` (the C addon; falls back to `uv` when it cannot load, with a notice),
   * or the JavaScript one on `uv` (falls back to `net` when libuv handles are not reachable) or `net`.
   */
  io?: 'native' | 'uv' | 'net';
  /** Data threads of the native path (default 1; the JavaScript path has one). */
  threads?: number;
}

/** [member key, state, score] */
export type StateTuple = [string, MemberState, number];

export type ToWorker =
  | { t: 'apply'; id: number; config: EngineConfig; states: StateTuple[] }
  | { t: 'states'; states: StateTuple[] }
  | { t: 'stats'; id: number }
  | { t: 'stop'; id: number };

export interface WorkerApplyResult {
  ok: boolean;
  reason?: string;
  added: number;
  removed: number;
  kept: number;
}

export type ToController =
  | { t: 'ready'; io: 'native' | 'uv' | 'net'; threadId: number; fallback?: string }
  | { t: 'applied'; id: number; result: WorkerApplyResult }
  | { t: 'event'; event: EngineEvent }
  | { t: 'failed'; key: string; reason: string }
  | { t: 'stats'; id: number; stats: EngineStats }
  | { t: 'stopped'; id: number };
