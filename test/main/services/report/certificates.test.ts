// The change report's certificates: one TLS check of each https/ssl member made for the report
// (real node:tls / node:https servers on 127.0.29.21-24, certificates made by openssl for this
// run), the running lab's latest results instead when it runs the file, none when offline;
// in JSON, Markdown and HTML, with a warning under 30 days and expired ones in red.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { collectReport, reportHtml, reportMarkdown, type CollectOptions } from '../../../../main/services/report';
import type { CheckResult, MemberStatus } from '../../../../shared/api/types';
import { noOpenssl, selfSignedCert, startHttpsServer, startTcpListener, startTlsServer, type Running, type TcpListener } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';

const DAY = 86_400_000;

describe.skipIf(skipBecause(noOpenssl, 'report certificates'))(`change report: certificates${noOpenssl}`, () => {
  const open: Running[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-report-certs-'));
  const path = join(dir, 'site.yaml');
  let plain: TcpListener;
  const opts = (over: Partial<CollectOptions> = {}): CollectOptions => ({ path, ask: true, read: {}, historyDir: join(dir, 'history'), ...over });

  beforeAll(async () => {
    const [a, b, c] = await Promise.all([
      startTlsServer('127.0.29.21', selfSignedCert('long.test', undefined, 400)),
      startHttpsServer('127.0.29.22', (_req, res) => res.end('ok'), selfSignedCert('short.test', undefined, 10)),
      startTlsServer('127.0.29.23', selfSignedCert('gone.test', undefined, -1)),
    ]);
    plain = await startTcpListener('127.0.29.24');
    open.push(a!, b!, c!, plain);
    writeFileSync(path, stringify({
      lbdesk: 1, name: 'certs', healthTimers: { timeout: '3s' },
      servers: [{ name: 'a', address: '127.0.29.21' }, { name: 'b', address: '127.0.29.22' }, { name: 'c', address: '127.0.29.23' }, { name: 'd', address: '127.0.29.24' }],
      groups: [
        { name: 'tls', members: [{ server: 'a', port: a!.port }, { server: 'c', port: c!.port }], healthCheck: { type: 'ssl' } },
        { name: 'web', members: [{ server: 'b', port: b!.port }], healthCheck: { type: 'https', http: { path: '/' } } },
        { name: 'l4', members: [{ server: 'd', port: plain.port }], healthCheck: { type: 'tcp' } },
      ],
    }));
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks only the TLS members, and lists each certificate with days left in JSON, Markdown and HTML', async () => {
    const r = await collectReport(opts());
    expect(plain.accepted).toBe(0); // the tcp member is not a certificate's: never dialled
    expect(r.certificates?.source).toBe('check');
    expect(r.certificates!.list.map((c) => [c.group, c.server, c.subject, c.daysLeft])).toEqual([
      ['tls', 'a', 'CN=long.test', 399], ['tls', 'c', 'CN=gone.test', -1], ['web', 'b', 'CN=short.test', 9],
    ]);
    const json = JSON.parse(JSON.stringify(r)) as typeof r;
    expect(json.certificates!.list[0]).toMatchObject({ address: '127.0.29.21', issuer: 'CN=long.test', sans: ['DNS:long.test'], sha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) });

    const md = reportMarkdown(r);
    expect(md).toContain('## Certificates');
    expect(md).toContain('**2 certificates expired or expiring within 30 days.**');
    expect(md).toMatch(/\| tls \| a `127\.0\.29\.21:\d+` \| CN=long\.test \| CN=long\.test \| DNS:long\.test \| \d{4}-\d\d-\d\dT[\d:]+Z \| 399 \| `[0-9A-F:]+` \|/);
    expect(md).toContain('| **9 (WARNING: expires in 9 days)** |');
    expect(md).toContain('| **-1 (EXPIRED: expired 1 day ago)** |');
    const html = reportHtml(r);
    expect(html).toContain('<strong class="warn">9 (WARNING: expires in 9 days)</strong>');
    expect(html).toContain('<strong class="bad">-1 (EXPIRED: expired 1 day ago)</strong>');
    expect(html).toContain('.bad{color:#cf222e}');
  }, 60_000);

  it('the running lab\'s latest results when it runs this file (nothing dialled); none offline', async () => {
    const member: MemberStatus = { key: 'g:tls/a:443', group: 'tls', server: 'a', address: '192.0.2.10', port: 443, check: 'ssl', layer: 7, state: 'available', score: 10, reason: 'ok', since: 1, consecutiveFailures: 0, consecutivePasses: 1 };
    const at = Date.UTC(2026, 11, 2);
    const result: CheckResult = { ok: true, reason: 'TLS handshake', evidence: {}, at, certificate: { subject: 'CN=lab.test', issuer: 'CN=ca.test', sans: ['DNS:lab.test'], notBefore: at - DAY, notAfter: at + 20 * DAY, sha256: 'AA:BB', daysLeft: 20 } };
    const lab = { status: { running: true, path, listening: [], members: [member], notes: [] }, changes: 0, latest: [{ key: member.key, result }] };
    const r = await collectReport(opts({ lab }));
    expect(r.certificates).toEqual({ source: 'lab', list: [{ group: 'tls', server: 'a', address: '192.0.2.10', port: 443, ...result.certificate, at }] });
    expect(reportMarkdown(r)).toContain("Seen by the lab's latest TLS checks");

    const offline = await collectReport(opts({ ask: false }));
    expect(offline.certificates).toEqual({ source: 'not-checked', note: 'offline report: the members were not checked', list: [] });
    expect(reportMarkdown(offline)).toContain('Not checked: offline report: the members were not checked.');
  }, 60_000);
});
