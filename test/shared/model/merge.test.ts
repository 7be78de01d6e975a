// The three-way merge of a workspace edited here and on disk at once: comments and untouched bytes
// kept exactly, separate edits merged, the same field edited both ways a conflict with both values,
// and "overwrite with mine" told what it drops.
import { describe, expect, it } from 'vitest';
import { conflictsOf, merge3, mergedText, mergeWorkspace, overwriteLoss, pathAtLine } from '../../../shared/model/merge';

const BASE = [
  '# Site B: hand-kept, reviewed in git.',
  'lbdesk: 1',
  'name: site-b',
  '',
  'servers:                 # rack 4, row 2',
  '  - name: web1',
  '    address: 192.0.2.11   # primary',
  '    weight: 100',
  '  - name: web2',
  '    address: 192.0.2.12',
  '    weight: 100',
  '\t# a tab-indented comment the colleague wrote by hand',
  '  - { name: web3, address: 192.0.2.13 }   # flow style',
  '',
  'groups:',
  '  - name: web',
  '    members:',
  '      - { server: web1, port: 80 }',
  '      - { server: web2, port: 80 }',
  '',
].join('\n');

const edit = (text: string, from: string, to: string): string => {
  expect(text).toContain(from);
  return text.replace(from, to);
};

describe('three-way merge of a workspace', () => {
  it('a colleague edits another server on disk, I edit mine: both kept, every comment and byte too', () => {
    const mine = edit(BASE, '    weight: 100\n  - name: web2', '    weight: 150\n  - name: web2');
    const theirs = edit(BASE, '    address: 192.0.2.12\n', '    address: 192.0.2.22   # moved to rack 5\n');
    const m = mergeWorkspace(BASE, mine, theirs);
    expect(m.conflicts).toBe(0);
    expect(m.theirsChanges).toBe(1);
    const out = mergedText(m, []);
    expect(out).toBe(edit(mine, '    address: 192.0.2.12\n', '    address: 192.0.2.22   # moved to rack 5\n'));
    expect(out).toContain('\t# a tab-indented comment the colleague wrote by hand');
    expect(out).toContain('servers:                 # rack 4, row 2');
    expect(out.endsWith('\n')).toBe(true);
  });

  it('edits on neighbouring lines (two fields of one server, two flow items) merge', () => {
    const mine = edit(BASE, '    address: 192.0.2.11   # primary', '    address: 192.0.2.31   # primary');
    const theirs = edit(BASE, '    weight: 100\n  - name: web2', '    weight: 90\n  - name: web2');
    expect(mergedText(mergeWorkspace(BASE, mine, theirs), [])).toBe(edit(mine, '    weight: 100\n  - name: web2', '    weight: 90\n  - name: web2'));
    const mine2 = edit(BASE, '{ server: web1, port: 80 }', '{ server: web1, port: 8080 }');
    const theirs2 = edit(BASE, '{ server: web2, port: 80 }', '{ server: web2, port: 81 }');
    const m = mergeWorkspace(BASE, mine2, theirs2);
    expect(m.conflicts).toBe(0);
    expect(mergedText(m, [])).toContain('{ server: web1, port: 8080 }\n      - { server: web2, port: 81 }');
  });

  it('a server added on each side at the same place is a conflict (their order is unknown); at different places it is not', () => {
    const add = (name: string) => `  - { name: ${name}, address: 192.0.2.50 }\n`;
    const at = '\ngroups:';
    const mine = edit(BASE, at, `\n${add('web8').trimEnd()}${at}`.replace('\n\n', '\n'));
    const theirs = edit(BASE, '  - name: web2\n', `${add('web9')}  - name: web2\n`);
    const clean = mergeWorkspace(BASE, mine, theirs);
    expect(clean.conflicts).toBe(0);
    expect(mergedText(clean, [])).toMatch(/web9[\s\S]*web2[\s\S]*web8/);
    const both = merge3(BASE, edit(BASE, '  - name: web2\n', `${add('web8')}  - name: web2\n`), theirs);
    expect(both.conflicts).toBe(1);
  });

  it('the same change on both sides is taken once', () => {
    const one = edit(BASE, 'name: site-b', 'name: site-b2');
    const m = merge3(BASE, one, one);
    expect(m.conflicts).toBe(0);
    expect(m.chunks.filter((c) => c.kind === 'both')).toHaveLength(1);
    expect(mergedText(m, [])).toBe(one);
  });

  it('both edit the same field: a conflict with both values, where it is, and each choice gives that value', () => {
    const mine = edit(BASE, '    address: 192.0.2.12\n', '    address: 192.0.2.42\n');
    const theirs = edit(BASE, '    address: 192.0.2.12\n', '    address: 192.0.2.52   # theirs\n');
    const m = mergeWorkspace(BASE, mine, theirs);
    expect(m.conflicts).toBe(1);
    const [c] = conflictsOf(m);
    expect(c).toMatchObject({ base: ['    address: 192.0.2.12'], mine: ['    address: 192.0.2.42'], theirs: ['    address: 192.0.2.52   # theirs'], baseLine: 10, mineLine: 10, theirsLine: 10 });
    expect(pathAtLine(mine, c!.mineLine)).toEqual(['servers', 1, 'address']);
    expect(mergedText(m, ['theirs'])).toBe(theirs);
    expect(mergedText(m, ['mine'])).toBe(mine);
  });

  it('overwriting with mine says which of their lines it drops and how many removed lines come back', () => {
    const mine = edit(BASE, '    address: 192.0.2.12\n', '    address: 192.0.2.42\n');
    let theirs = edit(BASE, '    address: 192.0.2.12\n', '    address: 192.0.2.52\n');
    theirs = edit(theirs, 'name: site-b\n', 'name: site-b\ndescription: theirs\n');
    theirs = edit(theirs, '  - { name: web3, address: 192.0.2.13 }   # flow style\n', '');
    const loss = overwriteLoss(merge3(BASE, mine, theirs));
    expect(loss.dropped).toEqual(['description: theirs', '    address: 192.0.2.52']);
    expect(loss.restored).toBe(1);
    // Nothing changed on disk: nothing is lost.
    expect(overwriteLoss(merge3(BASE, mine, BASE))).toEqual({ dropped: [], restored: 0 });
  });

  it('a clean merge that would not be YAML leaves each change on disk to the user', () => {
    const base = 'lbdesk: 1\nname: s\ndescription: a\n';
    const mine = 'lbdesk: 1\nname: s\ndescription: "a\n';
    const theirs = 'lbdesk: 1\nname: s\ndescription: a\nservers: []\n';
    // Mine does not parse either: nothing to protect, the lines merge as they are.
    expect(mergeWorkspace(base, mine, theirs).conflicts).toBe(0);
    const base2 = 'lbdesk: 1\nname: s\nservers:\n  - name: a\n    address: 192.0.2.1\n';
    const mine2 = 'lbdesk: 1\nname: s\nservers:\n  - name: a\n    address: 192.0.2.1\n    weight: 5\n';
    const theirs2 = 'lbdesk: 1\nname: s\nservers: [ ]\n';
    const m = mergeWorkspace(base2, mine2, theirs2);
    expect(m.conflicts).toBe(1);
    expect(conflictsOf(m)[0]!.why).toMatch(/not be valid YAML/);
  });

  it('CRLF files and a file without a final newline keep their bytes', () => {
    const base = 'lbdesk: 1\r\nname: s\r\ndescription: a';
    const mine = 'lbdesk: 1\r\nname: s2\r\ndescription: a';
    const theirs = 'lbdesk: 1\r\nname: s\r\ndescription: b';
    expect(mergedText(mergeWorkspace(base, mine, theirs), [])).toBe('lbdesk: 1\r\nname: s2\r\ndescription: b');
  });

  it('pathAtLine names the item or field a line is about', () => {
    expect(pathAtLine(BASE, 6)).toEqual(['servers', 0, 'name']);
    expect(pathAtLine(BASE, 13)).toEqual(['servers', 2]);
    expect(pathAtLine(BASE, 19)).toEqual(['groups', 0, 'members', 1]);
    expect(pathAtLine(BASE, 3)).toEqual(['name']);
    expect(pathAtLine('a: [', 1)).toEqual([]);
  });
});
