// Certificates seen by the TLS checks (ssl, https) against real node:tls / node:https servers
// on loopback (127.0.29.1-3), with certificates made by openssl for this run: 400 days, 10 days
// and one that expired yesterday. Days to expiry are counted from the check's time.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthChecker } from '../../../../main/services/health';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { certLevel, daysLeft, expiryWords } from '../../../../shared/model/certificates';
import type { CertificateSeen } from '../../../../shared/api/types';
import { workspaceSchema, type HealthCheck } from '../../../../shared/model/schema';
import { noOpenssl, selfSignedCert, startHttpsServer, startTlsServer, type Running } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';

const DAY = 86_400_000;
const open: Running[] = [];
const ctx = (address: string, port: number, check: HealthCheck): ProbeContext => ({ address, port, timeoutMs: 3000, secrets: new MemorySecretStore(), check });

describe('days to expiry (pure, a given clock)', () => {
  const notAfter = Date.UTC(2027, 0, 31, 12);
  it('counts whole days down, warns under 30, and says expired from notAfter on', () => {
    expect(daysLeft(notAfter, notAfter - 30 * DAY)).toBe(30);
    expect(certLevel({ notAfter }, notAfter - 30 * DAY)).toBe('ok');
    expect(certLevel({ notAfter }, notAfter - 30 * DAY + 1)).toBe('warning');
    expect(expiryWords({ notAfter }, notAfter - 30 * DAY + 1)).toBe('expires in 29 days');
    expect(expiryWords({ notAfter }, notAfter - 1)).toBe('expires within a day');
    expect(certLevel({ notAfter }, notAfter)).toBe('expired');
    expect(daysLeft(notAfter, notAfter + 1)).toBe(-1);
    expect(daysLeft(notAfter, notAfter + DAY + 1)).toBe(-1);
    expect(daysLeft(notAfter, notAfter + 2 * DAY)).toBe(-2);
    expect(expiryWords({ notAfter }, notAfter + 3 * DAY + 5)).toBe('expired 3 days ago');
  });
});

describe.skipIf(skipBecause(noOpenssl, 'certificate evidence'))(`certificates seen while checking${noOpenssl}`, () => {
  // Made in beforeAll: a skipped suite's body still runs, and openssl may be missing.
  let long: ReturnType<typeof selfSignedCert>;
  let short: typeof long;
  let gone: typeof long;
  let ports: number[] = [];
  beforeAll(async () => {
    [long, short, gone] = [selfSignedCert('long.test', undefined, 400), selfSignedCert('short.test', '127.0.29.2', 10), selfSignedCert('gone.test', undefined, -1)];
    const servers = await Promise.all([
      startTlsServer('127.0.29.1', long),
      startHttpsServer('127.0.29.2', (_req, res) => { res.statusCode = 404; res.end('no'); }, short),
      startTlsServer('127.0.29.3', gone),
    ]);
    open.push(...servers);
    ports = servers.map((s) => s.port);
  });
  afterAll(async () => Promise.all(open.map((s) => s.close())));

  it('ssl: the probe records subject, issuer, SANs, dates and the sha256 fingerprint', async () => {
    const r = await runProbe('ssl', ctx('127.0.29.1', ports[0]!, { type: 'ssl' }));
    expect(r.ok).toBe(true);
    const x = new X509Certificate(long.cert);
    expect(r.certificate).toEqual({
      subject: 'CN=long.test', issuer: 'CN=long.test', sans: ['DNS:long.test'],
      notBefore: Date.parse(x.validFrom), notAfter: Date.parse(x.validTo), sha256: x.fingerprint256,
    });
    expect(r.certificate!.notAfter - r.certificate!.notBefore).toBe(400 * DAY);
  });

  it('https: a failed HTTP check after the handshake still keeps the certificate; none without TLS', async () => {
    const r = await runProbe('https', ctx('127.0.29.2', ports[1]!, { type: 'https', http: { path: '/' } }));
    expect(r).toMatchObject({ ok: false, certificate: { subject: 'CN=short.test', sans: ['IP Address:127.0.29.2'] } });
    const plain = await runProbe('http', ctx('127.0.29.2', ports[1]!, { type: 'http' }));
    expect(plain.certificate).toBeUndefined();
  });

  it('the checker counts days left from the check time: 399, 9 and -1 (expired)', async () => {
    const workspace = workspaceSchema.parse({
      lbdesk: 1, name: 'certs', servers: [{ name: 'a', address: '127.0.29.1' }, { name: 'b', address: '127.0.29.2' }, { name: 'c', address: '127.0.29.3' }],
      groups: [
        { name: 'tls', members: [{ server: 'a', port: ports[0] }, { server: 'c', port: ports[2] }], healthCheck: { type: 'ssl' } },
        { name: 'web', members: [{ server: 'b', port: ports[1] }], healthCheck: { type: 'https', http: { path: '/' } } },
      ],
    });
    const seen = new Map<string, CertificateSeen>();
    const before = Date.now();
    const checker = new HealthChecker({ secrets: new MemorySecretStore() });
    await checker.checkOnce(workspace, undefined, { onResult: (key, r) => r.certificate && seen.set(key, r.certificate) });
    const days = [...seen.entries()].map(([k, c]) => [k.replace(/:\d+$/, ''), c.daysLeft, certLevel(c, before)]);
    expect(days.sort()).toEqual([['g:tls/a', 399, 'ok'], ['g:tls/c', -1, 'expired'], ['g:web/b', 9, 'warning']]);
  });
});
