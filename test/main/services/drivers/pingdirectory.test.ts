// driver pingdirectory offline: the LDAP tier as a dsconfig batch file (properties as the
// configuration reference names them, the seed's hysteresis as the Search LDAP Health Check's
// thresholds), read back by the batch parser into the same objects.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planPingDirectory } from '../../../../main/services/drivers/pingdirectory/plan';
import { renderPingDirectory } from '../../../../main/services/drivers/pingdirectory/render';
import { objectsOf, parseBatch } from '../../../../main/services/drivers/pingdirectory/batch';
import { importPingDirectory } from '../../../../main/services/drivers/pingdirectory/import';
import { runCli } from '../../../helpers/cli';
import { parseWorkspaceText } from '../../../helpers/drivers';

const TIER = resolve(__dirname, '../../../fixtures/pingdirectory/tier.yaml');
const tier = () => parseWorkspaceText(readFileSync(TIER, 'utf8'), TIER);

describe('driver pingdirectory: render', () => {
  it('writes the check, servers, algorithm, request processor and subtree view, each property read back', () => {
    const w = tier();
    const r = renderPingDirectory(w, w.appliances[0]!);
    expect(r.errors).toEqual([]);
    const objs = objectsOf(parseBatch(r.text));
    const check = objs.get('ldap-health-check\ndirectory-search')!;
    expect(check.type).toBe('search');
    expect(Object.fromEntries(check.props)).toEqual({
      enabled: ['true'], 'base-dn': ['dc=example,dc=com'], scope: ['base-object'], filter: ['(objectClass=*)'],
      'maximum-local-available-response-time': ['500 ms'], 'minimum-local-degraded-response-time': ['1 s'],
      'maximum-local-degraded-response-time': ['3 s'], 'minimum-local-unavailable-response-time': ['3 s'],
    });
    const ds1 = objs.get('external-server\nds1:1389')!;
    expect(ds1.type).toBe('ldap');
    expect(Object.fromEntries(ds1.props)).toMatchObject({ 'server-host-name': ['192.0.2.21'], 'server-port': ['1389'], 'health-check': ['directory-search'], 'health-check-frequency': ['5 s'] });
    const algo = objs.get('load-balancing-algorithm\nldap-vip')!;
    expect(algo.type).toBe('health-weighted');
    expect(algo.props.get('backend-server')).toEqual(['ds1:1389', 'ds2:1389']);
    expect(objs.get('request-processor\nldap-vip')!.props.get('load-balancing-algorithm')).toEqual(['ldap-vip']);
    expect(objs.get('subtree-view\nldap-vip')!.props.get('request-processor')).toEqual(['ldap-vip']);
    expect(objs.get('client-connection-policy\ndefault')!.props.get('subtree-view')).toEqual(['ldap-vip']);
    expect(r.warnings.map((x) => x.message).join('\n')).toMatch(/ds3|disabled/);
  });

  it('is deterministic, one option per continuation line as the docs print them', () => {
    const w = tier();
    const a = renderPingDirectory(w, w.appliances[0]!).text;
    expect(renderPingDirectory(tier(), tier().appliances[0]!).text).toBe(a);
    expect(a).toContain('dsconfig create-external-server \\\n    --server-name ds1:1389 \\\n    --type ldap \\\n');
  });

  it('each approximation is a warning; source-hash is refused; non-LDAP groups are skipped', () => {
    const w = tier();
    w.services[0]!.algorithm = 'round-robin';
    w.groups[0]!.healthCheck.ldap!.expect = { 'objectClass': 'top' };
    let r = renderPingDirectory(w, w.appliances[0]!);
    expect(r.errors).toEqual([]);
    expect(objectsOf(parseBatch(r.text)).get('load-balancing-algorithm\nldap-vip')!.type).toBe('fewest-operations');
    expect(objectsOf(parseBatch(r.text)).get('ldap-health-check\ndirectory-search')!.props.get('unavailable-filter')).toEqual(['(!(objectClass=top))']);
    expect(r.warnings.map((x) => x.message).join('\n')).toMatch(/round-robin[\s\S]*unavailable-filter/);
    w.services[0]!.algorithm = 'source-hash';
    r = renderPingDirectory(w, w.appliances[0]!);
    expect(r.errors.map((e) => e.message)).toEqual(['algorithm source-hash: no PingDirectoryProxy load-balancing algorithm hashes the client address']);
    w.groups[0]!.healthCheck.type = 'tcp';
    r = renderPingDirectory(w, w.appliances[0]!);
    expect(r.errors).toEqual([]);
    expect(r.text).not.toContain('create-external-server');
  });
});

const FIXTURES = resolve(__dirname, '../../../fixtures/import/pingdirectory');
const fixture = (name: string) => readFileSync(resolve(FIXTURES, name), 'utf8');

