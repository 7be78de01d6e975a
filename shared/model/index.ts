// The workspace model: schema, resolution rules, validation and comment-keeping edits.
// Pure and browser-safe (no Node built-ins): the renderer and main use the same code.
export * from './schema';
export * from './duration';
export * from './resolve';
export { WELL_KNOWN_TCP, WELL_KNOWN_UDP, UDP_PROTOCOLS } from './checks/tables';
export { familyOf, normalAddress, isWildcard, type Family } from './address';
export { ipfeMate, normaliseFactorValues, INITIATOR_PORT_RANGE, targetSetIncludeName, parseTargetSetIncludeName } from './ipfe';
export { formatProblem, formatPath, sortProblems, hasErrors, ROOT_PATH, SYNTAX_PATH, type Problem, type PathSegment } from './problem';
export { parseWorkspace, validateDocument, checkData, type ParseResult, type ParseOptions } from './validate';
export { createDocument, documentToText, documentLines, setField, deleteField, addItem, addItems, appendSplice, removeItem, renameKey, EditError } from './document';
export { normaliseFactors } from './normalise';
export { FORMAT_VERSION, MIGRATIONS, migrateDocument, formatVersionOf, MigrationError, type Migration, type Migrated } from './migrate';
export { MAX_WORKSPACE_BYTES, MAX_DEPTH, MAX_ALIAS_EXPANSION, MAX_PROBLEMS } from './limits';
export { checkHealthCheck, OPTION_TYPES, transportOf } from './checks';
