// Patterns from a workspace (cli.prompt, pager, confirm, errors, volatile) match an appliance's
// output under a time bound. Validation already refuses the exponential shapes (shared/model/
// regex-safety.ts); this bounds whatever backtracking is left (polynomial, on a long line).
import { createContext, Script } from 'node:vm';

/** One matching pass (a diff's normalising, a session's check of new output) may take this long. */
export const MATCH_BUDGET_MS = 2000;
/** Output past this many characters of one unfinished line is not matched against a prompt. */
export const MAX_MATCH_LINE = 4096;

const fromWorkspace = new WeakSet<RegExp>();
const script = new Script('work()');
const context = createContext({ work: () => undefined });

/** Marks a compiled workspace pattern: matching it is time-bounded. */
export function untrusted(re: RegExp): RegExp {
  fromWorkspace.add(re);
  return re;
}

export class PatternTimeout extends Error {}

/**
 * Runs `work`, which matches `patterns` against output; when any of them came from the
 * workspace it runs under MATCH_BUDGET_MS (V8 interrupts a backtracking match) and a pass that
 * overruns is a PatternTimeout naming `what`.
 */
export function bounded<T>(patterns: readonly RegExp[], what: string, work: () => T, budgetMs = MATCH_BUDGET_MS): T {
  if (!patterns.some((p) => fromWorkspace.has(p))) return work();
  let out: T | undefined;
  (context as { work: () => void }).work = () => {
    out = work();
  };
  try {
    script.runInContext(context, { timeout: budgetMs });
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
    throw new PatternTimeout(`${what}: a pattern from the workspace took over ${budgetMs / 1000} s on the appliance's output and was stopped; simplify it (no nested repetition)`);
  } finally {
    (context as { work: () => void }).work = () => undefined;
  }
  return out as T;
}

/** The end of an unfinished line that prompt, pager and confirm patterns are matched against. */
export function matchTail(line: string): string {
  return line.length > MAX_MATCH_LINE ? line.slice(-MAX_MATCH_LINE) : line;
}
