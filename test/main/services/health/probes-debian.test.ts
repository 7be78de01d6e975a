// Probes against real Debian servers on loopback (127.0.4.30-39): nginx with a rate limit for
// the HTTP body window, dnsmasq answering a TXT record for the DNS answer text.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import type { HealthCheck } from '../../../../shared/model/schema';
import { nginxMissing, startNginx, type Nginx } from '../../../helpers/nginx';
import { freePort } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';

const ctx = (address: string, port: number, check: HealthCheck, timeoutMs: number): ProbeContext => ({ address, port, timeoutMs, secrets: new MemorySecretStore(), check });

describe.skipIf(skipBecause(nginxMissing, 'HTTP probe against nginx'))(`HTTP GET with expect against nginx with limit_rate${nginxMissing ? ` (skipped: ${nginxMissing})` : ''}`, () => {
  let web: Nginx;
  // 1000 bytes/s: the first second's worth comes at once, the window is complete after about
  // a second, the whole 8000-byte object only after about seven.
  beforeAll(async () => {
    web = await startNginx('127.0.4.30', { 'big.html': `<p>READY</p>${'x'.repeat(7988)}` }, ['limit_rate 1000;']);
  });
  afterAll(async () => web?.stop());

  it('decides once the first 1000 body bytes are in, and times the decision, not the object', async () => {
    const r = await runProbe('http', ctx(web.host, web.port, { type: 'http', http: { path: '/big.html', expect: 'READY' } }, 3500));
    expect(r.reason).toBe('HTTP/1.1 200, "READY" found in first 1000 bytes');
    expect(r.ok).toBe(true);
    expect(r.evidence).toMatchObject({ bodyBytesRead: 1000, expectAt: 3 });
    expect(r.rttMs).toBe(r.evidence.decidedMs);
    expect(r.rttMs!).toBeLessThan(3500);
  });

  it('a string beyond the window fails as soon as the window is in', async () => {
    const r = await runProbe('http', ctx(web.host, web.port, { type: 'http', http: { path: '/big.html', expect: 'MISSING' } }, 3500));
    expect(r).toMatchObject({ ok: false, reason: 'HTTP/1.1 200, "MISSING" not in first 1000 bytes', evidence: { bodyBytesRead: 1000 } });
  });
});

const DNSMASQ = ['/usr/sbin/dnsmasq', '/usr/local/sbin/dnsmasq'].find((p) => existsSync(p));
const noDnsmasq = DNSMASQ ? '' : ' (skipped: dnsmasq is not installed: apt-get install dnsmasq-base)';
describe.skipIf(skipBecause(noDnsmasq, 'DNS probe against dnsmasq'))(`DNS answers as text, from dnsmasq${noDnsmasq}`, () => {
  const H = '127.0.4.31';
  let port = 0;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    port = await freePort(H, 'udp');
    child = spawn(DNSMASQ!, [
      '--no-daemon', '--conf-file=/dev/null', '--no-resolv', '--no-hosts', '--pid-file=', '--user=root',
      `--listen-address=${H}`, '--bind-interfaces', `--port=${port}`,
      '--txt-record=txt.lab.test,hello world', '--mx-host=lab.test,mail.lab.test,10',
    ], { stdio: 'ignore' });
    // Ready once it answers: poll with the probe itself, bounded.
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const r = await runProbe('dns', ctx(H, port, { type: 'dns', dns: { query: 'txt.lab.test', recordType: 'TXT' } }, 200));
      if (r.ok) break;
    }
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('a TXT answer is printed as its quoted text', async () => {
    const r = await runProbe('dns', ctx(H, port, { type: 'dns', dns: { query: 'txt.lab.test', recordType: 'TXT' } }, 2000));
    expect(r.ok).toBe(true);
    expect(r.evidence.firstAnswer).toBe('TXT "hello world"');
    expect(r.reason).toMatch(/^TXT txt\.lab\.test: NOERROR, 1 answer\(s\) \(TXT "hello world"\) in /);
  });

  it('an MX answer is printed as preference and exchange', async () => {
    const r = await runProbe('dns', ctx(H, port, { type: 'dns', dns: { query: 'lab.test', recordType: 'MX' } }, 2000));
    expect(r).toMatchObject({ ok: true, evidence: { firstAnswer: 'MX 10 mail.lab.test' } });
  });
});
