// driver pingdirectory end to end, over a real sshd to the test proxy host (its strict
// bin/dsconfig and bin/config-diff): the proxy's configuration as config-diff prints it is
// imported, changed in the workspace (a server removed, a threshold changed), planned with the
// inverse of every step, pushed as one dsconfig batch, and rolled back on a refused command.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../../../shared/model/validate';
import type { Workspace } from '../../../../../shared/model/schema';
import { SshConfigSet } from '../../../../../main/services/ssh';
import { MemorySecretStore } from '../../../../../main/services/secrets/memory';
import { openAppliance } from '../../../../../main/services/sync/appliance';
import { listHistory } from '../../../../../main/services/sync/history';
import type { CommandPushReport } from '../../../../../main/services/sync/commands/steps';
import type { PushOptions } from '../../../../../main/services/sync/push';
import { importPingDirectory } from '../../../../../main/services/drivers/pingdirectory/import';
import { planPingDirectory } from '../../../../../main/services/drivers/pingdirectory/plan';
import { renderPingDirectory } from '../../../../../main/services/drivers/pingdirectory/render';
import { objectsOf, parseBatch } from '../../../../../main/services/drivers/pingdirectory/batch';
import { parseDsconfigOutput } from '../../../../../main/services/drivers/pingdirectory/remote';
import { noSshd } from '../../../../helpers/sshd';
import { skipBecause } from '../../../../helpers/skip';
import { runCli } from '../../../../helpers/cli';
import { startPingDirectoryHost, type PingDirectoryHost } from '../../../../helpers/command-boxes/pingdirectory-host';

const TIER = resolve(__dirname, '../../../../fixtures/pingdirectory/tier.yaml');
const SECRET = 'pd-admin';

function workspaceOf(text: string, file: string): Workspace {
  const r = parseWorkspace(text, file);
  if (!r.workspace) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return r.workspace;
}

/** Objects as `kind name -> {type, props}`, for comparing two configurations whatever their order. */
const objects = (text: string) => Object.fromEntries([...objectsOf(parseBatch(text)).values()].map((o) => [`${o.kind} ${o.name}`, { type: o.type, props: Object.fromEntries(o.props) }]));

describe('dsconfig batch output, read line by line', () => {
  // A batch run as Ping's "About the dsconfig tool" page prints it (PingAuthorize 11.1 guide).
  const published = [
    '', "Batch file 'example.dsconfig' contains 2 commands.", '', 'Pre-validating with the local server ..... Done', '',
    'Executing: create-external-server -n --server-name "{pingauthorize}  PAP" --type policy --set base-url:http://localhost:4200 --set "branch:Default Policies"', '',
    'Arguments from tool properties file:  --useSSL  --hostname localhost --port 8636 --bindDN cn=root --bindPassword * --trustAll', '',
    'The Policy External Server was created successfully.', '',
    'Executing: set-policy-decision-service-prop -n --set pdp-mode:external --set "policy-server:{pingauthorize}  PAP" --set',
    'decision-response-view:request --set decision-response-view:decision-tree', '',
    'The Policy Decision Service was modified successfully.', '',
  ].join('\n');
  const two = ['dsconfig create-external-server …', 'dsconfig set-policy-decision-service-prop …'];

  it('exit 0: every command taken', () => {
    expect(parseDsconfigOutput(published, 0, two)).toEqual({ taken: 2 });
  });

  it('a refused command: the ones echoed before it taken, it named, the words after its echo', () => {
    const refused = published.replace(/The Policy Decision Service was modified successfully\.\n$/, 'The value "x" is not valid\n');
    expect(parseDsconfigOutput(refused, 1, two)).toEqual({ taken: 1, failed: { index: 1, message: 'The value "x" is not valid' } });
  });

  it('refused before any command ran (a bind, a pre-validation): no command named, nothing taken', () => {
    expect(parseDsconfigOutput('The simple bind attempt failed: invalid credentials (result code 49)\n', 1, two)).toEqual({ taken: 0, failed: { message: 'The simple bind attempt failed: invalid credentials (result code 49)' } });
  });
});

