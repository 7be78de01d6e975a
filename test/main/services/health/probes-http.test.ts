// HTTP/1.0, HTTPS and SSL probes against Node HTTP(S) servers on loopback (127.0.4.20-29).
import { existsSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { tlsWords } from '../../../../main/services/health/probes/conn';
import type { HealthCheck } from '../../../../shared/model/schema';
import { freePort, selfSignedCert, startBannerServer, startHttpServer, startHttpsServer, type HttpServer, type Running } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';

const H = '127.0.4.20';
const open: Running[] = [];
afterAll(async () => Promise.all(open.map((s) => s.close())));
const ctx = (port: number, check: HealthCheck, over: Partial<ProbeContext> = {}): ProbeContext => ({ address: H, port, timeoutMs: 1000, secrets: new MemorySecretStore(), check, ...over });
const http = (path?: string, expect?: string): HealthCheck => ({ type: 'http', http: { ...(path ? { path } : {}), ...(expect ? { expect } : {}) } });

let web: HttpServer;
beforeAll(async () => {
  web = await startHttpServer(H, (req, res) => {
    const u = req.url ?? '/';
    if (req.method === 'HEAD' && u === '/') {
      res.statusCode = Number(req.headers['x-status'] ?? 500);
      res.end();
    } else if (u === '/edge-in') res.end(`${'x'.repeat(998)}OK tail`); // "OK" occupies bytes 999-1000
    else if (u === '/edge-out') res.end(`${'x'.repeat(999)}OK tail`); // "OK" occupies bytes 1000-1001
    else if (u === '/status') res.end('status: OK\n');
    else if (u === '/chunked') {
      res.setHeader('Transfer-Encoding', 'chunked');
      res.write('x'.repeat(600));
      res.write(`${'y'.repeat(390)}READY`);
      res.end('z'.repeat(2000));
    } else if (u === '/slow') setTimeout(() => res.end('OK'), 2000);
    else {
      res.statusCode = 404;
      res.end('not here: OK');
    }
  });
  open.push(web);
});

describe('HTTP with an object (GET, HTTP/1.0, expect in the first 1000 bytes)', () => {
  it('passes when the string is in the body, and asks with HTTP/1.0', async () => {
    const r = await runProbe('http', ctx(web.port, http('/status', 'OK')));
    expect(r).toMatchObject({ ok: true, reason: 'HTTP/1.1 200, "OK" found in first 1000 bytes', evidence: { request: 'GET /status HTTP/1.0', status: 200 } });
    const seen = web.requests.at(-1)!;
    expect([seen.method, seen.url, seen.httpVersion]).toEqual(['GET', '/status', '1.0']);
    expect(seen.headers.host).toBe(`${H}:${web.port}`);
  });

  it('boundary: a string ending exactly at byte 1000 passes', async () => {
    const r = await runProbe('http', ctx(web.port, http('/edge-in', 'OK')));
    expect(r.ok).toBe(true);
    expect(r.evidence.expectAt).toBe(998);
  });

  it('boundary: a string ending at byte 1001 fails, and the reason says where it was', async () => {
    const r = await runProbe('http', ctx(web.port, http('/edge-out', 'OK')));
    expect(r).toMatchObject({ ok: false, reason: 'HTTP/1.1 200, "OK" not in first 1000 bytes (found at bytes 1000-1001)' });
  });

  it('a string that is absent fails', async () => {
    const r = await runProbe('http', ctx(web.port, http('/status', 'MISSING')));
    expect(r.ok).toBe(false);
    expect(r.reason).toBe('HTTP/1.1 200, "MISSING" not in first 1000 bytes (body is 11 bytes)');
  });

  it('an object that is not returned fails even if the body has the string', async () => {
    const r = await runProbe('http', ctx(web.port, http('/nope', 'OK')));
    expect(r).toMatchObject({ ok: false, evidence: { status: 404 } });
    expect(r.reason).toBe('GET /nope: HTTP/1.1 404 Not Found (object not returned)');
  });

  it('an object without an expect string passes on 2xx', async () => {
    expect(await runProbe('http', ctx(web.port, http('/status')))).toMatchObject({ ok: true, reason: 'GET /status: HTTP/1.1 200 (object returned)' });
  });

  it('de-chunks the body before looking at its first 1000 bytes', async () => {
    expect((await runProbe('http', ctx(web.port, http('/chunked', 'READY')))).ok).toBe(true);
    // 600 + 390 + "READY" = 995 bytes, then the z chunk: six z's straddle byte 1000.
    expect((await runProbe('http', ctx(web.port, http('/chunked', 'zzzzz')))).ok).toBe(true);
    const late = await runProbe('http', ctx(web.port, http('/chunked', 'zzzzzz')));
    expect(late.ok).toBe(false);
    expect(late.reason).toContain('found at bytes 996-1001');
  });

  it('a server slower than the timeout fails with a timeout', async () => {
    const r = await runProbe('http', ctx(web.port, http('/slow', 'OK'), { timeoutMs: 300 }));
    expect(r).toMatchObject({ ok: false, reason: 'timeout after 300 ms waiting for the response to GET /slow' });
  });
});

describe('HTTP without an object (HEAD /, anything returned passes)', () => {
  it('HEAD / with an error status still passes', async () => {
    const r = await runProbe('http', ctx(web.port, http()));
    expect(r).toMatchObject({ ok: true, reason: 'HEAD / answered HTTP/1.1 500 (any answer passes)', evidence: { request: 'HEAD / HTTP/1.0', status: 500 } });
    expect(web.requests.at(-1)).toMatchObject({ method: 'HEAD', url: '/', httpVersion: '1.0' });
  });

  it('a server that closes without answering fails', async () => {
    const mute = await startBannerServer(H, { greeting: null, respond: (l) => (l === '' ? 'CLOSE' : undefined) });
    open.push(mute);
    const r = await runProbe('http', ctx(mute.port, http()));
    expect(r).toMatchObject({ ok: false, reason: 'connection closed by the server waiting for the response to HEAD /' });
  });

  it('an answer that is not HTTP passes too: "if anything is returned, the check passes"', async () => {
    const smtp = await startBannerServer(H, { greeting: '220 mail ESMTP\r\n' });
    open.push(smtp);
    const r = await runProbe('http', ctx(smtp.port, http()));
    expect(r).toMatchObject({ ok: true, reason: 'HEAD / answered with non-HTTP bytes "220 mail ESMTP" (anything returned passes)', evidence: { answer: '220 mail ESMTP' } });
    expect(r.rttMs).toBeGreaterThanOrEqual(0);
  });

  it('with an object, an answer that is not HTTP fails', async () => {
    const smtp = await startBannerServer(H, { greeting: '220 mail ESMTP\r\n' });
    open.push(smtp);
    const r = await runProbe('http', ctx(smtp.port, http('/index.html')));
    expect(r).toMatchObject({ ok: false, reason: 'not an HTTP response: "220 mail ESMTP"' });
  });

  it('nothing listening fails with the errno', async () => {
    expect(await runProbe('http', ctx(await freePort(H), http()))).toMatchObject({ ok: false, reason: 'connect ECONNREFUSED' });
  });
});

const noOpenssl = existsSync('/usr/bin/openssl') || existsSync('/usr/local/bin/openssl') ? '' : ' (skipped: openssl is not installed, needed for a test certificate)';
describe.skipIf(skipBecause(noOpenssl, 'HTTPS and SSL probes'))(`HTTPS and SSL (TLS handshake)${noOpenssl}`, () => {
  let secure: HttpServer;
  beforeAll(async () => {
    secure = await startHttpsServer(H, (req, res) => res.end(req.url === '/ok' ? 'all OK' : 'nothing'), selfSignedCert('web.test', H));
    open.push(secure);
  });

  it('https: the HTTP check over TLS, with the certificate as evidence', async () => {
    const r = await runProbe('https', ctx(secure.port, { type: 'https', http: { path: '/ok', expect: 'OK' } }));
    expect(r.ok).toBe(true);
    expect(r.evidence).toMatchObject({ certSubject: 'web.test', authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(String(r.evidence.tlsProtocol)).toMatch(/^TLSv1\.[23]$/);
    expect((await runProbe('https', ctx(secure.port, { type: 'https', http: { path: '/', expect: 'OK' } }))).ok).toBe(false);
  });

  it('ssl: a completed handshake passes; with tls.verify an untrusted certificate fails', async () => {
    const r = await runProbe('ssl', ctx(secure.port, { type: 'ssl' }));
    expect(r.ok).toBe(true);
    expect(r.reason).toMatch(/^TLS handshake in .* \(TLSv1\.[23], /);
    const strict = await runProbe('ssl', ctx(secure.port, { type: 'ssl', tls: { verify: true } }));
    expect(strict).toMatchObject({ ok: false, reason: 'certificate not trusted: DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('ssl against a plain-text server fails the handshake', async () => {
    const r = await runProbe('ssl', ctx(web.port, { type: 'ssl' }));
    expect(r.ok).toBe(false);
    // In words, not OpenSSL's "C0D7…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number".
    expect(r.reason).toMatch(/^TLS handshake failed: the port does not speak TLS \(it answered in plain text, e\.g\. HTTP\)$|connection closed/);
  });

  it('ssl against a server that accepts and never answers: a timeout in the handshake, not "closed"', async () => {
    const mute = await startBannerServer(H, { greeting: null });
    open.push(mute);
    const r = await runProbe('ssl', ctx(mute.port, { type: 'ssl' }, { timeoutMs: 300 }));
    expect(r).toMatchObject({ ok: false, reason: 'timeout after 300 ms in the TLS handshake' });
  });

  it('OpenSSL failures in words', () => {
    const e = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
    expect(tlsWords(e('C0D7E4F1:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', 'ERR_SSL_WRONG_VERSION_NUMBER'))).toBe('the port does not speak TLS (it answered in plain text, e.g. HTTP)');
    expect(tlsWords(e('x:error:0A000102:SSL routines:tls_process_server_hello:unsupported protocol', 'ERR_SSL_UNSUPPORTED_PROTOCOL'))).toBe('no TLS version in common with the server');
    expect(tlsWords(e('x:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure', 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE'))).toBe('the server refused the handshake (no cipher suite or certificate in common)');
    expect(tlsWords(e('80:error:0A000086:SSL routines:tls_post_process_server_certificate:certificate verify failed'))).toBe('certificate verify failed');
    expect(tlsWords(e('socket hang up', 'ECONNRESET'))).toBe('the server reset the connection');
  });

  it('sends SNI only for names, never for IP addresses', async () => {
    const names: (string | false | null)[] = [];
    const srv = await startHttpsServer(H, (req, res) => {
      names.push((req.socket as TLSSocket).servername);
      res.end('OK');
    }, selfSignedCert('sni.test'));
    open.push(srv);
    await runProbe('https', ctx(srv.port, { type: 'https', http: { path: '/', host: 'sni.test' } }));
    await runProbe('https', ctx(srv.port, { type: 'https', http: { path: '/' } }));
    await runProbe('https', ctx(srv.port, { type: 'https', http: { path: '/' }, tls: { serverName: 'other.test', verify: false } }));
    expect(srv.requests.map((r) => r.headers.host)).toEqual(['sni.test', `${H}:${srv.port}`, `${H}:${srv.port}`]);
    expect(names).toEqual(['sni.test', false, 'other.test']);
  });
});
