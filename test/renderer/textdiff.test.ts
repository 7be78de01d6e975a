// The diff model behind every diff view: the header's hash is never a change, sections fold by
// name, changed words are marked, a short patch's sections are named by line.
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { comparePatch, compareTexts, pairRows } from '../../renderer/src/lib/textdiff';

const head = (h: string) => `# lbdesk: workspace "a.yaml", appliance "lb1", driver haproxy, sha256 ${h.repeat(64)}`;
const cfg = (h: string, addr: string) => [head(h), 'global', '    maxconn 100', 'defaults', '    timeout connect 5s', 'backend web', `    server web1 ${addr}:8081 weight 85 check`, '    server web2 127.0.0.22:8081 check', ''].join('\n');

describe('textdiff', () => {
  it('keeps the header apart, opens only the changed section, marks the changed word', () => {
    const d = compareTexts(cfg('a', '127.0.0.21'), cfg('b', '127.0.0.23'));
    expect(d.header.before).toContain('sha256 aaaa');
    expect(d.header.after).toContain('sha256 bbbb');
    expect([d.added, d.removed]).toEqual([1, 1]);
    expect(d.sections.map((s) => [s.name, s.added + s.removed])).toEqual([['global', 0], ['defaults', 0], ['backend web', 2]]);
    const add = d.sections[2]!.rows.find((r) => r.kind === 'add')!;
    expect(add.newNo).toBe(7);
    expect(add.segs!.filter((g) => g.changed).map((g) => g.text)).toEqual(['127.0.0.23:8081']);
    const pairs = pairRows(d.sections[2]!.rows);
    expect(pairs.find((p) => p.left?.kind === 'del')?.right?.kind).toBe('add');
  });

  it('reads the same from a whole-file patch, and names sections after a gap by line', () => {
    const a = cfg('a', '127.0.0.21');
    const b = cfg('b', '127.0.0.23');
    const whole = comparePatch(createTwoFilesPatch('a', 'b', a, b, '', '', { context: 1e9 }));
    expect(whole.sections.map((s) => s.name)).toEqual(['global', 'defaults', 'backend web']);
    expect(whole.header.after).toContain('bbbb');
    const short = comparePatch(createTwoFilesPatch('a', 'b', a, b, '', '', { context: 1 }));
    expect([short.added, short.removed]).toEqual([1, 1]);
    expect(short.sections.some((s) => s.rows.some((r) => r.kind === 'gap'))).toBe(true);
    expect(short.sections.at(-1)!.name).toMatch(/^(backend web|from line \d+)$/);
  });

  it('a file without changes has none, a new file is all added', () => {
    expect(compareTexts(cfg('a', 'x'), cfg('a', 'x')).changed).toBe(false);
    const fresh = compareTexts('', cfg('a', 'x'));
    expect(fresh.removed).toBe(0);
    expect(fresh.added).toBe(7);
  });
});
