// Every skip says why: a test skipped for a missing binary or a missing right prints the reason
// once ("skipped: what: why"), so a run that skipped something shows it.
const said = new Set<string>();

/** For `describe.skipIf` / `it.skipIf`: true when there is a reason (printed once), false when none. */
export function skipBecause(reason: string | false | null | undefined, what: string): boolean {
  const why = typeof reason === 'string' ? reason.trim().replace(/^\((?:skipped: )?(.*)\)$/, '$1') : '';
  if (!why) return false;
  const line = `skipped: ${what}: ${why}`;
  if (!said.has(line)) {
    said.add(line);
    console.warn(line);
  }
  return true;
}
