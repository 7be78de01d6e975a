// Hostile input is refused with a clear problem, never a crash or a runaway.
import { describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../shared/model/validate';
import { MAX_DEPTH, MAX_WORKSPACE_BYTES } from '../../../shared/model/limits';
import { problemCounts } from '../../../shared/model/problem';

const HEAD = 'lbdesk: 1\nname: x\n';

function lol(levels: number): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

describe('hostile input', () => {
  it('an alias bomb ("billion laughs") is refused', () => {
    const r = parseWorkspace(`${HEAD}description: x\n${lol(9)}\n`, 'bomb.yaml');
    expect(r.workspace).toBeUndefined();
    expect(r.problems).toEqual([expect.objectContaining({ severity: 'error', path: expect.stringMatching(/^a\d\[\d\]$/), message: expect.stringMatching(/alias bomb/) })]);
  });

  it('an alias with no anchor is named where it is, not taken for a bomb', () => {
    const r = parseWorkspace(`${HEAD}servers:\n  - name: a\n    address: *nope\n`, 'undef.yaml');
    expect(r.workspace).toBeUndefined();
    expect(r.problems).toEqual([expect.objectContaining({ severity: 'error', line: 5, col: 14, path: 'servers[0].address', message: 'unknown alias *nope: no anchor &nope is set before it' })]);
  });

  it('nesting too deep for the parser itself (behind an anchor) is the depth limit, said once', () => {
    const r = parseWorkspace(`${HEAD}x: &a ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`, 'deep.yaml');
    expect(r.workspace).toBeUndefined();
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.message).toMatch(/^nested deeper than \d+ levels$/);
  });

  it('a few harmless aliases are fine (and still validated)', () => {
    const text = `${HEAD}healthTimers: &t { interval: 5s }\nservers:\n  - { name: a, address: 127.0.0.2, healthTimers: *t }\n`;
    const r = parseWorkspace(text, 'ok.yaml');
    expect(r.problems).toEqual([]);
    expect(r.workspace!.servers[0]!.healthTimers).toEqual({ interval: 5_000 });
  });

  it('an unclosed quote is named where it opens, not at the end of the file', () => {
    const r = parseWorkspace(`${HEAD}description: "a \\" b"\nservers:\n  - { name: 'it''s, address: 127.0.0.1 }\n`, 'q.yaml');
    expect(r.problems[0]).toMatchObject({ line: 5, col: 13, path: '(yaml)', message: "this quoted value is never closed: add the closing ' (the file ends inside it)" });
    const dq = parseWorkspace(`${HEAD}description: "abc\nservers: []\n`, 'q.yaml');
    expect(dq.problems).toEqual([expect.objectContaining({ line: 3, col: 14, message: 'this quoted value is never closed: add the closing " (the file ends inside it)' })]);
  });

  it('a byte-order mark is no column: line 1 positions are as an editor shows them', () => {
    const at = (text: string) => parseWorkspace(`\uFEFF${text}`, 'bom.yaml').problems.map((p) => `${p.line}:${p.col}`)[0];
    expect(at('lbdesk: 1\r')).toBe('1:10');
    expect(at('bogus: 1\n')).toBe('1:1');
    expect(at('lbdesk: 2\n')).toBe('1:9');
    expect(at('{lbdesk: 1, name: x, bogus: 2}\n')).toBe('1:22');
    expect(at('lbdesk: 1\nname: "abc\n')).toBe('2:7');
  });

  it('a collection used as a key is named at that key', () => {
    const r = parseWorkspace(`${HEAD}? [a, b]\n: 1\n`, 'k.yaml');
    expect(r.problems).toEqual([expect.objectContaining({ line: 3, col: 3, message: 'unknown key "[ a, b ]"' })]);
  });

  it('a problem inside an aliased entry points at the alias, where the user wrote it, not at the anchor', () => {
    const dup = parseWorkspace(`${HEAD}servers:\n  - &s { name: a, address: 127.0.0.1 }\n  - *s\n`, 'dup.yaml');
    expect(dup.problems.map((p) => [p.path, p.line, p.col])).toEqual([['servers[0].name', 4, 16], ['servers[1].name', 5, 5]]);
    // The same under a key: `healthTimers: *t` with a bad interval points at `*t` on that server's line.
    const bad = parseWorkspace(`${HEAD}healthTimers: &t { interval: 1ms }\nservers:\n  - { name: a, address: 127.0.0.2, healthTimers: *t }\n`, 'bad.yaml');
    expect(bad.problems.map((p) => [p.path, p.line, p.col])).toEqual([['healthTimers.interval', 3, 30], ['servers[0].healthTimers.interval', 5, 50]]);
  });

  it.each([
    ['flow lists', (n: number) => `${HEAD}description: ${'['.repeat(n)}${']'.repeat(n)}\n`],
    ['flow mappings', (n: number) => `${HEAD}description: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`],
    ['block lists', (n: number) => `${HEAD}description:\n  ${'- '.repeat(n)}x\n`],
    ['block mappings', (n: number) => `${HEAD}description:\n${Array.from({ length: Math.min(n, 2000) }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} x\n`],
  ])('nesting deeper than the limit in %s is refused, even 100 000 deep', (_what, make) => {
    for (const depth of [MAX_DEPTH + 5, 100_000]) {
      const text = make(depth);
      const r = parseWorkspace(text, 'deep.yaml');
      expect(r.workspace).toBeUndefined();
      expect(r.problems).toEqual([expect.objectContaining({ path: '(root)', message: `nested deeper than ${MAX_DEPTH} levels` })]);
    }
  });

  it('the depth limit also holds where the fast reader gave up (here on a NUL byte)', () => {
    const text = `${HEAD}note: "\u0000"\ndescription: ${'['.repeat(MAX_DEPTH + 5)}${']'.repeat(MAX_DEPTH + 5)}\n`;
    const r = parseWorkspace(text, 'deep.yaml');
    expect(r.problems).toEqual([expect.objectContaining({ path: '(root)', line: 4, message: `nested deeper than ${MAX_DEPTH} levels` })]);
  });

  it('deep but legal nesting (a real workspace needs 7) is fine', () => {
    const text = `${HEAD}servers:\n  - name: a\n    address: 127.0.0.2\ngroups:\n  - name: g\n    members: [{ server: a, port: 389 }]\n    healthCheck: { type: ldap, ldap: { expect: { cn: monitor } } }\n`;
    expect(parseWorkspace(text, 'ok.yaml').problems).toEqual([]);
  });

  it('text over the size limit is refused before parsing', () => {
    const big = `${HEAD}description: "${'x'.repeat(MAX_WORKSPACE_BYTES)}"\n`;
    const r = parseWorkspace(big, 'big.yaml');
    expect(r.problems).toEqual([expect.objectContaining({ line: 1, col: 1, message: 'file is larger than 16 MiB: refused' })]);
    expect(r.doc.contents).toBeNull();
  });

  it('multi-byte text is measured in bytes', () => {
    const text = `${HEAD}description: "${'é'.repeat(MAX_WORKSPACE_BYTES / 2 + 10)}"\n`;
    expect(text.length).toBeLessThan(MAX_WORKSPACE_BYTES);
    expect(parseWorkspace(text, 'big.yaml').problems[0]!.message).toMatch(/larger than 16 MiB/);
  });

  it('many problems: checking stops at the cap, and a summary line says so', () => {
    const servers = Array.from({ length: 1500 }, (_, i) => `  - { name: s${i}, address: bad }`).join('\n');
    const r = parseWorkspace(`${HEAD}servers:\n${servers}\n`, 'many.yaml');
    expect(r.problems).toHaveLength(1001);
    expect(r.problems[999]!.path).toBe('servers[999].address');
    expect(r.problems[1000]!.message).toBe('… and more problems (checking stopped after 1000)');
    // The totals count what was found and say that there is more, not the summary line itself.
    expect(problemCounts(r.problems)).toEqual({ errors: 1000, warnings: 0, more: true });
  });

  it('exactly as many problems as the cap are all counted, with no "more"', () => {
    const servers = Array.from({ length: 1000 }, (_, i) => `  - { name: s${i}, address: bad }`).join('\n');
    const r = parseWorkspace(`${HEAD}servers:\n${servers}\n`, 'cap.yaml');
    expect(r.problems).toHaveLength(1000);
    expect(problemCounts(r.problems)).toEqual({ errors: 1000, warnings: 0 });
  });

  it('many warnings (no error) are all counted: they do not make the workspace invalid', () => {
    const services = Array.from({ length: 1200 }, (_, i) => `  - { name: v${i}, address: 127.0.0.10, port: ${1000 + i}, group: web, persistence: { type: none, timeout: 5s } }`).join('\n');
    const r = parseWorkspace(`${HEAD}servers: [{ name: a, address: 127.0.0.2 }]\ngroups: [{ name: web, members: [{ server: a, port: 80 }] }]\nservices:\n${services}\n`, 'warn.yaml');
    expect(problemCounts(r.problems)).toEqual({ errors: 0, warnings: 1200 });
    expect(r.workspace?.services).toHaveLength(1200);
  });

  it('__proto__ keys are unknown keys, and pollute nothing', () => {
    const r = parseWorkspace(`${HEAD}__proto__: { polluted: true }\nservers:\n  - { name: a, address: 127.0.0.2, constructor: 1 }\n`, 'p.yaml');
    expect(r.problems.map((p) => p.message)).toEqual(['unknown key "__proto__"', 'unknown key "constructor"']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('NUL bytes, tabs and several documents are YAML problems, not crashes', () => {
    for (const text of [`${HEAD}description: "a\u0000b"\nx\u0000: 1\n`, `${HEAD}servers:\n\t- a\n`, `${HEAD}---\n${HEAD}`]) {
      const r = parseWorkspace(text, 'odd.yaml');
      expect(r.workspace).toBeUndefined();
      expect(r.problems.length).toBeGreaterThan(0);
    }
  });

  it('old Mac line endings (a lone CR) are one problem at the first, counted as an editor shows lines', () => {
    // Valid to js-yaml, but the editor's parser reads a lone CR as a space: opening it would
    // validate and then refuse every edit.
    const msg = 'a line ends with a lone carriage return (CR, old Mac line endings): save the file with LF or CRLF line endings';
    const mac = parseWorkspace('lbdesk: 1\rname: x\rservers:\r  - { name: a, address: 999.1.1.1 }\r', 'mac.yaml');
    expect(mac.workspace).toBeUndefined();
    expect(mac.problems).toEqual([expect.objectContaining({ severity: 'error', file: 'mac.yaml', line: 1, col: 10, message: msg })]);
    const stray = parseWorkspace(`${HEAD.replace(/\n/g, '\r\n')}servers: []\r\n# a\rb\r\n`, 'stray.yaml');
    expect(stray.problems).toEqual([expect.objectContaining({ line: HEAD.split('\n').length + 1, col: 4, message: msg })]);
    // CRLF is fine.
    expect(parseWorkspace(`${HEAD.replace(/\n/g, '\r\n')}servers: []\r\n`, 'dos.yaml').problems).toEqual([]);
  });
});
