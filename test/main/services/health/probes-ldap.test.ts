// LDAP probe against a real OpenLDAP slapd on loopback (127.0.4.50): cn=Monitor and an ldif db.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Attribute, Change, Client } from 'ldapts';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import type { HealthCheck } from '../../../../shared/model/schema';
import { freePort } from '../../../helpers/servers';
import { ADMIN_DN, SUFFIX, slapdMissing, startSlapd, type Slapd } from '../../../helpers/slapd';
import { skipBecause } from '../../../helpers/skip';

const H = '127.0.4.50';
const secrets = new MemorySecretStore();
type Ldap = NonNullable<HealthCheck['ldap']>;
const ldap = (cfg: Partial<Ldap>): HealthCheck => ({ type: 'ldap', ldap: { baseDn: 'cn=Monitor', scope: 'base', filter: '(objectClass=*)', ...cfg } });

describe.skipIf(skipBecause(slapdMissing, 'LDAP probe against slapd'))(`LDAP search against slapd${slapdMissing ? ` (skipped: ${slapdMissing})` : ''}`, () => {
  let slapd: Slapd;
  const ctx = (check: HealthCheck, over: Partial<ProbeContext> = {}): ProbeContext => ({ address: H, port: slapd.port, timeoutMs: 2000, secrets, check, ...over });
  beforeAll(async () => {
    slapd = await startSlapd(H);
    await secrets.set(secretName.named('ldap-admin'), slapd.adminPassword);
    await secrets.set(secretName.named('ldap-wrong'), 'not the password');
  });
  afterAll(async () => slapd?.stop());

  it('searches cn=Monitor, measures the search, and checks expected attribute values', async () => {
    const r = await runProbe('ldap', ctx(ldap({ expect: { objectClass: 'monitorServer', cn: 'Monitor' } })));
    expect(r.ok).toBe(true);
    expect(r.reason).toMatch(/^search "cn=Monitor" \(base, \(objectClass=\*\)\) returned an entry in .*, 2 expected value\(s\) present$/);
    expect(r.evidence).toMatchObject({ entries: 1, dn: 'cn=Monitor', 'attr:objectClass': 'monitorServer' });
    expect(r.rttMs).toBe(r.evidence.searchMs);
  });

  it('an expected value that differs fails and shows what was there', async () => {
    const r = await runProbe('ldap', ctx(ldap({ expect: { objectClass: 'monitorContainer' } })));
    expect(r).toMatchObject({ ok: false, reason: 'search "cn=Monitor" (base, (objectClass=*)): objectClass is "monitorServer", expected "monitorContainer"' });
  });

  it('a filter that matches nothing fails: no entry returned', async () => {
    const r = await runProbe('ldap', ctx(ldap({ filter: '(cn=nobody)' })));
    expect(r).toMatchObject({ ok: false, reason: 'search "cn=Monitor" (base, (cn=nobody)) returned no entry' });
  });

  it('a base that does not exist fails naming the base and the result in words', async () => {
    const r = await runProbe('ldap', ctx(ldap({ baseDn: `ou=missing,${SUFFIX}` })));
    expect(r.ok).toBe(false);
    expect(r.reason).toBe(`search "ou=missing,${SUFFIX}" (base, (objectClass=*)) failed: no such object (LDAP result 32)`);
    expect(r.evidence.resultCode).toBe(32);
  });

  it('one-level scope finds the monitor subentries', async () => {
    const r = await runProbe('ldap', ctx(ldap({ scope: 'one', filter: '(cn=Backends)' })));
    expect(r).toMatchObject({ ok: true, evidence: { dn: 'cn=Backends,cn=Monitor' } });
  });

  it('binds with the password from the secret store before searching', async () => {
    const r = await runProbe('ldap', ctx(ldap({ baseDn: SUFFIX, bindDn: ADMIN_DN, bindSecret: 'ldap-admin' })));
    expect(r).toMatchObject({ ok: true, evidence: { bindDn: ADMIN_DN, dn: SUFFIX } });
  });

  it('a wrong bind password fails with invalidCredentials; a missing secret fails before dialling', async () => {
    const wrong = await runProbe('ldap', ctx(ldap({ bindDn: ADMIN_DN, bindSecret: 'ldap-wrong' })));
    expect(wrong.ok).toBe(false);
    expect(wrong.reason).toBe(`bind as "${ADMIN_DN}" failed: invalid credentials (LDAP result 49)`);
    const missing = await runProbe('ldap', ctx(ldap({ bindDn: ADMIN_DN, bindSecret: 'nowhere' })));
    expect(missing).toMatchObject({ ok: false, reason: 'bind password secret "nowhere" is not in the secret store' });
  });

  it('a server that accepts but never answers fails at the timeout', async () => {
    await slapd.freeze();
    try {
      const r = await runProbe('ldap', ctx(ldap({}), { timeoutMs: 400 }));
      expect(r).toMatchObject({ ok: false, reason: 'timeout after 400 ms waiting for the search result' });
    } finally {
      slapd.thaw();
    }
    expect((await runProbe('ldap', ctx(ldap({})))).ok).toBe(true);
  });

  it('follows the server\'s administrative alerts: degraded-alert-type degrades, unavailable-alert-type fails (seed 002)', async () => {
    const admin = new Client({ url: slapd.url });
    const dn = `cn=alerting,${SUFFIX}`;
    try {
      await admin.bind(ADMIN_DN, slapd.adminPassword);
      await admin.add(dn, { objectClass: ['device', 'lbdeskAlerts'], cn: 'alerting' });
      const check = ldap({ baseDn: dn });
      const quiet = await runProbe('ldap', ctx(check));
      expect(quiet).toMatchObject({ ok: true });
      expect(quiet.degraded).toBeUndefined();

      await admin.modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: 'degraded-alert-type', values: ['replication-backlog-exceeded'] }) }));
      const degraded = await runProbe('ldap', ctx(check));
      expect(degraded).toMatchObject({ ok: true, degraded: true, evidence: { 'attr:degraded-alert-type': 'replication-backlog-exceeded' } });
      expect(degraded.reason).toMatch(/; the server flags itself degraded \(degraded-alert-type: replication-backlog-exceeded\)$/);

      await admin.modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: 'unavailable-alert-type', values: ['index-rebuild-required'] }) }));
      const down = await runProbe('ldap', ctx(check));
      expect(down).toMatchObject({ ok: false, reason: `search "${dn}" (base, (objectClass=*)): the server flags itself unavailable (unavailable-alert-type: index-rebuild-required)` });
    } finally {
      await admin.del(dn).catch(() => undefined);
      await admin.unbind();
    }
  });

  it('nothing listening fails with the errno', async () => {
    const r = await runProbe('ldap', ctx(ldap({}), { port: await freePort(H) }));
    expect(r).toMatchObject({ ok: false, reason: 'connect ECONNREFUSED' });
  });
});
