// Vendor appliances (`driver: cli`): template render, interactive apply with rollback, pull, diff.
export { pushCli } from './apply';
export type { CliPushOptions, CliPushReport, CliApplyDetail, CliFailure } from './apply';
export { pullCli, diffCli } from './pull';
export type { CliReadOptions, CliPullResult } from './pull';
export { diffCliTexts, normalizeCli } from './diff';
export { cliTarget, cliWhere } from './target';
export type { CliTarget } from './target';
export { CliSession, CliError, promptBase } from './cli-session';
export type { CommandResult, CliSessionOptions } from './cli-session';
export { cliPatterns, cliVolatile, compilePattern, CLI_VOLATILE, DEFAULT_ERRORS, DEFAULT_PROMPT, DEFAULT_PAGER, DEFAULT_CONFIRM } from './patterns';
export type { CliPatterns } from './patterns';
export { splitSections, commandsOf, SECTION_NAMES } from './sections';
export type { Sections, SectionName, CliLine } from './sections';
export { renderCliTemplate } from './template';
export { redact } from './redact';
