// Shared by the driver tests: the rich fixture, a workspace builder, and the real tools.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { workspaceSchema, type Workspace, type WorkspaceInput } from '../../../shared/model/schema';
import { parseWorkspace } from '../../../shared/model/validate';
import { formatProblem } from '../../../shared/model/problem';

export const ROOT = resolve(__dirname, '../../..');
export const RICH_PATH = join(ROOT, 'test/fixtures/workspaces/rich.yaml');
export const GOLDEN_DIR = join(ROOT, 'test/fixtures/drivers');

/** Through the real workspace parser: any problem, even a warning, fails the test. */
export function parseWorkspaceText(text: string, file = 'workspace.yaml'): Workspace {
  const r = parseWorkspace(text, file);
  if (r.problems.length || !r.workspace) throw new Error(r.problems.map(formatProblem).join('\n') || 'no workspace');
  return r.workspace;
}

export function loadRich(): Workspace {
  return parseWorkspaceText(readFileSync(RICH_PATH, 'utf8'), RICH_PATH);
}

/** A small valid workspace; `extra` replaces top-level lists. */
export function workspace(extra: Partial<WorkspaceInput>): Workspace {
  return workspaceSchema.parse({ lbdesk: 1, name: 'unit', ...extra });
}

export function appliance(site: Workspace, name: string) {
  const a = site.appliances.find((x) => x.name === name);
  if (!a) throw new Error(`no appliance ${name}`);
  return a;
}

export function which(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin'])) {
    const full = join(dir, bin);
    if (spawnSync('test', ['-x', full]).status === 0) return full;
  }
  return undefined;
}

export const HAPROXY = which('haproxy');
export const KEEPALIVED = which('keepalived');

export interface ToolResult { code: number | null; output: string }

/** `haproxy -c` in zero-warning mode: any warning fails the check too. */
export function haproxyCheck(text: string): ToolResult {
  const file = writeTemp('haproxy.cfg', text);
  const r = spawnSync(HAPROXY!, ['-dW', '-c', '-f', file], { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

/** `keepalived -t`: exits non-zero on any ignored or unknown line, and says why on stderr. */
export function keepalivedCheck(text: string): ToolResult {
  const file = writeTemp('keepalived.conf', text);
  const r = spawnSync(KEEPALIVED!, ['-t', '-e', '-f', file], { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

export function writeTemp(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-drivers-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

export function missing(bin: string): string {
  const reason = `${bin} is not installed: skipping (apt-get install ${bin})`;
  process.stdout.write(`${reason}\n`);
  return reason;
}
