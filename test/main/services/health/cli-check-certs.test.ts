// `lbdesk check` lists the certificates its TLS checks saw: the real CLI in a child process,
// node:tls and node:https servers on 127.0.29.11-13 with certificates made by openssl for this run.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../../helpers/cli';
import { noOpenssl, selfSignedCert, startHttpsServer, startTlsServer, type Running } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';


describe.skipIf(skipBecause(noOpenssl, 'lbdesk check certificates'))(`lbdesk check: certificates seen${noOpenssl}`, () => {
  const open: Running[] = [];
  let dir: string;
  let file: string;
  // Made in beforeAll: a skipped suite's body still runs, and openssl may be missing.
  let long: ReturnType<typeof selfSignedCert>;
  let short: typeof long;
  let gone: typeof long;

  beforeAll(async () => {
    [long, short, gone] = [selfSignedCert('long.test', undefined, 400), selfSignedCert('short.test', '127.0.29.12', 10), selfSignedCert('gone.test', undefined, -1)];
    const [a, b, c] = await Promise.all([
      startTlsServer('127.0.29.11', long),
      startHttpsServer('127.0.29.12', (_req, res) => res.end('ok'), short),
      startTlsServer('127.0.29.13', gone),
    ]);
    open.push(a!, b!, c!);
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-check-certs-'));
    file = join(dir, 'site.yaml');
    writeFileSync(file, stringify({
      lbdesk: 1, name: 'certs', healthTimers: { timeout: '3s' },
      servers: [{ name: 'a', address: '127.0.29.11' }, { name: 'b', address: '127.0.29.12' }, { name: 'c', address: '127.0.29.13' }],
      groups: [
        { name: 'tls', members: [{ server: 'a', port: a!.port }, { server: 'c', port: c!.port }], healthCheck: { type: 'ssl' } },
        { name: 'web', members: [{ server: 'b', port: b!.port }], healthCheck: { type: 'https', http: { path: '/' } } },
        { name: 'plain', members: [{ server: 'b', port: b!.port }], healthCheck: { type: 'tcp' } },
      ],
    }));
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('--json gives each TLS member its certificate with days left; the table warns under 30 days', async () => {
    const [json, table] = await Promise.all([runCli(['check', file, '--json'], { timeoutMs: 150_000 }), runCli(['check', file], { timeoutMs: 150_000 })]);
    expect(json.stderr).toBe('');
    const doc = JSON.parse(json.stdout) as { members: { group: string; server: string; certificate?: Record<string, unknown> }[] };
    const x = new X509Certificate(long.cert);
    expect(doc.members.map((m) => [m.group, m.server, m.certificate?.daysLeft])).toEqual([['tls', 'a', 399], ['tls', 'c', -1], ['web', 'b', 9], ['plain', 'b', undefined]]);
    expect(doc.members[0]!.certificate).toEqual({
      subject: 'CN=long.test', issuer: 'CN=long.test', sans: ['DNS:long.test'],
      notBefore: new Date(x.validFrom).toISOString(), notAfter: new Date(x.validTo).toISOString(), sha256: x.fingerprint256, daysLeft: 399,
    });
    expect(doc.members[2]!.certificate).toMatchObject({ subject: 'CN=short.test', sans: ['IP Address:127.0.29.12'] });

    const certs = table.stdout.split('\n').filter((l) => l.startsWith('certificate '));
    expect(certs).toEqual([
      expect.stringMatching(/^certificate tls\/a: CN=long\.test expires in 399 days \(/),
      expect.stringMatching(/^certificate tls\/c: CN=gone\.test EXPIRED: expired (today|1 day ago) \(/),
      expect.stringMatching(/^certificate web\/b: CN=short\.test WARNING: expires in 9 days \(/),
    ]);
  }, 300_000);
});
