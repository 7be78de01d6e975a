// Durations in a workspace: a number of seconds, or a string with a unit.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_RE = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/;

/** Milliseconds for a workspace duration, or undefined when it is not one. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const m = DURATION_RE.exec(value);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 's']!);
}

/** The shortest exact spelling of a duration, for display and for writing back. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms >= 3_600_000) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
