// One home per driver: outside main/services/drivers/ and the facts table (shared/model/drivers.ts)
// nothing compares a driver's name or lists driver names; callers ask a capability instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli';
import { DRIVERS } from '../../shared/model/drivers';

const NAMES = DRIVERS.join('|');
const COMPARED = new RegExp(`(===|!==)\\s*'(${NAMES})'|'(${NAMES})'\\s*(===|!==)|case '(${NAMES})'`);
/** `['haproxy', 'keepalived']`: a hand-written list of drivers. */
const LISTED = new RegExp(`\\[\\s*'(${NAMES})'\\s*,\\s*'(${NAMES})'`);
const HOMES = ['main/services/drivers/', 'shared/model/drivers.ts'];
/** Lines that compare the workspace's YAML format key `lbdesk:`, not the driver. */
const YAML_KEY = [
  { file: 'main/services/files/guard.ts', text: "p.key.value === 'lbdesk'" },
  { file: 'shared/model/issues.ts', text: "path[0] === 'lbdesk'" },
  { file: 'renderer/src/stores/nav.ts', text: "head === 'lbdesk'" },
];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|vue)$/.test(e.name) ? [path] : [];
  });
}

/** `file:line: text` for each line outside the homes that names a driver to decide by it. */
function nameComparisons(files: { file: string; text: string }[]): string[] {
  return files
    .filter(({ file }) => !HOMES.some((h) => file.startsWith(h)))
    .flatMap(({ file, text }) => text.split('\n').flatMap((line, i) => {
      if (!COMPARED.test(line) && !LISTED.test(line)) return [];
      if (YAML_KEY.some((k) => k.file === file && line.includes(k.text))) return [];
      return [`${file}:${i + 1}: ${line.trim()}`];
    }));
}

describe('one home per driver', () => {
  it('no driver name is compared or listed outside its folder and the registry', () => {
    const files = ['main', 'shared', 'renderer/src'].flatMap(sources).map((f) => ({ file: relative(ROOT, join(ROOT, f)), text: readFileSync(join(ROOT, f), 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(nameComparisons(files)).toEqual([]);
  });

  it('finds each form, and lets the homes and the YAML key be', () => {
    const found = nameComparisons([
      { file: 'main/services/sync/x.ts', text: "if (a.driver === 'cli') x();\nconst ok = 'keepalived' !== d;\nswitch (d) {\n  case 'f5': break;\n}\nconst two = ['haproxy', 'keepalived'];" },
      { file: 'main/services/drivers/haproxy.ts', text: "if (a.driver === 'haproxy') x();" },
      { file: 'shared/model/drivers.ts', text: "export const DRIVERS = ['haproxy', 'keepalived'] as const;" },
      { file: 'shared/model/issues.ts', text: "return path[0] === 'lbdesk' ? 'a' : 'b';" },
      { file: 'shared/model/other.ts', text: "return path[0] === 'lbdesk' ? 'a' : 'b';" },
    ]);
    expect(found.map((f) => f.split(': ')[0])).toEqual([
      'main/services/sync/x.ts:1', 'main/services/sync/x.ts:2', 'main/services/sync/x.ts:4', 'main/services/sync/x.ts:6',
      'shared/model/other.ts:1',
    ]);
  });
});
