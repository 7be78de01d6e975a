// Bounds that keep hostile or broken input from costing more than a quick refusal.

/** Largest workspace file read or parsed: far beyond any real site, small enough to refuse fast. */
export const MAX_WORKSPACE_BYTES = 16 * 1024 * 1024;
/** Nesting depth of mappings and lists; a real workspace needs 7. */
export const MAX_DEPTH = 64;
/**
 * Nodes that alias expansion may add to a document ("billion laughs" adds 10^9): sharing one
 * anchor across thousands of entries stays far below it.
 */
export const MAX_ALIAS_EXPANSION = 1_000_000;
/** Problems reported for one file; past this the rest are summarised in one line. */
export const MAX_PROBLEMS = 1000;
/**
 * A commit-confirmed window: long enough for the push itself and the confirm that follows it
 * (shorter, the appliance rolls back while lbdesk reports "applied"), at most a day.
 */
export const CONFIRM_WITHIN_MIN_MS = 10_000;
export const CONFIRM_WITHIN_MAX_MS = 86_400_000;
