// The real `lbdesk push` / `lbdesk diff` for a `driver: cli` appliance: dispatched to the vendor
// CLI session (not the SFTP file push), against the in-process fake vendor appliance.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSchema } from '../../../../../shared/model/schema';
import { renderForAppliance } from '../../../../../main/services/drivers';
import { commandsOf, splitSections } from '../../../../../main/services/drivers/template/sections';
import { cliTarget, pushCli } from '../../../../../main/services/sync/commands';
import { runCli } from '../../../../helpers/cli';
import { sshFor } from '../../../../helpers/command-boxes/connect';
import { startFakeAppliance, type FakeAppliance } from '../../../../helpers/command-boxes/fake-appliance';

const SITE = resolve(__dirname, '../../../../fixtures/template/site.yaml');
const TEMPLATE = resolve(__dirname, '../../../../../assets/templates/adx-example.liquid');

const running: FakeAppliance[] = [];
afterEach(async () => {
  for (const f of running.splice(0)) await f.stop();
});

/** A workspace file with one ADX-style appliance pointing at the fake, and the CLI flags for it. */
async function setup(host: string) {
  const fake = await startFakeAppliance({ host });
  running.push(fake);
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-vendor-cli-'));
  const doc = parse(readFileSync(SITE, 'utf8')) as Record<string, unknown>;
  doc.appliances = [{
    name: 'adx1', host: fake.host, port: fake.port, user: 'admin', auth: 'key', keyFile: fake.keyFile,
    driver: 'cli', template: TEMPLATE, include: ['web-vip', 'ldap-vip', 'app-vip', 'plain-vip', 'dns-vip'],
    cli: { mode: 'shell', timeout: '3s' },
  }];
  const workspaceFile = join(dir, 'site.yaml');
  writeFileSync(workspaceFile, stringify(doc));
  const workspace = workspaceSchema.parse(doc);
  const appliance = workspace.appliances[0]!;
  const text = renderForAppliance(workspace, appliance, { workspacePath: workspaceFile }).text;
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, '');
  writeFileSync(join(dir, 'ssh_config'), '');
  const args = ['--appliance', 'adx1', '--known-hosts', knownHosts, '--accept-new', '--ssh-config', join(dir, 'ssh_config')];
  const env = { LBDESK_DATA_DIR: join(dir, 'data') };
  return { fake, dir, workspaceFile, text, knownHosts, args, env, appliance };
}

describe('lbdesk push / diff for driver cli appliances', () => {
  it('push sends the rendered commands in the CLI session and exits 0; --confirm-within is refused', async () => {
    const { fake, workspaceFile, text, knownHosts, args, env } = await setup('127.0.9.50');

    const refused = await runCli(['push', workspaceFile, ...args, '--confirm-within', '30s'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/\nlbdesk: adx1: commit-confirmed is not supported for driver cli appliances \(a vendor CLI has no rollback timer\)\n$/);
    expect(fake.received).toEqual([]);

    const r = await runCli(['push', workspaceFile, ...args], { env });
    expect(r.stderr).not.toMatch(/configPath|reloadCommand/);
    expect(r.stdout).toMatch(/^adx1: applied: applied: \d+ commands accepted by the CLI\n$/);
    expect(r.code).toBe(0);
    const s = splitSections(text);
    const sent = [...commandsOf(s.lines.prologue), ...commandsOf(s.lines.config), ...commandsOf(s.lines.epilogue)].map((l) => l.text);
    expect(sent.length).toBeGreaterThan(10);
    expect(fake.received).toEqual(sent);
    expect(fake.execs).toEqual([]);                                     // no SFTP, no exec: the CLI only
    expect(r.stderr).toContain('adx1: accepted new host key');
    expect(readFileSync(knownHosts, 'utf8')).toContain(`ssh-ed25519 ${fake.knownHostsLine.split(' ')[2]}`);
  });

  it('diff exits 1 with the missing lines, and 0 with no output once the appliance runs them', async () => {
    const { fake, workspaceFile, text, args, env, appliance } = await setup('127.0.9.51');

    const before = await runCli(['diff', workspaceFile, ...args], { env });
    expect(before.stderr).not.toMatch(/configPath|reloadCommand/);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('+server real web1 192.0.2.21');
    expect(fake.received).toEqual(['show running-config']);            // diff only reads

    const ssh = sshFor(fake, 'adx1');
    const target = { ...cliTarget(appliance, workspaceFile), endpoint: ssh.endpoint };
    expect((await pushCli(target, text, { ...ssh.options, dataDir: env.LBDESK_DATA_DIR })).outcome).toBe('applied');

    const after = await runCli(['diff', workspaceFile, ...args], { env });
    expect(after.stderr).not.toMatch(/error|configPath|reloadCommand/i);
    expect(after).toMatchObject({ code: 0, stdout: '' });
  });
});