describe('driver pingdirectory: import', () => {
  it('reads its own render back: servers, the check with its hysteresis, the group; the rest named', () => {
    const w = tier();
    const r = importPingDirectory(renderPingDirectory(w, w.appliances[0]!).text, 'proxy.dsconfig');
    expect(r.workspace.servers).toEqual([
      { name: 'ds1', address: '192.0.2.21', healthTimers: { interval: '5s' } },
      { name: 'ds2', address: '192.0.2.22', healthTimers: { interval: '5s' } },
      { name: 'ds3', address: '192.0.2.23', healthTimers: { interval: '5s' } },
    ]);
    expect(r.workspace.groups).toEqual([{
      name: 'directory',
      members: [{ server: 'ds1', port: 1389 }, { server: 'ds2', port: 1389 }],
      healthCheck: { type: 'ldap', ldap: { baseDn: 'dc=example,dc=com', scope: 'base', filter: '(objectClass=*)' }, degradedAbove: '1s', availableBelow: '500ms' },
      healthTimers: { timeout: '3s' },
    }]);
    const kept = r.items.filter((i) => i.outcome === 'kept').map((i) => i.detail.split(':')[0]);
    expect(kept).toEqual(['create-location lbdesk', 'create-request-processor ldap-vip', 'create-subtree-view ldap-vip', 'set-client-connection-policy default']);
  });

  it('published config-diff output: every line is a comment, a blank, or part of a command the report names', () => {
    const text = fixture('config-diff-sample.dsconfig');
    const r = importPingDirectory(text, 'config-diff.out');
    expect(r.workspace.servers).toEqual([]);
    expect(r.items.map((i) => [i.line, i.outcome, i.detail])).toEqual([
      [10, 'kept', 'type api: not an LDAP external server; kept on the proxy'],
      [13, 'kept', 'type api: not an LDAP external server; kept on the proxy'],
      [15, 'kept', '"..." is not a dsconfig subcommand lbdesk reads: not modelled (lbdesk reads external servers, search health checks and load-balancing algorithms); kept on the proxy as written'],
    ]);
    // The wrapped lines (a line starting --set, no backslash, as published) belong to the command above.
    const cmds = parseBatch(text);
    expect(cmds.map((c) => [c.line + 1, c.end + 1])).toEqual([[10, 11], [13, 14], [15, 15]]);
    const covered = new Set(cmds.flatMap((c) => Array.from({ length: c.end - c.line + 1 }, (_, k) => c.line + k)));
    const lines = text.split('\n').slice(0, -1);
    const unaccounted = lines.map((l, i) => [i, l] as const).filter(([i, l]) => l.trim() !== '' && !l.startsWith('#') && !covered.has(i));
    expect(unaccounted).toEqual([]);
    expect(new Set(r.items.map((i) => i.line))).toEqual(new Set(cmds.map((c) => c.line + 1)));
    // The published (encrypted) password value is read as a property, never echoed.
    expect(JSON.stringify(r)).not.toContain('AADaK6dtmjJQ7W');
  });

  it('a published discovery profile: the search check imported, everything else kept with why', () => {
    const r = importPingDirectory(fixture('automatic-server-discovery.dsconfig'), 'discovery.dsconfig');
    expect(r.workspace.servers).toEqual([]);
    expect(r.workspace.groups).toEqual([]);
    const by = (s: string) => r.items.find((i) => i.section.includes(s))!;
    expect(by('dc_example_dc_com-retrieve-base-entry')).toMatchObject({ line: 3, outcome: 'approximated' });
    expect(by('dc_example_dc_com-retrieve-base-entry').detail).toMatch(/allow-no-entries-returned is not modelled/);
    expect(by('dc_example_dc_com-replication-backlog')).toMatchObject({ line: 13, outcome: 'kept' });
    expect(by('load-balancing-algorithm dc_example_dc_com-failover').detail).toMatch(/topology registry/);
    expect(r.items).toHaveLength(9);
    expect(r.items.filter((i) => i.outcome === 'kept')).toHaveLength(8);
  });

  it('a published create-initial-proxy-config file: 12 checks, 6 servers by host name kept, algorithms kept as their servers are', () => {
    const r = importPingDirectory(fixture('entry-balancing-excerpt.dsconfig'), 'eb.dsconfig');
    const outcomes = (prefix: string) => r.items.filter((i) => i.section.startsWith(prefix)).map((i) => i.outcome);
    expect(outcomes('ldap-health-check')).toEqual(Array(12).fill('imported'));
    expect(outcomes('external-server')).toEqual(Array(6).fill('kept'));
    expect(r.items.find((i) => i.section.startsWith('external-server'))!.detail).toMatch(/is not an IP address/);
    expect(outcomes('load-balancing-algorithm')).toEqual(['kept', 'kept']);
    expect(r.items.map((i) => i.detail).join('\n')).not.toMatch(/ROOT_USER_PASSWORD/);
  });

  it('refuses a file without a dsconfig command, with its line', () => {
    expect(() => importPingDirectory('# nothing\nserver real a 192.0.2.1\n', 'x.cfg')).toThrow('x.cfg:2: no dsconfig command');
  });
});

