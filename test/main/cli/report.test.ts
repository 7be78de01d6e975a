// `lbdesk report` on the real CLI: files beside the workspace (or --out-dir), --print, exit
// codes (0 written, 1 written for an invalid workspace, 2 usage), one-line errors.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../../helpers/cli';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-cli-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const demo = readFileSync(join(ROOT, 'assets/demo/lab-site-a.yaml'), 'utf8');

describe('lbdesk report', () => {
  it('writes HTML and Markdown in reports/ beside the workspace and prints where; offline asks nobody', async () => {
    const workspaceFile = join(dir, 'site.yaml');
    writeFileSync(workspaceFile, demo);
    const r = await runCli(['report', workspaceFile, '--offline']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [summary, html, md] = r.stdout.trim().split('\n');
    expect(summary).toBe('lab-site-a: valid; lab-haproxy not asked (offline report)');
    expect(html).toMatch(new RegExp(`^${dir}/reports/site-change-\\d{8}-\\d{6}Z\\.html$`));
    expect(readFileSync(md!, 'utf8')).toContain('# Change report: lab-site-a');
    expect(readFileSync(html!, 'utf8')).toContain('<title>Change report: lab-site-a</title>');
  });

  it('--print md writes no file; an unknown appliance and a bad --print are usage errors', async () => {
    const workspaceFile = join(dir, 'print', 'site.yaml');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'print'));
    writeFileSync(workspaceFile, demo);
    const [md, json, unknown, bad] = await Promise.all([
      runCli(['report', workspaceFile, '--offline', '--print', 'md']),
      runCli(['report', workspaceFile, '--offline', '--print', 'json']),
      runCli(['report', workspaceFile, '--offline', '--appliance', 'nope']),
      runCli(['report', workspaceFile, '--print', 'pdf']),
    ]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# Change report: lab-site-a\n/);
    expect(JSON.parse(json.stdout)).toMatchObject({ workspace: { name: 'lab-site-a', unsaved: false }, appliances: [{ name: 'lab-haproxy', live: { state: 'not-asked' } }], lab: { state: 'stopped' } });
    expect(unknown).toMatchObject({ code: 2, stderr: `lbdesk: no appliance "nope" in ${workspaceFile}\n` });
    expect(bad).toMatchObject({ code: 2, stderr: 'lbdesk: --print takes md, html or json, not "pdf"\n' });
    expect(readdirSync(join(dir, 'print'))).toEqual(['site.yaml']);
  });

  it('an invalid workspace: the report is written with its problems, exit 1; a missing file: exit 2', async () => {
    const workspaceFile = join(dir, 'bad.yaml');
    writeFileSync(workspaceFile, demo.replace('address: 127.0.0.21', 'address: 127.0.0.300'));
    const out = join(dir, 'elsewhere');
    const [r, missing] = await Promise.all([runCli(['report', workspaceFile, '--offline', '--out-dir', out]), runCli(['report', join(dir, 'none.yaml')])]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe('lab-site-a: invalid (1 error)');
    const md = readFileSync(readdirSync(out).filter((f) => f.endsWith('.md')).map((f) => join(out, f))[0]!, 'utf8');
    expect(md).toMatch(/- `.*bad\.yaml:\d+:\d+` error: servers\\\[0\\\]\.address: /);
    expect(missing).toMatchObject({ code: 2, stderr: `lbdesk: cannot read ${join(dir, 'none.yaml')}: no such file or not readable\n` });
  });
});
