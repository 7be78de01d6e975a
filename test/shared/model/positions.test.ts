// Every problem points at file:line:col of the field it is about.
import { describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../shared/model/validate';
import { formatPath, formatProblem, type Problem } from '../../../shared/model/problem';
import { exampleText } from '../../helpers/model';

/** 1-based line and column of the first occurrence of `needle` (plus `shift` characters). */
function where(text: string, needle: string, shift = 0): { line: number; col: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not in text: ${needle}`);
  const before = text.slice(0, at + shift);
  return { line: before.split('\n').length, col: before.length - before.lastIndexOf('\n') };
}

function only(text: string): Problem {
  const { problems } = parseWorkspace(text, 'site.yaml');
  expect(problems).toHaveLength(1);
  return problems[0]!;
}

describe('positions', () => {
  const example = exampleText();

  it('a bad value points at the value, in a flow mapping too', () => {
    const text = example.replace('{ server: web2, port: 8081, weight: 200 }', '{ server: web2, port: 8081, weight: 70000 }');
    const p = only(text);
    expect(p).toMatchObject({ path: 'groups[0].members[1].weight', ...where(text, '70000') });
    expect(formatProblem(p)).toBe(`site.yaml:${p.line}:${p.col}: groups[0].members[1].weight: must be an integer from 0 to 65535, not the number 70000`);
  });

  it('a byte-order mark does not shift the position', () => {
    const text = example.replace('    port: 8080\n', '    port: 65536\n');
    const p = only(`\ufeff${text}`);
    expect(p).toMatchObject({ path: 'services[0].port', ...where(text, '65536') });
  });

  it('an unknown key points at the key', () => {
    const text = example.replace('    port: 2222                  # default 22', '    prot: 2222');
    const p = only(text);
    expect(p).toMatchObject({ path: 'appliances[0].prot', ...where(text, 'prot: 2222') });
    expect(p.message).toBe('unknown key "prot" (did you mean "port"?)');
  });

  it('a missing field points at the mapping that lacks it', () => {
    const text = example.replace('  - name: dir1\n    address: 127.0.0.31\n', '  - name: dir1\n');
    const p = only(text);
    expect(p).toMatchObject({ path: 'servers[2].address', message: 'required field is missing', ...where(text, 'name: dir1') });
  });

  it('a cross-reference error points at the reference', () => {
    const text = example.replace('    group: resolvers', '    group: resolver');
    const p = only(text);
    expect(p).toMatchObject({ path: 'services[2].group', ...where(text, 'resolver\n', 0) });
    expect(p.message).toBe('unknown group "resolver" (did you mean "resolvers"?)');
  });

  it('a YAML syntax error has its position and the (yaml) path', () => {
    const text = example.replace('  interval: 30s ', '  interval: 30s: 5 ');
    const { problems, workspace } = parseWorkspace(text, 'site.yaml');
    expect(workspace).toBeUndefined();
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.path).toBe('(yaml)');
    expect(problems[0]).toMatchObject({ ...where(text, '30s: 5'), message: 'Nested mappings are not allowed in compact mappings' });
  });

  it('two documents: said in words at the second "---", not the yaml library\'s advice', () => {
    const text = `${example}---\nlbdesk: 1\n`;
    const { problems, workspace } = parseWorkspace(text, 'site.yaml');
    expect(workspace).toBeUndefined();
    expect(problems).toEqual([expect.objectContaining({ path: '(yaml)', ...where(text, '---\nlbdesk: 1\n'), message: 'the file holds more than one YAML document (a second "---" here)' })]);
  });

  it('a duplicate key is an error at the second key, named by its field path', () => {
    const text = example.replace('  failAfter: 2 ', '  failAfter: 2\n  interval: 9s ');
    const { problems } = parseWorkspace(text, 'site.yaml');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'healthTimers.interval', line: where(text, '  interval: 9s').line, message: '"interval" is given twice here: keep one' });
  });

  it('a duplicate key inside a list item names the item', () => {
    const { problems } = parseWorkspace('lbdesk: 1\nname: d\nservers:\n  - { name: a, address: 192.0.2.1, name: b }\n', 'site.yaml');
    expect(problems).toEqual([expect.objectContaining({ path: 'servers[0].name', line: 4, col: 36, message: '"name" is given twice here: keep one' })]);
  });

  it('a document that is not a mapping is a (root) problem at 1:1', () => {
    expect(only('- a\n- b\n')).toMatchObject({ path: '(root)', line: 1, col: 1, message: 'expected a mapping, not a list' });
    expect(only('')).toMatchObject({ path: '(root)', message: 'expected a mapping, not an empty value' });
  });

  it('problems come in file order, warnings marked', () => {
    const text = example
      .replace('{ server: web1, port: 8081, weight: 100 }', '{ server: web1, port: 8081, weight: 0 }')
      .replace('deleteAge: 600', 'deleteAge: 1');
    const { problems } = parseWorkspace(text, 'site.yaml');
    expect(problems.map((p) => [p.severity, p.path])).toEqual([
      ['warning', 'groups[0].members[0].weight'],
      ['error', 'targetSets[0].deleteAge'],
    ]);
    expect(formatProblem(problems[0]!)).toMatch(/^site\.yaml:\d+:\d+: warning: groups\[0\]\.members\[0\]\.weight: weight 0/);
  });
});

describe('paths', () => {
  it.each([
    [[], '(root)'],
    [['name'], 'name'],
    [['groups', 0, 'members', 1, 'weight'], 'groups[0].members[1].weight'],
    [['groups', 1, 'healthCheck', 'ldap', 'expect', 'cn;x y'], 'groups[1].healthCheck.ldap.expect["cn;x y"]'],
    [['a-b', 'c_d'], 'a-b.c_d'],
  ] as const)('%j -> %s', (segments, path) => {
    expect(formatPath(segments)).toBe(path);
  });
  it('segments travel with each problem for jumping to the field', () => {
    const { problems } = parseWorkspace(exampleText().replace('deleteAge: 600', 'deleteAge: 1'), 'x');
    expect(problems[0]!.segments).toEqual(['targetSets', 0, 'deleteAge']);
  });
});
