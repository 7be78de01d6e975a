// Exploit regressions for regular expressions a workspace hands to lbdesk (cli.volatile,
// cli.errors, cli.prompt, cli.pager), as a received workspace arrives through the CLI: a
// catastrophic pattern is refused by validate and by diff at file:line:col naming the field,
// before any appliance is contacted; one that got past validation is stopped by a time bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli';
import { ROOT, tempDir } from '../../helpers/app-ipc';
import { compilePattern } from '../../../main/services/drivers/box-patterns';
import { MATCH_BUDGET_MS, PatternTimeout, untrusted } from '../../../main/services/drivers/pattern-bound';
import { normalizeCli } from '../../../main/services/sync/commands/diff';

let tmp: ReturnType<typeof tempDir>;
let file: string;

// A closed loopback port: were the pattern let through, diff would fail to connect at once.
const WORKSPACE = `lbdesk: 1
name: hostile-patterns
servers:
  - { name: web1, address: 192.0.2.21 }
groups:
  - { name: web, members: [{ server: web1, port: 8081 }] }
services:
  - { name: web-vip, address: 203.0.113.10, port: 80, group: web }
appliances:
  - name: adx1
    host: 127.0.93.1
    port: 9
    user: admin
    driver: cli
    template: adx-example.liquid
    cli:
      volatile: ['^(a+)+$']
      errors: ['(x|x)*y']
      prompt: '(?i)^(\\w+#)+$'
      pager: '(a?b?)+--More--'
`;

beforeAll(() => {
  tmp = tempDir('patterns');
  file = join(tmp.dir, 'site.yaml');
  copyFileSync(join(ROOT, 'assets/templates/adx-example.liquid'), join(tmp.dir, 'adx-example.liquid'));
  writeFileSync(file, WORKSPACE);
});
afterAll(() => tmp.cleanup());

const FIELDS = [
  ['appliances[0].cli.volatile[0]', 17, 18],
  ['appliances[0].cli.errors[0]', 18, 16],
  ['appliances[0].cli.prompt', 19, 15],
  ['appliances[0].cli.pager', 20, 14],
] as const;

describe('workspace patterns', () => {
  it('validate refuses each catastrophic pattern at its line and column, naming the field', async () => {
    const started = Date.now();
    const r = await runCli(['validate', file], { timeoutMs: 60_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual(FIELDS.map(([path, line, col]) => expect.stringMatching(new RegExp(`site\\.yaml:${line}:${col}: ${path.replace(/[[\].]/g, '\\$&')}: repeats a group that itself repeats`))));
  });

  it('diff refuses the workspace promptly, before contacting the appliance', async () => {
    const started = Date.now();
    const r = await runCli(['diff', file], { timeoutMs: 60_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/site\.yaml:17:18: appliances\[0\]\.cli\.volatile\[0\]: repeats a group/);
    expect(r.stderr).not.toMatch(/ECONNREFUSED|connect/i);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('the driver refuses to compile such a pattern too', () => {
    expect(() => compilePattern('^(a+)+$')).toThrow(/repeats a group that itself repeats/);
  });

  it('matching is time-bounded: a pattern that got past validation is stopped on a pulled line of 34 a and !', () => {
    const evil = untrusted(new RegExp('^(a+)+$'));
    const started = Date.now();
    expect(() => normalizeCli(`hostname adx1\n${'a'.repeat(34)}!\n`, [evil])).toThrow(PatternTimeout);
    // The bound plus generous slack; unbounded, this line takes hours.
    expect(Date.now() - started).toBeLessThan(MATCH_BUDGET_MS + 10_000);
    // The same pattern on harmless output answers as before.
    expect(normalizeCli('hostname adx1\naaaa\n', [evil])).toBe('hostname adx1\n');
  });
});