describe.skipIf(skipBecause(noSshd, 'the test proxy host\'s dsconfig'))('the test proxy host\'s dsconfig is strict, as the product is', () => {
  let host: PingDirectoryHost;
  beforeAll(async () => { host = await startPingDirectoryHost(); }, 60_000);
  afterAll(async () => { await host?.stop(); });

  it.each([
    ['an unknown property', 'dsconfig create-external-server --server-name a:389 --type ldap --set server-host-name:192.0.2.1 --set weight:3', "The property 'weight' is not a recognized property of the LDAP External Server"],
    ['an unknown type', 'dsconfig create-load-balancing-algorithm --algorithm-name a --type round-robin --set enabled:true', "The value 'round-robin' is not a valid Load-Balancing Algorithm type: failover, fewest-operations, health-weighted, single-server"],
    ['an unknown subcommand', 'dsconfig create-virtual-server --server-name a', "The provided subcommand 'create-virtual-server' is not a valid dsconfig subcommand"],
    ['a bad value', 'dsconfig create-ldap-health-check --check-name c --type search --set enabled:true --set scope:sub', "The value 'sub' is not a valid value for the Search LDAP Health Check property 'scope'"],
    ['a single-valued property added to', 'dsconfig create-location --location-name l\ndsconfig set-location-prop --location-name l --add description:x', "The property 'description' of the Location is single-valued: use --set"],
  ])('refuses %s and applies nothing of the batch', (_what, batch, words) => {
    const before = host.configDiff();
    expect(() => host.seed(`dsconfig create-location --location-name first\n${batch}\n`)).toThrow(words);
    expect(host.configDiff()).toBe(before);
  });

  it('refuses a reference to an object that does not exist at apply time, with the commands before it applied', () => {
    expect(() => host.seed('dsconfig create-location --location-name east\ndsconfig create-external-server --server-name b:389 --type ldap --set server-host-name:192.0.2.2 --set health-check:nope\n'))
      .toThrow("The value 'nope' is not a valid value for the property 'health-check': the LDAP Health Check 'nope' does not exist");
    expect(objects(host.configDiff())).toHaveProperty(['location east']);
  });
});

