// What-if, offline from the workspace (docs/cli.md, `whatif`), and the replay of a member's checks.
export { whatIf } from './whatif';
export { UnknownFailure, resolveFailure } from './names';
export { formatWhatIf } from './format';
export { thinPools } from './capacity';
export { replay, type Sample } from './replay';
export { replayMember, type ReplayAsk } from './replay-member';
export { parseTrace, TraceError } from './trace';
export { formatReplay } from './replay-format';
