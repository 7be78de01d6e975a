// The real `lbdesk` CLI (push, diff, pull, confirm) against a real sshd, exit codes as cli.md says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema } from '../../../../shared/model/schema';
import { renderForAppliance } from '../../../../main/services/drivers';
import { runCli, startCli } from '../../../helpers/cli';
import { haproxyApplianceLines, haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping sync CLI tests: /usr/sbin/sshd is not installed');

// Every step spawns the CLI (a second or more each on a busy machine).
describe.skipIf(skipBecause(noSshd, 'lbdesk push / diff / pull / confirm'))('lbdesk push / diff / pull / confirm', { timeout: 180_000 }, () => {
  let sshd: Sshd;
  let dir: string;
  let vip: Server;
  let vipPort: number;
  let workspaceFile: string;
  let live: string;
  let knownHosts: string;
  let env: NodeJS.ProcessEnv;
  const ssh = () => ['--known-hosts', knownHosts, '--ssh-config', join(dir, 'ssh_config')];

  function workspace(memberPort: number): string {
    return [
      'lbdesk: 1',
      'name: cli-sync',
      'servers:',
      '  - { name: web1, address: 127.0.8.21 }',
      'groups:',
      `  - { name: web, members: [{ server: web1, port: ${memberPort} }] }`,
      'services:',
      `  - { name: web-vip, address: 127.0.8.20, port: ${vipPort}, group: web }`,
      'appliances:',
      ...haproxyApplianceLines(sshd, 'lab', live, { validate: `${join(dir, 'validate.sh')} {file}`, reload: join(dir, 'reload.sh') }),
      '',
    ].join('\n');
  }
  const reloads = () => (existsSync(join(dir, 'reloads')) ? readFileSync(join(dir, 'reloads'), 'utf8').split('\n').filter(Boolean).length : 0);
  const cli = (args: string[]) => runCli(args, { env, timeoutMs: 90_000 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-cli-sync-'));
    sshd = await startSshd({ host: '127.0.8.11' });
    vip = createServer((s) => s.end());
    await new Promise<void>((r) => vip.listen(0, '127.0.8.20', () => r()));
    vipPort = (vip.address() as { port: number }).port;
    live = join(dir, 'haproxy.cfg');
    knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, '');
    writeFileSync(join(dir, 'ssh_config'), '');
    // A real validator: the candidate must look like an HAProxy config with our VIP, and the
    // test can make it fail on demand.
    writeFileSync(join(dir, 'validate.sh'), `#!/bin/sh\n[ ! -e '${join(dir, 'fail-validate')}' ] || { echo "config rejected by policy" >&2; exit 2; }\ngrep -q '^frontend' "$1" && grep -q '127.0.8.20:${vipPort}' "$1"\n`);
    // The reload fails for one particular config (member port 8083), so restoring the previous one works.
    writeFileSync(join(dir, 'reload.sh'), `#!/bin/sh\necho reload >> '${join(dir, 'reloads')}'\n! grep -q ':8083' '${live}'\n`);
    chmodSync(join(dir, 'validate.sh'), 0o755);
    chmodSync(join(dir, 'reload.sh'), 0o755);
    workspaceFile = join(dir, 'site.yaml');
    writeFileSync(workspaceFile, workspace(8081));
    env = { LBDESK_DATA_DIR: join(dir, 'data') };
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((r) => (vip ? vip.close(() => r()) : r()));
  });

  it('refuses an unknown host key without --accept-new, then pushes what render prints', async () => {
    const refused = await cli(['push', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/lab: refused: unknown host key .*SHA256:\S+.*--accept-new/);
    expect(readFileSync(knownHosts, 'utf8')).toBe('');
    expect(existsSync(live)).toBe(false);

    const pushed = await cli(['push', workspaceFile, '--appliance', 'lab', '--accept-new', ...ssh()]);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toMatch(/accepted new host key for 127\.0\.8\.11:\d+: ssh-ed25519 SHA256:/);
    expect(pushed.stderr).toMatch(/lab: upload ok/);
    expect(pushed.stdout).toMatch(/^lab: applied: applied and reloaded, VIPs answer$/m);
    const site = workspaceSchema.parse(parse(readFileSync(workspaceFile, 'utf8')));
    expect(readFileSync(live, 'utf8')).toBe(renderForAppliance(site, site.appliances[0]!, { workspacePath: workspaceFile }).text);
    expect(reloads()).toBe(1);
  });

  it('push ends as soon as its result is printed (a pending 5 s timer kept it alive after)', async () => {
    const child = startCli(['push', workspaceFile, '--appliance', 'lab', ...ssh()], { env });
    let out = '';
    let resultAt = 0;
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (!resultAt && /^lab: /m.test(out)) resultAt = Date.now();
    });
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code, out).toBe(0);
    expect(resultAt).toBeGreaterThan(0);
    // Teardown only: the lock's timer must not hold the process (it would for 5 s).
    expect(Date.now() - resultAt).toBeLessThan(3000);
  });

  it('diff exits 0 without changes and 1 with a unified diff; --dry-run changes nothing', async () => {
    const same = await cli(['diff', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe('');
    writeFileSync(workspaceFile, workspace(8082));
    const changed = await cli(['diff', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(`--- a${live}`);
    expect(changed.stdout).toMatch(/^-.*127\.0\.8\.21:8081/m);
    expect(changed.stdout).toMatch(/^\+.*127\.0\.8\.21:8082/m);
    const before = readFileSync(live, 'utf8');
    const dry = await cli(['push', workspaceFile, '--appliance', 'lab', '--dry-run', ...ssh()]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/lab: would-apply/);
    expect(readFileSync(live, 'utf8')).toBe(before);
    expect(reloads()).toBe(1);
  });

  it('exit 1 when validation refuses, 3 when the reload fails and the backup is restored', async () => {
    const before = readFileSync(live, 'utf8');
    writeFileSync(join(dir, 'fail-validate'), '');
    const invalid = await cli(['push', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(/lab: refused: validation failed \(exit 2\): config rejected by policy/);
    rmSync(join(dir, 'fail-validate'));
    writeFileSync(workspaceFile, workspace(8083));
    const rolled = await cli(['push', workspaceFile, '--appliance', 'lab', ...ssh()]);
    writeFileSync(workspaceFile, workspace(8082));
    expect(rolled.code).toBe(3);
    expect(rolled.stdout).toMatch(/lab: rolled-back: reload failed/);
    expect(readFileSync(live, 'utf8')).toBe(before);
  });

  it('commit-confirmed: push arms, a second push is refused, confirm exits 0 then 1', async () => {
    const pushed = await cli(['push', workspaceFile, '--appliance', 'lab', '--confirm-within', '1m', '--json', ...ssh()]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const report = JSON.parse(pushed.stdout) as { reports: { outcome: string; pending?: { deadline: number } }[] };
    expect(report.reports[0]!.outcome).toBe('applied');
    expect(report.reports[0]!.pending!.deadline).toBeGreaterThan(Date.now() + 30_000);
    const second = await cli(['push', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/pending until/);
    const confirmed = await cli(['confirm', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toMatch(/lab: confirmed/);
    const nothing = await cli(['confirm', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toMatch(/nothing is pending/);
    expect(readFileSync(live, 'utf8')).toMatch(/127\.0\.8\.21:8082/);
  });

  it('pull prints the running config byte for byte; history lists versions and push --restore brings one back', async () => {
    const pulled = await cli(['pull', workspaceFile, '--appliance', 'lab', ...ssh()]);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe(readFileSync(live, 'utf8'));
    const out = join(dir, 'pulled.cfg');
    expect((await cli(['pull', workspaceFile, '--appliance', 'lab', '--out', out, ...ssh()])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(live, 'utf8'));
    // Never over the workspace it read (render refuses the same): exit 2, before connecting.
    const fileBefore = readFileSync(workspaceFile, 'utf8');
    const over = await cli(['pull', workspaceFile, '--appliance', 'lab', '--out', workspaceFile, ...ssh()]);
    expect(over).toMatchObject({ code: 2, stdout: '', stderr: `lbdesk: refused: --out ${workspaceFile} is the workspace file itself; nothing written\n` });
    expect(readFileSync(workspaceFile, 'utf8')).toBe(fileBefore);

    const history = await cli(['pull', workspaceFile, '--appliance', 'lab', '--history']);
    const lines = history.stdout.trim().split('\n');
    const first = lines.find((l) => l.includes('push:applied'))!;
    expect(first).toBeDefined();
    const id = first.split(/\s+/)[0]!;
    const version = await cli(['pull', workspaceFile, '--appliance', 'lab', '--show', id]);
    expect(version.stdout).toMatch(/127\.0\.8\.21:8081/);
    const restored = await cli(['push', workspaceFile, '--appliance', 'lab', '--restore', id, ...ssh()]);
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    expect(readFileSync(live, 'utf8')).toBe(version.stdout);
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['push', workspaceFile, '--appliance', 'nope', ...ssh()])).code).toBe(2);
    const bad = await cli(['push', workspaceFile, '--appliance', 'lab', '--confirm-within', 'soon', ...ssh()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--confirm-within "soon" is not a duration/);
  });
});
