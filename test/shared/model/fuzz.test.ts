// Many mutated workspaces: validation never throws, every problem is one well-placed line, the
// fast reader and the yaml Document agree, and the exit status is always 0 or 1.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWorkspace, validateDocument } from '../../../shared/model/validate';
import { createDocument } from '../../../shared/model/document';
import { fastLoad } from '../../../shared/model/fastload';
import { fastLocator } from '../../../shared/model/fastpos';
import { generateWorkspace } from '../../fixtures/workspaces/generate';
import { formatProblem } from '../../../shared/model/problem';
import { documentData } from '../../../shared/model/aliases';
import { validateFile } from '../../../main/services/workspace/load';
import { exampleText, rng } from '../../helpers/model';

const WEIRD = [
  '-1', '0', '65536', '99999999999999999999', '1e400', '.nan', '.inf', '-.inf', 'null', '~', "''", '""', 'true', 'no',
  '[1, 2]', '{a: 1}', '[]', '{}', '*nope', '&a x', '!!binary aGk=', '!tag x', '"\\u0000"', '0x10', '0o17', '0b11', '1_000', '+.5',
  '10 s', '5m', '500ms', '1.5s', '::1', '0.0.0.0', '127.1', 'fe80::1%eth0', '"a\\nb"', '|\n  block', '>-\n  folded', "'it''s'",
  '"\\x41"', 'x'.repeat(300), '🙂', 'A1', 'B2', 'ts1', 'web1', 'web', 'auto', 'udp', 'sctp', 'hash',
];
const ALPHABET = ':-[]{}#&*!|>\'"%@`,? \t\n0123456789abcxyz.';

function mutate(text: string, next: () => number): string {
  const lines = text.split('\n');
  const pick = (n: number) => Math.floor(next() * n);
  const line = pick(lines.length);
  switch (pick(9)) {
    case 0: {
      const at = pick(text.length);
      return text.slice(0, at) + text.slice(at + 1 + pick(5));
    }
    case 1: {
      const at = pick(text.length);
      let ins = '';
      for (let i = 0, n = 1 + pick(3); i < n; i++) ins += ALPHABET[pick(ALPHABET.length)];
      return text.slice(0, at) + ins + text.slice(at);
    }
    case 2:
      lines.splice(line, 0, lines[line]!);
      return lines.join('\n');
    case 3:
      lines.splice(line, 1);
      return lines.join('\n');
    case 4: {
      const other = pick(lines.length);
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      return lines.join('\n');
    }
    case 5:
      lines[line] = next() < 0.5 ? ' '.repeat(1 + pick(4)) + lines[line] : lines[line]!.replace(/^ {1,4}/, '');
      return lines.join('\n');
    case 6:
    case 7: {
      // Replace a value: the part after "key: " (or one flow entry).
      const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => /: \S/.test(l));
      const [l, i] = candidates[pick(candidates.length)]!;
      const parts = l.split(/(: )/);
      const k = 2 * (1 + pick(Math.max(1, (parts.length - 1) / 2))) ;
      parts[Math.min(k, parts.length - 1)] = WEIRD[pick(WEIRD.length)]! + (next() < 0.3 ? ' # c' : '');
      lines[i] = parts.join('');
      return lines.join('\n');
    }
    default: {
      const keys = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*-?\s*[a-zA-Z]+:/.test(l));
      const [l, i] = keys[pick(keys.length)]!;
      lines[i] = l.replace(/[a-zA-Z]/, (c) => String.fromCharCode(c.charCodeAt(0) ^ 1));
      return lines.join('\n');
    }
  }
}

function mutants(count: number, seed: number): string[] {
  const next = rng(seed);
  const base = exampleText();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = base;
    for (let m = 0, n = 1 + Math.floor(next() * 3); m < n; m++) text = mutate(text, next);
    out.push(text);
  }
  return out;
}

describe('fuzz: mutated workspaces', () => {
  const samples = mutants(200, 424242);

  it('never throw; every problem is one line at a real position; workspace iff no error', () => {
    let invalid = 0;
    for (const text of samples) {
      const r = parseWorkspace(text, 'm.yaml');
      const lineCount = text.split('\n').length;
      for (const p of r.problems) {
        expect(p.line).toBeGreaterThanOrEqual(1);
        expect(p.line).toBeLessThanOrEqual(lineCount);
        expect(p.col).toBeGreaterThanOrEqual(1);
        expect(p.path.length).toBeGreaterThan(0);
        expect(formatProblem(p)).not.toMatch(/[\r\n]/);
      }
      const errors = r.problems.some((p) => p.severity === 'error');
      expect(r.workspace === undefined).toBe(errors);
      if (errors) invalid++;
    }
    // The mutations must really break things, or this test proves little.
    expect(invalid).toBeGreaterThan(samples.length / 3);
    expect(invalid).toBeLessThan(samples.length);
  });

  it('the fast reader and the yaml Document give the same problems, positions and workspace', () => {
    let placedFast = 0;
    const generated = generateWorkspace({ servers: 200, groups: 20, targetSets: 4 });
    const next = rng(5);
    const more = Array.from({ length: 40 }, () => mutate(mutate(generated, next), next));
    for (const text of [...samples, ...more]) {
      const fast = parseWorkspace(text, 'm.yaml');
      const slow = validateDocument(createDocument(text), 'm.yaml', { migrate: true });
      expect(slow.problems.map(formatProblem), text).toEqual(fast.problems.map(formatProblem));
      expect(slow.workspace).toEqual(fast.workspace);
      if (fast.problems.length && fastLoad(text).ok && fastLocator(text)) placedFast++;
    }
    // Enough of them took the fast placement for the comparison to mean something.
    expect(placedFast).toBeGreaterThan(40);
  });

  it('js-yaml (fast path) reads exactly what yaml reads whenever it accepts the text', () => {
    let compared = 0;
    for (const text of samples) {
      const fast = fastLoad(text);
      if (!fast.ok) continue;
      const doc = createDocument(text);
      expect(doc.errors.map((e) => e.message), text).toEqual([]);
      expect(fast.data, text).toEqual(documentData(doc));
      compared++;
    }
    expect(compared).toBeGreaterThan(samples.length / 3);
  });

  it('validateFile exits 0 or 1, never 2, on every mutant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-fuzz-'));
    try {
      const codes = new Set<number>();
      for (const [i, text] of samples.slice(0, 60).entries()) {
        const file = join(dir, `m${i}.yaml`);
        writeFileSync(file, text);
        const r = await validateFile(file);
        expect([0, 1]).toContain(r.exitCode);
        codes.add(r.exitCode);
      }
      expect([...codes].sort()).toEqual([0, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
