// The forwarding engine: public surface for the app, the CLI (`lbdesk serve`) and the UI host.
export { ForwardingEngine, stateEvent, type ForwardingEngineOptions, type EngineIo } from './engine';
export { buildConfig, DEFAULT_CAPACITY, type EngineConfig, type PoolConfig, type ListenerConfig, type MemberConfig } from './config';
export { engineWorkerPath, startEngineWorker, type WorkerEntry } from './worker-path';
export { parseLoadLine, parseLoadDatagram, formatLoadLine, type LoadReport } from './heartbeat';
export type { ApplyResult, EngineEvent, EngineStats } from '../../../shared/api/engine';
