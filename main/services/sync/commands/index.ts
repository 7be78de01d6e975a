// Vendor appliances' transport (`driver: cli`): interactive apply with rollback, pull, diff over
// SSH. Their rendering (templates, sections, patterns) is a driver: main/services/drivers/cli*.
export { pushCli } from './apply';
export type { CliPushOptions, CliPushReport, CliApplyDetail, CliFailure } from './apply';
export { pullCli, diffCli } from './pull';
export type { CliReadOptions, CliPullResult } from './pull';
export { diffCliTexts, normalizeCli } from './diff';
export { cliTarget, cliWhere } from './target';
export type { CliTarget } from './target';
export { BoxSession, BoxCliError, promptBase } from './box-session';
export type { CommandResult, BoxSessionOptions } from './box-session';
export { redact } from './redact';
export { pushCommands, showRunning } from './steps';
export type { CommandPushReport } from './steps';
export { pendingWatches, UNSENT_STATE } from './confirm';
export type { WatchResult, BoxPending } from './confirm';
