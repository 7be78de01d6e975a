// `lbdesk validate WS` as a user runs it: the real CLI in a child process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../../helpers/cli';
import { exampleText, rng } from '../../../helpers/model';

const fixture = (name: string) => resolve(__dirname, '../../../fixtures/workspaces', name);
const LINE = /^(.+):(\d+):(\d+): (warning: )?([^:]+): (.+)$/;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lbdesk validate', () => {
  it('the example: exit 0, nothing on stderr', async () => {
    const r = await runCli(['validate', 'assets/demo/lab-site-a.yaml']);
    expect(r).toMatchObject({ code: 0, stderr: '', stdout: 'assets/demo/lab-site-a.yaml: valid\n' });
  });

  it('an invalid workspace: exit 1, one line per problem, no stack trace', async () => {
    const file = 'test/fixtures/workspaces/invalid-several.yaml';
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `${file}:9:5: servers[1].adress: unknown key "adress" (did you mean "address"?)`,
      `${file}:14:45: warning: groups[0].members[0].weight: weight 0: this server never receives new connections`,
      `${file}:15:19: groups[0].members[1].server: unknown server "web3" (did you mean "web1"?)`,
      `${file}:25:13: targetSets[0].number: must be an integer from 1 to 32, not the number 33`,
    ]);
    expect(r.stdout).toBe(`${file}: invalid (3 errors, 1 warning)\n`);
  });

  it('warnings only: exit 0, warnings still printed', async () => {
    const r = await runCli(['validate', fixture('warnings-only.yaml')]);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(LINE);
    expect(lines.every((l) => l.includes(': warning: '))).toBe(true);
  });

  it('--json: the same problems as data', async () => {
    const r = await runCli(['validate', '--json', fixture('invalid-several.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { valid: boolean; errors: number; warnings: number; problems: { path: string; line: number }[] };
    expect(out).toMatchObject({ valid: false, errors: 3, warnings: 1 });
    expect(out.problems.map((p) => p.path)).toEqual(['servers[1].adress', 'groups[0].members[0].weight', 'groups[0].members[1].server', 'targetSets[0].number']);
  });

  it('an unreadable file: exit 2 with a message naming it', async () => {
    const r = await runCli(['validate', 'no/such/site.yaml']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'lbdesk: cannot read no/such/site.yaml: no such file\n' });
  });

  it('a FIFO: "not a regular file", exit 2, without waiting for a writer', async () => {
    const fifo = join(dir, 'fifo.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = await runCli(['validate', fifo], { timeoutMs: 20_000 });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `lbdesk: cannot read ${fifo}: not a regular file\n` });
  });

  it('usage errors: exit 2', async () => {
    const none = await runCli(['validate']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing required argument/);
  });

  it('mutated workspaces: always exit 0 or 1, never a stack trace', async () => {
    const next = rng(99);
    const text = exampleText();
    const files: string[] = [];
    for (let i = 0; i < 2; i++) {
      const chars = text.split('');
      for (let k = 0; k < 3; k++) chars.splice(Math.floor(next() * chars.length), 1, ':-[{&*#\n '[Math.floor(next() * 9)]!);
      const file = join(dir, `m${i}.yaml`);
      writeFileSync(file, chars.join(''));
      files.push(file);
    }
    const results = await Promise.all(files.map((f) => runCli(['validate', f])));
    for (const r of results) {
      expect([0, 1]).toContain(r.code);
      for (const line of r.stderr.split('\n').filter(Boolean)) {
        expect(line).toMatch(LINE);
        expect(line).not.toMatch(/^\s+at /);
      }
    }
  });
});
