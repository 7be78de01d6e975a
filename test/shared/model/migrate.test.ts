// The format version and the path from older formats, with comments kept.
import { describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../shared/model/validate';
import { createDocument, documentToText, renameKey, setField } from '../../../shared/model/document';
import { FORMAT_VERSION, MIGRATIONS, migrateDocument, MigrationError, type Migration } from '../../../shared/model/migrate';

// An imagined format 0 that called the timers `timers` and kept `weight` as text.
const fromZero: Migration = {
  from: 0,
  describe: 'timers -> healthTimers',
  apply(doc) {
    if (doc.hasIn(['timers'])) renameKey(doc, ['timers'], 'healthTimers');
  },
};

const OLD = `# site A
lbdesk: 0          # the old format
name: a
timers:            # global
  interval: 10s    # faster
`;

describe('format version', () => {
  it('is 1, and 1 needs no steps', () => {
    expect(FORMAT_VERSION).toBe(1);
    expect(MIGRATIONS.filter((m) => m.from >= FORMAT_VERSION)).toEqual([]);
    const doc = createDocument('lbdesk: 1\nname: a\n');
    expect(migrateDocument(doc)).toBeUndefined();
  });

  it('an older file is migrated on load, comments and all, and flagged for saving', () => {
    const r = parseWorkspace(OLD, 'old.yaml', { migrations: [fromZero] });
    expect(r.migratedFrom).toBe(0);
    expect(r.workspace!.healthTimers).toEqual({ interval: 10_000 });
    expect(r.problems).toEqual([expect.objectContaining({ severity: 'warning', path: 'lbdesk', message: 'migrated from format version 0 to 1; saving writes the new format' })]);
    expect(documentToText(r.doc)).toBe(OLD.replace('lbdesk: 0', 'lbdesk: 1').replace('\ntimers:', '\nhealthTimers:'));
  });

  it('a migration step runs through the comment-keeping editor', () => {
    const doc = createDocument(OLD);
    expect(migrateDocument(doc, [fromZero])).toEqual({ from: 0, to: 1, steps: ['timers -> healthTimers'] });
    const text = documentToText(doc);
    for (const comment of ['# site A', '# the old format', '# global', '# faster']) expect(text).toContain(comment);
  });

  it('several steps run in order', () => {
    const steps: Migration[] = [
      { from: 1, describe: 'one', apply: (d) => setField(d, ['description'], 'one') },
      { from: 2, describe: 'two', apply: (d) => setField(d, ['description'], 'two') },
    ];
    const doc = createDocument('lbdesk: 1\nname: a\n');
    expect(migrateDocument(doc, steps, 3)).toEqual({ from: 1, to: 3, steps: ['one', 'two'] });
    expect(documentToText(doc)).toBe('lbdesk: 3\nname: a\ndescription: two\n');
  });

  it('a newer format, or one without a path, is refused and nothing changes', () => {
    const doc = createDocument('lbdesk: 2\nname: a\n');
    expect(() => migrateDocument(doc)).toThrow(MigrationError);
    expect(documentToText(doc)).toBe('lbdesk: 2\nname: a\n');
    expect(parseWorkspace('lbdesk: 0\nname: a\n', 'x').problems).toEqual([expect.objectContaining({ path: 'lbdesk', line: 1, col: 9, message: expect.stringMatching(/format version 0 cannot be read/) })]);
    expect(parseWorkspace('lbdesk: 7\nname: a\n', 'x').problems[0]!.message).toMatch(/format version 7 is newer than this lbdesk understands \(1\); update lbdesk/);
  });
});
