// What-if, offline from the workspace (docs/cli.md, `whatif`), and the replay of a member's checks.
export { whatIf } from './whatif';
export { UnknownFailure, resolveFailure } from './names';
export { formatWhatIf } from './format';
export { thinPools } from './capacity';
