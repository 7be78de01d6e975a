// Shared by the import tests: the corpus, importing it as the CLI does, and the real validators.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importConfig, newWorkspaceText, workspaceProblems, type Imported } from '../../../main/services/import';
import { parseWorkspace } from '../../../shared/model/validate';
import type { Workspace } from '../../../shared/model/schema';
import { HAPROXY, KEEPALIVED, which } from '../drivers';

export const CORPUS = resolve(__dirname, '../../fixtures/import');

export interface Case { file: string; driver: 'haproxy' | 'keepalived' }
export const CASES: Case[] = [
  { file: 'debian-tls.cfg', driver: 'haproxy' },
  { file: 'named-defaults.cfg', driver: 'haproxy' },
  { file: 'listen-only.cfg', driver: 'haproxy' },
  { file: 'keepalived-pair.conf', driver: 'keepalived' },
];

export function corpus(c: Case): { path: string; text: string } {
  const path = join(CORPUS, c.file);
  return { path, text: readFileSync(path, 'utf8') };
}

/** Imports as `lbdesk import` does and reads the workspace back through the real parser. */
export function importCase(c: Case, text = corpus(c).text): { result: Imported; yaml: string; workspace: Workspace } {
  const path = join(CORPUS, c.file);
  const result = importConfig({ bytes: Buffer.from(text), file: c.file, driver: c.driver, realPath: realpathSync(path) });
  const yaml = newWorkspaceText(result, { name: 'box', driver: c.driver, workspaceName: 'site', source: c.file });
  const problems = workspaceProblems(yaml, 'site.yaml');
  if (problems.length) throw new Error(problems.join('\n'));
  const workspace = parseWorkspace(yaml, 'site.yaml').workspace!;
  return { result, yaml, workspace };
}

/** Lines that differ (1-based), for "only that line changed". */
export function changedLines(a: string, b: string): number[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const out: number[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) out.push(i + 1);
  return out;
}

const OPENSSL = which('openssl');

/** `haproxy -c` on a copy whose certificate path points at a throwaway self-signed one. */
export function haproxyValid(text: string): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-'));
  let body = text;
  if (text.includes('/etc/haproxy/certs/site.pem')) {
    const key = join(dir, 'k.pem');
    const crt = join(dir, 'c.pem');
    spawnSync(OPENSSL!, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '1', '-subj', '/CN=lbdesk-test'], { encoding: 'utf8' });
    writeFileSync(join(dir, 'site.pem'), readFileSync(crt, 'utf8') + readFileSync(key, 'utf8'));
    body = text.replaceAll('/etc/haproxy/certs/site.pem', join(dir, 'site.pem'));
  }
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, body);
  // -L names the local peer of the corpus's peers section.
  const r = spawnSync(HAPROXY!, ['-c', '-L', 'lb1', '-f', file], { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Root can give keepalived -t the VRRP interface it names, in a network namespace of its own. */
export const CAN_NETNS = process.getuid?.() === 0 && !!which('unshare') && !!which('ip');

/** `keepalived -t -e` in a throwaway network namespace holding interface lbd0 (the corpus's VRRP interface). */
export function keepalivedValid(text: string): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-'));
  cpSync(join(CORPUS, 'keepalived.d'), join(dir, 'keepalived.d'), { recursive: true });
  const file = join(dir, 'keepalived.conf');
  writeFileSync(file, text);
  const make = 'ip link add lbd0 type veth peer name lbd1 2>/dev/null || ip link add lbd0 type bridge';
  const r = spawnSync('unshare', ['-n', 'sh', '-c', `${make} && exec "$0" -t -e -f "$1"`, KEEPALIVED!, file], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

export const TOOLS = { haproxy: HAPROXY && OPENSSL, keepalived: KEEPALIVED && CAN_NETNS };
