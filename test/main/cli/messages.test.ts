// The real `lbdesk` CLI: each expected failure is one plain line, said once, in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runCli } from '../../helpers/cli';
import { about, unprefixed } from '../../../main/cli/errors';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-cli-msg-'));
  mkdirSync(join(dir, 'home'));
  env = { HOME: join(dir, 'home'), LBDESK_DATA_DIR: join(dir, 'data'), SSH_AUTH_SOCK: '' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lbdesk messages', () => {
  it('a file with two YAML documents: said in words, at the second "---"', async () => {
    const file = join(dir, 'two.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: a\n---\nlbdesk: 1\nname: b\n');
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${file}:3:1: (yaml): the file holds more than one YAML document (a second "---" here)\n`);
  });

  it('auth agent without an agent: the appliance named once (confirm, pull, diff, push)', async () => {
    // Refused before any connection: the documentation address below is never dialled.
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: agent',
      'servers: [{ name: a, address: 192.0.2.10 }]',
      'groups: [{ name: web, members: [{ server: a, port: 80 }] }]',
      'services: [{ name: vip, address: 192.0.2.100, port: 80, group: web }]',
      'appliances: [{ name: lab-haproxy, host: 192.0.2.201, driver: haproxy, auth: agent }]', '',
    ].join('\n'));
    const ssh = ['--appliance', 'lab-haproxy', '--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'no-ssh-config')];
    writeFileSync(join(dir, 'no-ssh-config'), '');
    const said = 'lab-haproxy: auth is agent but no ssh-agent is available (SSH_AUTH_SOCK is not set)';
    const [confirm, pull, diff, push] = await Promise.all([
      runCli(['confirm', file, ...ssh], { env }),
      runCli(['pull', file, ...ssh], { env }),
      runCli(['diff', file, ...ssh], { env }),
      runCli(['push', file, ...ssh, '--no-verify'], { env }),
    ]);
    // confirm: not reached is 2, never "nothing pending" (1): a push there may still roll back.
    expect(confirm).toMatchObject({ code: 2, stderr: `lbdesk: ${said} (not confirmed: a pending push there still rolls back when its time is up)\n` });
    expect(pull).toMatchObject({ code: 1, stderr: `lbdesk: ${said}\n` });
    expect(diff).toMatchObject({ code: 2, stderr: `lbdesk: ${said}\n` });
    expect(push.code).toBe(1);
    expect(push.stdout).toBe(`lab-haproxy: refused: ${said.slice('lab-haproxy: '.length)}\n`);
    for (const r of [confirm, pull, diff, push]) expect(`${r.stdout}${r.stderr}`).not.toContain('lab-haproxy: lab-haproxy');
  });

  it('serve on a file that does not exist yet says where a new site is made', async () => {
    const r = await runCli(['serve', join(dir, 'new-site.yaml'), '--ui', '--ui-port', '0']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `lbdesk: cannot read ${join(dir, 'new-site.yaml')}: no such file (to start a new site: lbdesk demo, then New workspace… in the app)\n` });
  });

  it('check: nothing checkable exits 3 (UNKNOWN); --json still prints a document, with "error"', async () => {
    const invalid = join(dir, 'invalid.yaml');
    writeFileSync(invalid, 'lbdesk: 1\nname: bad\nservers:\n  - name: a\n    address: 192.0.2.300\n');
    const [missing, bad, group, plain] = await Promise.all([
      runCli(['check', join(dir, 'nope.yaml'), '--json']),
      runCli(['check', invalid, '--json']),
      runCli(['check', 'assets/demo/lab-site-a.yaml', '--group', 'nope', '--json']),
      runCli(['check', join(dir, 'nope.yaml')]),
    ]);
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stdout)).toEqual({ error: `cannot read ${join(dir, 'nope.yaml')}: no such file`, members: [] });
    expect(missing.stderr).toBe(`lbdesk: cannot read ${join(dir, 'nope.yaml')}: no such file\n`);
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toEqual({ error: `${invalid} is not a valid workspace (1 error)`, members: [] });
    expect(bad.stderr).toMatch(/invalid\.yaml:5:14: servers\[0\]\.address: /);
    expect(group.code).toBe(3);
    expect(JSON.parse(group.stdout)).toEqual({ error: 'unknown group "nope" (known: web, directory, resolvers, ts1)', members: [] });
    expect(plain).toMatchObject({ code: 3, stdout: '' });
  });

  it('diff that cannot connect, or on an invalid workspace, exits 2 (trouble, like diff(1)); so does confirm', async () => {
    // A loopback port nothing listens on (bound, then closed, by the test).
    const { createServer } = await import('node:net');
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.9.205', () => r()));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const file = join(dir, 'closed.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: closed',
      'servers: [{ name: a, address: 192.0.2.10 }]',
      'groups: [{ name: web, members: [{ server: a, port: 80 }] }]',
      'services: [{ name: vip, address: 192.0.2.100, port: 80, group: web }]',
      `appliances: [{ name: lb, host: 127.0.9.205, port: ${port}, driver: haproxy, auth: key, keyFile: ${join(dir, 'no-key')} }]`, '',
    ].join('\n'));
    writeFileSync(join(dir, 'empty-ssh-config'), '');
    const r = await runCli(['diff', file, '--appliance', 'lb', '--known-hosts', join(dir, 'kh'), '--ssh-config', join(dir, 'empty-ssh-config')], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^lbdesk: lb: .*(refused|ECONNREFUSED)/);
    const confirm = await runCli(['confirm', file, '--appliance', 'lb', '--known-hosts', join(dir, 'kh'), '--ssh-config', join(dir, 'empty-ssh-config')], { env });
    expect(confirm.code).toBe(2);
    expect(confirm.stderr).toMatch(/^lbdesk: lb: .*(refused|ECONNREFUSED).*\(not confirmed: a pending push there still rolls back when its time is up\)\n$/);
    // confirm --all passes over a vendor CLI appliance (nothing to confirm there) and still
    // tries the others, instead of refusing them all.
    const mixed = join(dir, 'mixed.yaml');
    writeFileSync(mixed, readFileSync(file, 'utf8').replace('appliances: [', `appliances: [{ name: adx, host: 192.0.2.250, driver: cli, template: ${join(ROOT, 'assets/templates/adx-example.liquid')} }, `));
    const all = await runCli(['confirm', mixed, '--all', '--known-hosts', join(dir, 'kh'), '--ssh-config', join(dir, 'empty-ssh-config')], { env });
    expect(all.code).toBe(2);
    expect(all.stderr).toContain('lbdesk: adx: skipped: commit-confirmed is not supported for driver cli appliances (a vendor CLI has no rollback timer)\n');
    expect(all.stderr).toMatch(/lbdesk: lb: .*(refused|ECONNREFUSED).*\(not confirmed/);
    // Invalid: 2, not 1 ("changes"), which a script would take as a reason to push.
    const invalid = join(dir, 'invalid-diff.yaml');
    writeFileSync(invalid, '');
    const bad = await runCli(['diff', invalid, '--appliance', 'lb'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n').at(-1)).toBe(`lbdesk: ${invalid} is not a valid workspace (1 error)`);
  });

  it('about() names the subject once', () => {
    expect(about('lb1', 'lb1: no route')).toBe('lb1: no route');
    expect(about('lb1', 'no route')).toBe('lb1: no route');
    expect(about('lb1', 'lb10: no route')).toBe('lb1: lb10: no route');
    expect(unprefixed('lb1', 'lb1: lb1: x')).toBe('x');
  });
});
