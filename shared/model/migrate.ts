// The workspace format version (`lbdesk: 1`) and the path from older versions to it.
// A migration edits the Document through the comment-keeping helpers, so a migrated file keeps
// the user's comments and layout; it is written back only when the user saves.
import type { Document } from 'yaml';
import { isMap, isScalar } from 'yaml';
import { setField } from './document';

export const FORMAT_VERSION = 1;

export interface Migration {
  from: number;
  /** One line for the user: what changes in the file. */
  describe: string;
  /** Edits `doc` from format `from` to `from + 1` (the version number itself is set by the runner). */
  apply(doc: Document): void;
}

/**
 * Every step from an older format to the next. Format 1 is the first published format, so
 * there is none yet; a change to the format adds its step here and bumps FORMAT_VERSION.
 */
export const MIGRATIONS: readonly Migration[] = [];

export class MigrationError extends Error {}

/** The `lbdesk:` number of a parsed document, when it is an integer. */
export function formatVersionOf(doc: Document): number | undefined {
  const root = doc.contents;
  if (!isMap(root)) return undefined;
  const v = root.get('lbdesk', true);
  return isScalar(v) && typeof v.value === 'number' && Number.isInteger(v.value) ? v.value : undefined;
}

export interface Migrated {
  from: number;
  to: number;
  steps: string[];
}

/**
 * Brings `doc` up to `target` in place. Returns undefined when it is already there; throws a
 * MigrationError for a newer format or a gap in the steps (nothing is changed then).
 */
export function migrateDocument(doc: Document, migrations: readonly Migration[] = MIGRATIONS, target = FORMAT_VERSION): Migrated | undefined {
  const from = formatVersionOf(doc);
  if (from === undefined || from === target) return undefined;
  if (from > target) throw new MigrationError(`format version ${from} is newer than this lbdesk understands (${target}); update lbdesk`);
  const plan: Migration[] = [];
  for (let v = from; v < target; v++) {
    const step = migrations.find((m) => m.from === v);
    if (!step) throw new MigrationError(`format version ${from} cannot be read by this lbdesk (it reads ${target}${plan.length ? '' : ' only'})`);
    plan.push(step);
  }
  for (const step of plan) {
    step.apply(doc);
    setField(doc, ['lbdesk'], step.from + 1);
  }
  return { from, to: target, steps: plan.map((s) => s.describe) };
}
