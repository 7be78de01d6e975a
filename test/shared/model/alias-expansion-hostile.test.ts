// Exploit regressions for YAML aliases, through the CLI as a received workspace arrives: aliases
// are measured by what they expand to. One healthCheck shared by 300 groups is a normal site;
// "billion laughs" is refused promptly, in one line, at the alias where the growth passes the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli';
import { tempDir } from '../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => (tmp = tempDir('alias')));
afterAll(() => tmp.cleanup());

function sharedCheck(groups: number): string {
  const lines = ['lbdesk: 1', 'name: shared-check', 'servers:', '  - { name: web1, address: 192.0.2.21 }', 'groups:'];
  for (let i = 0; i < groups; i++) {
    lines.push(`  - name: g${i}`, '    members: [{ server: web1, port: 8081 }]');
    lines.push(i === 0 ? '    healthCheck: &check { type: http, http: { path: /status, expect: OK }, degradedAbove: 1s, availableBelow: 500ms }' : '    healthCheck: *check');
  }
  return `${lines.join('\n')}\n`;
}

function billionLaughs(): string {
  const lines = ['lbdesk: 1', 'name: laughs', 'description: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i <= 9; i++) lines.push(`x${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

describe('alias expansion', () => {
  it('300 groups sharing one anchored healthCheck validate', async () => {
    const file = join(tmp.dir, 'shared.yaml');
    writeFileSync(file, sharedCheck(300));
    const r = await runCli(['validate', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a billion-laughs document is refused promptly with one line at the alias', async () => {
    const file = join(tmp.dir, 'laughs.yaml');
    writeFileSync(file, billionLaughs());
    const started = Date.now();
    const r = await runCli(['validate', file], { timeoutMs: 30_000 });
    // Generous: a bomb expanded even once takes minutes and gigabytes.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    const problems = (r.stdout + r.stderr).split('\n').filter((l) => /^\S+:\d+:\d+: /.test(l));
    // One problem, at the alias where the expansion passes the cap (x5's 8th), naming its field.
    expect(problems).toEqual([expect.stringMatching(/laughs\.yaml:8:45: x5\[7\]: alias \*a4 expands to 111111 nodes.*alias bomb$/)]);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });
});
