// `lbdesk render` as users run it: the real CLI in a child process.
import { copyFileSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli';
import { GOLDEN_DIR, RICH_PATH } from '../../../helpers/drivers';

describe('lbdesk render', () => {
  it('prints the config to stdout, warnings on stderr, exit 0', async () => {
    const r = await runCli(['render', RICH_PATH, '--appliance', 'edge-haproxy']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(GOLDEN_DIR, 'rich.edge-haproxy.haproxy.cfg'), 'utf8'));
    expect(r.stderr).toContain('lbdesk: warning: target set 4: protocols both: only TCP is rendered, SCTP is dropped\n');
  });

  it('--out writes the file and nothing to stdout', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lbdesk-render-')), 'keepalived.conf');
    const r = await runCli(['render', RICH_PATH, '--appliance', 'lvs', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(GOLDEN_DIR, 'rich.lvs.keepalived.conf'), 'utf8'));
  });

  it('--out never replaces the workspace itself (or through a link), and says why in words', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-render-'));
    const workspaceFile = join(dir, 'site.yaml');
    copyFileSync(RICH_PATH, workspaceFile);
    const before = readFileSync(workspaceFile, 'utf8');
    symlinkSync(workspaceFile, join(dir, 'link.yaml'));
    for (const out of [workspaceFile, join(dir, 'link.yaml'), join(dir, '.', 'site.yaml')]) {
      const r = await runCli(['render', workspaceFile, '--appliance', 'lvs', '--out', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toBe(`lbdesk: refused: --out ${out} is the workspace file itself; nothing written\n`);
      expect(readFileSync(workspaceFile, 'utf8')).toBe(before);
    }
    const missing = join(dir, 'nosuchdir', 'x.cfg');
    const r = await runCli(['render', workspaceFile, '--appliance', 'lvs', '--out', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').at(-2)).toBe(`lbdesk: cannot write ${missing}: no such folder`);
  });

  it('refuses by name what the driver cannot express: exit 1, nothing written', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lbdesk-render-')), 'haproxy.cfg');
    const r = await runCli(['render', RICH_PATH, '--appliance', 'haproxy-all', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(r.stderr).toContain('lbdesk: service dns-vip, service syslog-vip: HAProxy does not load-balance UDP\n');
    expect(r.stderr).toMatch(/^lbdesk: target set 2: HAProxy has no IPFE least-load/m);
    expect(r.stderr).toMatch(/^lbdesk: target set 3: HAProxy does not load-balance SCTP/m);
    expect(r.stderr).toContain('refused: nothing rendered for appliance haproxy-all (driver haproxy): 4 problems above');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a check value keepalived cannot write: the service named once, one problem, however many members', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lbdesk-render-')), 'quotes.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: quotes',
      'servers:', '  - { name: a, address: 192.0.2.10 }', '  - { name: b, address: 192.0.2.11 }', '  - { name: c, address: 192.0.2.12 }',
      'groups:', '  - name: web', '    members: [{ server: a, port: 80 }, { server: b, port: 80 }, { server: c, port: 80 }]',
      // Valid (900 bytes), but 2,400 once its spaces are percent-encoded: more than a keepalived line holds.
      `    healthCheck: { type: http, http: { path: "/${'x '.repeat(300)}" } }`,
      'services:', '  - { name: vip6, address: 192.0.2.100, port: 80, group: web }',
      'appliances:', '  - { name: lvs, host: 192.0.2.200, driver: keepalived }', '',
    ].join('\n'));
    const r = await runCli(['render', file, '--appliance', 'lvs']);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('lbdesk: ') && !l.startsWith('lbdesk: warning: '));
    expect(errors).toEqual([
      expect.stringMatching(/^lbdesk: service vip6: HTTP path "\/x%20x%20.{60,}…" cannot be written in keepalived\.conf \(it has a double quote, a brace, a control character or more than 900 bytes\)$/),
      'lbdesk: refused: nothing rendered for appliance lvs (driver keepalived): 1 problem above',
    ]);
  });

  it('an unknown appliance is a usage error listing the known ones (exit 2)', async () => {
    const r = await runCli(['render', RICH_PATH, '--appliance', 'edge']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lbdesk: unknown appliance "edge" (known: edge-haproxy, lvs, daemon, haproxy-all)\n');
  });

  it('a missing --appliance is a usage error (exit 2)', async () => {
    const r = await runCli(['render', RICH_PATH]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("required option '--appliance <name>' not specified");
  });

  it('an invalid workspace: each problem at file:line:col, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-render-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: bad\nservers:\n  - name: a\n    address: 192.0.2.300\n');
    const r = await runCli(['render', file, '--appliance', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.yaml:5:14: servers\[0\]\.address: /);
    expect(r.stdout).toBe('');
  });

  it('an unreadable workspace: exit 2', async () => {
    const r = await runCli(['render', '/nonexistent/workspace.yaml', '--appliance', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/nonexistent/workspace.yaml');
  });
});