/** The objects a batch leaves, without where their commands were, by kind and name. */
const state = (text: string) => [...objectsOf(parseBatch(text)).values()]
  .map((o) => ({ kind: o.kind, name: o.name, type: o.type, props: Object.fromEntries(o.props) }))
  .sort((a, b) => `${a.kind} ${a.name}`.localeCompare(`${b.kind} ${b.name}`));

describe('driver pingdirectory: plan', () => {
  it('the proxy configured as rendered: no command', () => {
    const w = tier();
    const before = renderPingDirectory(w, w.appliances[0]!).text;
    const p = planPingDirectory(w, w.appliances[0]!, before);
    expect(p.errors).toEqual([]);
    expect(p.steps).toEqual([]);
    expect(p.after).toBe(before);
  });

  it('a removed member and a new threshold: set only what differs, delete the server; the inverse restores every object', () => {
    const w = tier();
    const before = renderPingDirectory(w, w.appliances[0]!).text;
    w.groups[0]!.members = w.groups[0]!.members.filter((m) => m.server !== 'ds2');
    w.groups[0]!.healthCheck.degradedAbove = 2000;
    const p = planPingDirectory(w, w.appliances[0]!, before);
    expect(p.errors).toEqual([]);
    expect(p.steps.map((s) => s.commands)).toEqual([
      ['dsconfig set-ldap-health-check-prop --check-name directory-search --set "minimum-local-degraded-response-time:2 s"'],
      ['dsconfig set-load-balancing-algorithm-prop --algorithm-name ldap-vip --set backend-server:ds1:1389'],
      ['dsconfig delete-external-server --server-name ds2:1389'],
    ]);
    expect(p.steps[1]!.inverse).toEqual(['dsconfig set-load-balancing-algorithm-prop --algorithm-name ldap-vip --set backend-server:ds1:1389 --set backend-server:ds2:1389']);
    const inverse = [...p.steps].reverse().flatMap((s) => s.inverse);
    expect(state(`${p.after}${inverse.join('\n')}\n`)).toEqual(state(before));
    expect(state(p.after)).toEqual(state(renderPingDirectory(w, w.appliances[0]!).text));
  });

  it('onto a published profile: creates the tier beside it, keeps every object it had', () => {
    const w = tier();
    const published = fixture('automatic-server-discovery.dsconfig');
    const p = planPingDirectory(w, w.appliances[0]!, published);
    expect(p.steps.map((s) => s.what)).toEqual([
      'create location lbdesk', 'create ldap-health-check directory-search', 'create external-server ds1:1389', 'create external-server ds2:1389', 'create external-server ds3:1389',
      'create load-balancing-algorithm ldap-vip', 'create request-processor ldap-vip', 'create subtree-view ldap-vip', 'add subtree view ldap-vip to client connection policy default',
    ]);
    expect(p.steps.at(-1)!.inverse).toEqual(['dsconfig set-client-connection-policy-prop --policy-name default --remove subtree-view:ldap-vip']);
    const kept = state(published);
    const after = state(p.after);
    for (const o of kept.filter((k) => k.kind !== 'client-connection-policy')) expect(after).toContainEqual(o);
  });
});

describe('driver pingdirectory: the command line', () => {
  it('render prints the batch file, import reads it back, render --onto --commands plans nothing; push without dsconfig settings is refused before a login', async () => {
    const rendered = await runCli(['render', TIER, '--appliance', 'proxy1']);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toContain('dsconfig create-load-balancing-algorithm \\\n    --algorithm-name ldap-vip \\\n    --type health-weighted \\\n');
    expect(rendered.stderr).toMatch(/lbdesk: warning: server ds3: disabled/);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-pd-'));
    const batch = join(dir, 'proxy.dsconfig');
    writeFileSync(batch, rendered.stdout);
    const imported = await runCli(['import', batch, '--driver', 'pingdirectory', '--out', join(dir, 'ws.yaml')]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/3 servers, 1 groups, 0 services/);
    const none = await runCli(['render', TIER, '--appliance', 'proxy1', '--onto', batch, '--commands']);
    expect([none.code, none.stdout]).toEqual([0, '']);
    const push = await runCli(['push', TIER, '--appliance', 'proxy1']);
    expect(push.code).toBe(1);
    expect(push.stdout + push.stderr).toMatch(/appliance proxy1: driver pingdirectory needs dsconfig.serverRoot \(the proxy's server root on the box\) and dsconfig.bindSecret/);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
