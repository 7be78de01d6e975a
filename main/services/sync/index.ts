// SSH sync: push (atomic, validated, commit-confirmed), confirm, pull, diff, fleet, history.
export { pushConfig } from './push';
export type { PushOptions } from './push';
export { confirmPush } from './confirm-push';
export { pullConfig, diffConfig, diffTexts } from './pull';
export type { ReadOptions, PullResult } from './pull';
export { pushFleet } from './fleet';
export type { FleetItem, FleetOptions } from './fleet';
export { listHistory, listOperations, readHistory, recordHistory, recordOperation } from './history';
export type { OperationEntry } from './history';
export { remotePaths } from './paths';
export type { SyncTarget, VerifyTarget } from './target';
export { maskVolatile } from './volatile';
export { syncDataDir } from './state';
export { withSession } from './session';