describe.skipIf(skipBecause(noSshd, 'pingdirectory push'))('driver pingdirectory: push to the test proxy host over SSH', () => {
  let host: PingDirectoryHost;
  let dir: string;
  let original: string;
  let seeded: string;
  let file: string;

  beforeAll(async () => {
    host = await startPingDirectoryHost();
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-pdpush-'));
    // The proxy as a site runs it: the tier lbdesk's lab proved, applied by the proxy's own dsconfig.
    const tier = workspaceOf(readFileSync(TIER, 'utf8'), TIER);
    host.seed(renderPingDirectory(tier, tier.appliances[0]!).text);
    original = host.configDiff();
    seeded = host.snapshot();
  }, 60_000);
  afterAll(async () => { await host?.stop(); });
  beforeEach(() => { host.restore(seeded); host.refuse(undefined); });

  const opts = (extra: Partial<PushOptions> = {}): PushOptions => {
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `${host.sshd.knownHostsLine}\n`);
    const secrets = new MemorySecretStore();
    void secrets.set(`named/${SECRET}`, host.password);
    return { knownHostsFile: knownHosts, sshConfig: SshConfigSet.empty(), dataDir: join(dir, 'data'), secrets, ...extra };
  };

  /** The workspace imported from the proxy's config-diff, with a service over the group and the appliance. */
  function imported(change?: (w: Record<string, unknown>) => void): { workspace: Workspace; file: string } {
    const r = importPingDirectory(original, 'config-diff.out');
    const w = structuredClone(r.workspace) as unknown as Record<string, unknown>;
    w.services = [{ name: 'ldap-vip', address: '192.0.2.10', port: 389, group: 'directory', algorithm: 'health-weighted' }];
    change?.(w);
    const text = `${stringify(w)}appliances:\n${host.applianceLines('proxy1', SECRET).join('\n')}\n`;
    file = join(dir, 'ws.yaml');
    writeFileSync(file, text);
    return { workspace: workspaceOf(text, file), file };
  }

  /** ds2 removed, and degraded above 2 s instead of 1 s. */
  const changed = () => imported((w) => {
    const group = (w.groups as { members: { server: string }[]; healthCheck: Record<string, unknown> }[])[0]!;
    group.members = group.members.filter((m) => m.server !== 'ds2');
    group.healthCheck.degradedAbove = '2s';
    w.servers = (w.servers as { name: string }[]).filter((s) => s.name !== 'ds2');
  });

  it('imports config-diff, plans nothing for the same tier, and pushes nothing', async () => {
    const { workspace } = imported();
    expect(planPingDirectory(workspace, workspace.appliances[0]!, original).steps).toEqual([]);
    const report = await openAppliance(workspace, workspace.appliances[0]!, file).push('', opts()) as CommandPushReport;
    expect([report.outcome, report.reason]).toEqual(['unchanged', 'the configuration already is what the workspace says: nothing sent']);
    expect(host.configDiff()).toBe(original);
  }, 60_000);

  it('a server removed and a threshold changed: the plan and its inverse, pushed, only those changes on the proxy', async () => {
    const { workspace } = changed();
    const appliance = workspace.appliances[0]!;
    const plan = planPingDirectory(workspace, appliance, original);
    expect(plan.errors).toEqual([]);
    expect(plan.steps.map((s) => s.what)).toEqual([
      'ldap-health-check directory-search: minimum-local-degraded-response-time 1 s -> 2 s',
      'load-balancing-algorithm ldap-vip: backend-server ds1:1389,ds2:1389 -> ds1:1389',
      'delete external server ds2:1389',
    ]);
    expect(plan.steps.map((s) => s.inverse[0])).toEqual([
      'dsconfig set-ldap-health-check-prop --check-name directory-search --set "minimum-local-degraded-response-time:1 s"',
      'dsconfig set-load-balancing-algorithm-prop --algorithm-name ldap-vip --set backend-server:ds1:1389 --set backend-server:ds2:1389',
      expect.stringMatching(/^dsconfig create-external-server --server-name ds2:1389 --type ldap --set server-host-name:192.0.2.22 --set server-port:1389/),
    ]);
    const progress: string[] = [];
    const report = await openAppliance(workspace, appliance, file).push('', opts({ onProgress: (e) => progress.push(`${e.step}:${e.status}`) })) as CommandPushReport;
    expect([report.outcome, report.reason]).toEqual(['applied', '3 changes in 3 commands, applied by bin/dsconfig --no-prompt --batch-file']);
    expect(progress).toEqual(['connect:start', 'connect:ok', 'inspect:start', 'inspect:ok', 'reload:start', 'reload:ok']);
    const before = objects(original);
    const after = objects(host.configDiff());
    const differs = Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    expect(differs).toEqual(['ldap-health-check directory-search', 'external-server ds2:1389', 'load-balancing-algorithm ldap-vip']);
    expect(after['external-server ds2:1389']).toBeUndefined();
    expect(after['ldap-health-check directory-search']!.props['minimum-local-degraded-response-time']).toEqual(['2 s']);
    expect(after['load-balancing-algorithm ldap-vip']!.props['backend-server']).toEqual(['ds1:1389']);
    // History records it as other pushes: what the proxy's configuration reads after.
    const history = await listHistory(join(dir, 'data'), 'proxy1');
    expect(history.at(-1)).toMatchObject({ kind: 'push', outcome: 'applied', configPath: 'bin/dsconfig --no-prompt --batch-file (config-diff)' });
    expect(JSON.stringify(report)).not.toContain(host.password);

    // Pushing the imported workspace again brings every object back as it was.
    const back = imported();
    const again = await openAppliance(back.workspace, back.workspace.appliances[0]!, back.file).push('', opts()) as CommandPushReport;
    expect(again.outcome).toBe('applied');
    expect(objects(host.configDiff())).toEqual(before);
  }, 90_000);

  it('a command the proxy refuses stops the push, names it, and the inverse restores the configuration exactly', async () => {
    host.refuse('delete-external-server');
    const { workspace } = changed();
    const report = await openAppliance(workspace, workspace.appliances[0]!, file).push('', opts()) as CommandPushReport;
    expect(report.outcome).toBe('rolled-back');
    expect(report.reason).toMatch(/^the proxy refused command 3 "dsconfig delete-external-server --server-name ds2:1389": The External Server 'ds2:1389' could not be deleted: the server is unwilling to perform the change; the inverse of the 2 steps taken \(2 commands\) was applied: the configuration is the one before the push$/);
    expect(report.cli.sent).toBe(2);
    expect(report.cli.rollback).toEqual({ sent: 2, total: 2, errors: [] });
    expect(host.configDiff()).toBe(original);
    // The proxy's audit log: the two commands, then their inverses, newest first.
    expect(host.applied().slice(-4).map((c) => c.split(' ')[0])).toEqual(['set-ldap-health-check-prop', 'set-load-balancing-algorithm-prop', 'set-load-balancing-algorithm-prop', 'set-ldap-health-check-prop']);
    expect((await listHistory(join(dir, 'data'), 'proxy1')).at(-1)).toMatchObject({ kind: 'push', outcome: 'rolled-back' });
  }, 90_000);

  it('a wrong bind password: dsconfig applies nothing, and the push says why', async () => {
    const { workspace } = changed();
    const o = opts();
    await o.secrets!.set(`named/${SECRET}`, 'not-the-password');
    const report = await openAppliance(workspace, workspace.appliances[0]!, file).push('', o) as CommandPushReport;
    expect(report.outcome).toBe('rolled-back');
    expect(report.reason).toBe('the proxy refused the batch: The simple bind attempt failed: invalid credentials (result code 49); the configuration read again is the one before the push: nothing was applied, nothing to undo');
    expect(host.configDiff()).toBe(original);
  }, 60_000);

  it('from the command line: diff shows the commands, push --dry-run sends nothing, push applies it (exit 0), again is unchanged', async () => {
    changed();
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `${host.sshd.knownHostsLine}\n`);
    const env = { LBDESK_SECRET_PD_ADMIN: host.password, LBDESK_KEYRING: 'off', LBDESK_DATA_DIR: join(dir, 'cli-data') };
    const args = [file, '--appliance', 'proxy1', '--known-hosts', knownHosts];
    const diff = await runCli(['diff', ...args], { env });
    // As for the other command-driven boxes: the configuration, then the commands a push appends to it.
    expect(diff.stdout.split('\n').filter((l) => /^[+-][^+-]/.test(l))).toEqual([
      '+dsconfig set-ldap-health-check-prop --check-name directory-search --set "minimum-local-degraded-response-time:2 s"',
      '+dsconfig set-load-balancing-algorithm-prop --algorithm-name ldap-vip --set backend-server:ds1:1389',
      '+dsconfig delete-external-server --server-name ds2:1389',
    ]);
    const dry = await runCli(['push', ...args, '--dry-run'], { env });
    expect([dry.code, dry.stdout.trim()]).toEqual([0, expect.stringMatching(/^proxy1: would-apply: dry run: 3 commands would be sent \(ldap-health-check directory-search: minimum-local-degraded-response-time 1 s -> 2 s; /)]);
    expect(host.configDiff()).toBe(original);
    const push = await runCli(['push', ...args], { env });
    expect([push.code, push.stdout.trim()]).toEqual([0, 'proxy1: applied: 3 changes in 3 commands, applied by bin/dsconfig --no-prompt --batch-file']);
    expect(push.stdout + push.stderr).not.toContain(host.password);
    const again = await runCli(['push', ...args], { env });
    expect([again.code, again.stdout.trim()]).toEqual([0, 'proxy1: unchanged: the configuration already is what the workspace says: nothing sent']);
  }, 120_000);

  it('two pushes at once to one proxy: the second is refused before it logs in, the first applies', async () => {
    const { workspace } = changed();
    const link = openAppliance(workspace, workspace.appliances[0]!, file);
    const deletes = () => host.applied().filter((c) => c.startsWith('delete-external-server')).length;
    const before = deletes();
    const [a, b] = await Promise.all([link.push('', opts()), link.push('', opts())]) as CommandPushReport[];
    expect(a!.outcome).toBe('applied');
    expect([b!.outcome, b!.reason]).toEqual(['refused', `another push to root@${host.sshd.host}:${host.sshd.port}:${host.root} is running in this lbdesk`]);
    expect(deletes() - before).toBe(1);
  }, 60_000);

  it('no bind password in the secret store: refused before anything is sent', async () => {
    const { workspace } = changed();
    const report = await openAppliance(workspace, workspace.appliances[0]!, file).push('', opts({ secrets: new MemorySecretStore() })) as CommandPushReport;
    expect([report.outcome, report.reason]).toEqual(['refused', 'appliance proxy1: the bind password secret "pd-admin" (dsconfig.bindSecret) is not in the secret store']);
    expect(host.configDiff()).toBe(original);
  }, 60_000);
});
