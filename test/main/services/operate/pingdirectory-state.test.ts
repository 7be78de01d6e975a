// lbdesk state on a pingdirectory appliance: each external server's health as the proxy reports
// it in its cn=monitor, read over LDAP. A real slapd serves the monitor entries PingDirectoryProxy
// publishes for LDAP external servers (object class ds-ldap-external-server-monitor-entry, the
// attribute names of the UnboundID LDAP SDK's LDAPExternalServerMonitorEntry) under
// cn=monitor,o=proxy: slapd reserves cn=Monitor for its own monitor backend, so the runtime is
// opened at that base here; `lbdesk state` (base cn=monitor) reads slapd's own cn=Monitor, which
// has no such entry. The appliance is reached over the test proxy host's real sshd, as push does.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../../shared/model/validate';
import type { Workspace } from '../../../../shared/model/schema';
import { SshConfigSet } from '../../../../main/services/ssh';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { servedMembers, type OperateContext, type Runtime } from '../../../../main/services/operate';
import { pingdirectoryRuntimeAt } from '../../../../main/services/operate/pingdirectory';
import { runtimeRemote } from '../../../../main/services/operate/remote';
import { connectSsh } from '../../../../main/services/ssh/connect';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { memberStates, parseMonitor, NO_RUNTIME_SWITCH } from '../../../../main/services/drivers/pingdirectory/monitor';
import { ADMIN_DN, slapdMissing, startSlapd, type Slapd } from '../../../helpers/slapd';
import { noSshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { runCli } from '../../../helpers/cli';
import { startPingDirectoryHost, type PingDirectoryHost } from '../../../helpers/command-boxes/pingdirectory-host';

const HOST = '127.0.8.1';
const BASE = 'cn=monitor,o=proxy';
const TIER = resolve(__dirname, '../../../fixtures/pingdirectory/tier.yaml');
const OID = '1.3.6.1.4.1.4203.666.11';
const DSTRING = 'EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15';
/** PingDirectoryProxy's monitor schema, as much of it as the LDAP external server entries use. */
const SCHEMA = [
  `attributetype ( ${OID}.10 NAME 'server-address' ${DSTRING} )`,
  `attributetype ( ${OID}.11 NAME 'server-port' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )`,
  `attributetype ( ${OID}.12 NAME 'communication-security' ${DSTRING} )`,
  `attributetype ( ${OID}.13 NAME 'load-balancing-algorithm' EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )`,
  `attributetype ( ${OID}.14 NAME 'health-check-state' ${DSTRING} )`,
  `attributetype ( ${OID}.15 NAME 'health-check-score' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )`,
  `attributetype ( ${OID}.16 NAME 'health-check-message' ${DSTRING} )`,
  `attributetype ( ${OID}.17 NAME 'health-check-update-time' EQUALITY generalizedTimeMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.24 )`,
  `objectclass ( ${OID}.20 NAME 'ds-monitor-entry' SUP top STRUCTURAL MUST cn )`,
  `objectclass ( ${OID}.21 NAME 'ds-ldap-external-server-monitor-entry' SUP ds-monitor-entry STRUCTURAL MAY ( server-address $ server-port $ communication-security $ load-balancing-algorithm $ health-check-state $ health-check-score $ health-check-message $ health-check-update-time ) )`,
];

const entry = (address: string, port: number, algorithm: string, state: string, score: number, message?: string) => [
  `dn: cn=LDAP external server ${address}:${port} for ${algorithm},${BASE}`,
  'objectClass: top', 'objectClass: ds-monitor-entry', 'objectClass: ds-ldap-external-server-monitor-entry',
  `cn: LDAP external server ${address}:${port} for ${algorithm}`,
  `server-address: ${address}`, `server-port: ${port}`, 'communication-security: none',
  `load-balancing-algorithm: cn=${algorithm},cn=Load-Balancing Algorithms,cn=config`,
  `health-check-state: ${state}`, `health-check-score: ${score}`, ...(message ? [`health-check-message: ${message}`] : []),
  'health-check-update-time: 20261202120000Z', '',
].join('\n');

const LDIF = [
  `dn: ${BASE}\nobjectClass: top\nobjectClass: ds-monitor-entry\ncn: monitor\n`,
  entry('192.0.2.21', 1389, 'ldap-vip', 'AVAILABLE', 10),
  entry('192.0.2.22', 1389, 'ldap-vip', 'DEGRADED', 5, 'The search took 1200 ms, above the minimum degraded response time of 1000 ms'),
].join('\n');

describe('pingdirectory cn=monitor entries -> member states (pure)', () => {
  it('maps AVAILABLE and DEGRADED to up, UNAVAILABLE to down, a server without an entry to unknown with why', () => {
    const seen = parseMonitor([
      { dn: 'cn=a,cn=monitor', 'server-address': '192.0.2.21', 'server-port': '1389', 'load-balancing-algorithm': 'cn=ldap-vip,cn=Load-Balancing Algorithms,cn=config', 'health-check-state': 'UNAVAILABLE', 'health-check-score': '0', 'health-check-message': ['connection refused'] },
      { dn: 'cn=b,cn=monitor', 'Server-Address': '192.0.2.22', 'server-port': '1389', 'load-balancing-algorithm': 'cn=ldap-vip,cn=Load-Balancing Algorithms,cn=config', 'health-check-state': 'degraded', 'health-check-score': '5' },
      { dn: 'cn=c,cn=monitor', 'server-port': '1389' },
    ]);
    expect(seen).toHaveLength(2);
    const members = ['ds1', 'ds2', 'ds3'].map((s, i) => ({ group: 'directory', server: s, port: 1389, address: `192.0.2.2${i + 1}` }));
    expect(memberStates(members, [{ name: 'ldap-vip', group: 'directory', port: 389 }], seen)).toEqual([
      { group: 'directory', server: 'ds1', port: 1389, health: 'down', check: 'UNAVAILABLE score 0: connection refused', on: ['load-balancing-algorithm ldap-vip'] },
      { group: 'directory', server: 'ds2', port: 1389, health: 'up', check: 'DEGRADED score 5', on: ['load-balancing-algorithm ldap-vip'] },
      { group: 'directory', server: 'ds3', port: 1389, health: 'unknown', why: 'the proxy publishes no LDAP external server monitor entry for 192.0.2.23:1389 in load-balancing algorithm ldap-vip (not a backend server of it on the proxy)' },
    ]);
  });
});

describe.skipIf(skipBecause(noSshd || slapdMissing, 'pingdirectory state over cn=monitor'))('lbdesk state on a pingdirectory appliance: the proxy\'s cn=monitor over LDAP', () => {
  let slapd: Slapd;
  let host: PingDirectoryHost;
  let dir: string;
  let file: string;
  let workspace: Workspace;

  beforeAll(async () => {
    slapd = await startSlapd(HOST, { suffix: BASE, schema: SCHEMA, ldif: LDIF });
    host = await startPingDirectoryHost({ host: HOST, port: slapd.port, bindDn: ADMIN_DN, password: slapd.adminPassword });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-pdstate-'));
    const tier = readFileSync(TIER, 'utf8').replace(/appliances:\n[\s\S]*$/, '');
    file = join(dir, 'ws.yaml');
    writeFileSync(file, `${tier}appliances:\n${host.applianceLines('proxy1', 'pd-admin').join('\n')}\n`);
    writeFileSync(join(dir, 'known_hosts'), `${host.sshd.knownHostsLine}\n`);
    const r = parseWorkspace(readFileSync(file, 'utf8'), file);
    workspace = r.workspace!;
  }, 60_000);
  afterAll(async () => { await host?.stop(); await slapd?.stop(); });

  const ctxOf = (): OperateContext => {
    const link = openAppliance(workspace, workspace.appliances[0]!, file);
    return { workspace, appliance: link.appliance, target: link.target };
  };
  const ssh = () => {
    const secrets = new MemorySecretStore();
    void secrets.set('named/pd-admin', slapd.adminPassword);
    return { knownHostsFile: join(dir, 'known_hosts'), sshConfig: SshConfigSet.empty(), secrets };
  };

  /** As connectRuntime opens it (the push's endpoint and login), at the test's monitor base. */
  async function open(secrets = ssh()): Promise<{ runtime: Runtime; close(): void }> {
    const ctx = ctxOf();
    const conn = await connectSsh(ctx.target.endpoint, secrets);
    const runtime = pingdirectoryRuntimeAt(BASE).open({ workspace, appliance: ctx.appliance, remote: runtimeRemote(conn, ctx.target, {}), conn, configPath: '', secrets: secrets.secrets });
    return { runtime, close: () => conn.close() };
  }

  it('reads each server as the proxy reports it, live; drain is refused in one line', async () => {
    const ctx = ctxOf();
    const op = await open();
    try {
      expect(await op.runtime.via()).toBe(`${BASE} over LDAP at ldap://${HOST}:${slapd.port} as ${ADMIN_DN}`);
      const members = servedMembers(ctx);
      const states = await op.runtime.state(members);
      expect(states.map((s) => [s.server, s.health, s.check ?? s.why])).toEqual([
        ['ds1', 'up', 'AVAILABLE score 10'],
        ['ds2', 'up', 'DEGRADED score 5: The search took 1200 ms, above the minimum degraded response time of 1000 ms'],
        ['ds3', 'unknown', 'the proxy publishes no LDAP external server monitor entry for 192.0.2.23:1389 in load-balancing algorithm ldap-vip (not a backend server of it on the proxy)'],
      ]);
      // The proxy marks ds1 unavailable: the next ask says so (nothing cached).
      const admin = new Client({ url: slapd.url });
      await admin.bind(ADMIN_DN, slapd.adminPassword);
      await admin.modify(`cn=LDAP external server 192.0.2.21:1389 for ldap-vip,${BASE}`, [
        new Change({ operation: 'replace', modification: new Attribute({ type: 'health-check-state', values: ['UNAVAILABLE'] }) }),
        new Change({ operation: 'replace', modification: new Attribute({ type: 'health-check-score', values: ['0'] }) }),
      ]);
      await admin.unbind();
      expect((await op.runtime.state(members))[0]).toMatchObject({ server: 'ds1', health: 'down', check: 'UNAVAILABLE score 0' });
      expect(await op.runtime.set(members.slice(0, 1), 'drain')).toEqual({ ok: false, refused: NO_RUNTIME_SWITCH });
    } finally {
      op.close();
    }
  }, 60_000);

  it('a wrong bind password: one line naming the monitor and the LDAP result', async () => {
    const o = ssh();
    await o.secrets.set('named/pd-admin', 'not-the-password');
    const op = await open(o);
    try {
      await expect(op.runtime.state(servedMembers(ctxOf()))).rejects.toThrow(`ldap://${HOST}:${slapd.port}: reading ${BASE} failed: Invalid Credentials (LDAP result 49)`);
    } finally {
      op.close();
    }
  }, 60_000);

  it('lbdesk state binds and searches the proxy\'s cn=monitor: slapd\'s own has no external server entry, so each row says so (exit 1); drain says why not in one line', async () => {
    const env = { LBDESK_SECRET_PD_ADMIN: slapd.adminPassword, LBDESK_KEYRING: 'off' };
    const r = await runCli(['state', file, '--appliance', 'proxy1', '--known-hosts', join(dir, 'known_hosts')], { env });
    expect(r.stderr).toContain(`cn=monitor over LDAP at ldap://${HOST}:${slapd.port} as ${ADMIN_DN}`);
    expect(r.stdout.trim().split('\n')).toEqual(['ds1:1389 192.0.2.21', 'ds2:1389 192.0.2.22', 'ds3:1389 192.0.2.23'].map((x) => {
      const [sp, a] = x.split(' ');
      return `directory/${sp}  unknown  the proxy publishes no LDAP external server monitor entry for ${a}:1389 in load-balancing algorithm ldap-vip (not a backend server of it on the proxy)`;
    }));
    expect(r.code).toBe(1);
    const bad = await runCli(['state', file, '--appliance', 'proxy1', '--known-hosts', join(dir, 'known_hosts')], { env: { ...env, LBDESK_SECRET_PD_ADMIN: 'wrong' } });
    expect([bad.code, bad.stderr.trim()]).toEqual([2, `lbdesk: proxy1: ldap://${HOST}:${slapd.port}: reading cn=monitor failed: Invalid Credentials (LDAP result 49)`]);
    const d = await runCli(['drain', file, '--appliance', 'proxy1', 'directory/ds1:1389', '--known-hosts', join(dir, 'known_hosts')], { env });
    expect(d.stdout + d.stderr).toContain(NO_RUNTIME_SWITCH);
    expect(d.code).toBe(1);
  }, 90_000);
});
