// Bad input: one file:line error or a kept row, never a crash, never a partial workspace.
import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importConfig, ImportError } from '../../../../main/services/import';
import { runCli } from '../../../helpers/cli';
import { CORPUS } from '../../../helpers/import';

function errorOf(text: string | Buffer, driver: 'haproxy' | 'keepalived', file = 'site.cfg'): string {
  try {
    importConfig({ bytes: Buffer.isBuffer(text) ? text : Buffer.from(text), file, driver, includes: false });
  } catch (e) {
    if (e instanceof ImportError) return e.message;
    throw e;
  }
  throw new Error('no error');
}

const rows = (text: string, driver: 'haproxy' | 'keepalived') => importConfig({ bytes: Buffer.from(text), file: 'site.cfg', driver, includes: false }).items;

describe('import: bad input', () => {
  it('a file of the other format is refused at its first line', () => {
    expect(errorOf('# keepalived\nglobal_defs {\n  router_id a\n}\n', 'haproxy')).toBe('site.cfg:2: "global_defs" is not a HAProxy section keyword (expected global, defaults, frontend, backend or listen): not a haproxy.cfg');
    expect(errorOf('global\n    daemon\n\nbackend web\n    server a 192.0.2.1:80\n', 'keepalived')).toMatch(/^site\.cfg:1: "global" is not a keepalived keyword/);
  });

  it('a truncated section is an error at its line', () => {
    expect(errorOf('defaults\n    mode tcp\nbackend\n', 'haproxy')).toBe('site.cfg:3: backend section without a name (truncated file?)');
    expect(errorOf('virtual_server 192.0.2.10 80 {\n    lb_algo rr\n    real_server 192.0.2.11 80 {\n        weight 1\n', 'keepalived')).toMatch(/^site\.cfg:3: block "real_server 192\.0\.2\.11 80" is never closed/);
    expect(errorOf('}\n', 'keepalived')).toBe('site.cfg:1: unexpected "}": no block is open here');
  });

  it('an unknown keyword is a kept row at its line; the rest is imported', () => {
    const items = rows('backend web\n    frobnicate yes\n    timeout check 2s\n    server a 192.0.2.1:80 check\n', 'haproxy');
    expect(items).toContainEqual(expect.objectContaining({ line: 2, outcome: 'kept', detail: expect.stringContaining('frobnicate') }));
    expect(items).toContainEqual(expect.objectContaining({ line: 1, section: 'backend web', outcome: 'imported' }));
    const k = rows('frobnicate {\n  x 1\n}\nvirtual_server 192.0.2.10 80 {\n  lb_algo rr\n  lb_kind NAT\n  real_server 192.0.2.11 80 {\n    weight 1\n  }\n}\n', 'keepalived');
    expect(k[0]).toMatchObject({ line: 1, outcome: 'kept', detail: 'unknown keyword "frobnicate": kept as written' });
  });

  it('a bind lbdesk cannot model keeps its frontend, by name', () => {
    const items = rows('frontend ranged\n    bind 192.0.2.10:8000-8010\n    default_backend web\n\nbackend web\n    server a 192.0.2.1:80\n', 'haproxy');
    expect(items).toContainEqual(expect.objectContaining({ line: 2, section: 'frontend ranged', outcome: 'kept', detail: expect.stringContaining('port range 8000-8010 is not modelled') }));
  });

  it('binary bytes and invalid UTF-8 are errors at their line', () => {
    expect(errorOf(Buffer.from('global\n    daemon\n\0\0\0'), 'haproxy')).toBe('site.cfg:3: binary data (a NUL byte): not a text config');
    expect(errorOf(Buffer.from([0x67, 0x6c, 0x0a, 0xff, 0xfe, 0x0a]), 'haproxy')).toBe('site.cfg:2: not UTF-8 text (binary data?)');
  });

  it('a config that includes itself (through another file) is an include loop', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-'));
    writeFileSync(join(dir, 'a.conf'), 'global_defs {\n  router_id a\n}\ninclude b.conf\n');
    writeFileSync(join(dir, 'b.conf'), '\ninclude a.conf\n');
    const path = join(dir, 'a.conf');
    try {
      importConfig({ bytes: Buffer.from('global_defs {\n  router_id a\n}\ninclude b.conf\n'), file: path, driver: 'keepalived', realPath: path });
      throw new Error('no error');
    } catch (e) {
      expect((e as Error).message).toBe(`${join(dir, 'b.conf')}:2: include loop: a.conf includes b.conf includes a.conf`);
    }
  });
});

describe('lbdesk import (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-cli-'));

  it('writes a valid workspace and prints the report; --json has one item per row', async () => {
    const out = join(dir, 'site.yaml');
    const r = await runCli(['import', join(CORPUS, 'debian-tls.cfg'), '--driver', 'haproxy', '--out', out, '--appliance', 'edge', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { workspace: string; driver: string; items: { line: number; section: string; outcome: string }[] };
    expect(doc).toMatchObject({ workspace: out, driver: 'haproxy' });
    expect(doc.items).toContainEqual(expect.objectContaining({ line: 37, section: 'frontend https-in', outcome: 'kept' }));
    expect(doc.items).toContainEqual(expect.objectContaining({ line: 80, section: 'listen stats', outcome: 'kept' }));
    const [v, onto] = await Promise.all([runCli(['validate', out]), runCli(['render', out, '--appliance', 'edge', '--onto', join(CORPUS, 'debian-tls.cfg')])]);
    expect(v.code, v.stderr).toBe(0);
    expect(onto.code, onto.stderr).toBe(0);
    expect(onto.stdout).toBe(readFileSync(join(CORPUS, 'debian-tls.cfg'), 'utf8'));
  });

  it('bad input exits 1 with one file:line line and writes nothing; usage exits 2', async () => {
    const out = join(dir, 'never.yaml');
    const big = join(dir, 'big.cfg');
    writeFileSync(big, 'global\n');
    truncateSync(big, 50 * 1024 * 1024);
    const [r, stdin, usage] = await Promise.all([
      runCli(['import', big, '--driver', 'haproxy', '--out', out]),
      runCli(['import', '-', '--driver', 'keepalived', '--out', out], { input: 'global\n  daemon\n' }),
      runCli(['import', big, '--driver', 'nginx']),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`lbdesk: ${big}:1: 50.0 MiB is too large to be a config (import reads at most 16 MiB)\n`);
    expect(stdin.code).toBe(1);
    expect(stdin.stderr).toBe('lbdesk: <stdin>:1: "global" is not a keepalived keyword (expected global_defs, vrrp_instance, virtual_server…): not a keepalived.conf\n');
    expect(existsSync(out)).toBe(false);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('lbdesk: --driver must be haproxy, keepalived, adx, a10, netscaler, f5 or pingdirectory (got "nginx")\n');
  });
});
