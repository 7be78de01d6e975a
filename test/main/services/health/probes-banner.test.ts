// Greeting dialogues (FTP, SMTP, POP3, IMAP4, NNTP), TELNET, RTSP, MMS and PNM against
// line-based and binary servers on loopback (127.0.4.30-39).
import { afterAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeContext, type ProbeType } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { startBannerServer, startMmsServer, startTcpListener, type BannerOptions, type Running } from '../../../helpers/servers';

const H = '127.0.4.30';
const open: Running[] = [];
afterAll(async () => Promise.all(open.map((s) => s.close())));
const ctx = (port: number, over: Partial<ProbeContext> = {}): ProbeContext => ({ address: H, port, timeoutMs: 1000, secrets: new MemorySecretStore(), check: { type: 'auto' }, ...over });
async function server(opts: BannerOptions) {
  const s = await startBannerServer(H, opts);
  open.push(s);
  return s;
}
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('greeting dialogues with a polite goodbye', () => {
  const cases: [ProbeType, string, string, string, string][] = [
    // type, good greeting, goodbye command, its answer, bad greeting
    ['ftp', '220-Welcome to lab FTP\r\n220 ready\r\n', 'QUIT', '221 Goodbye\r\n', '421 Too many users\r\n'],
    ['smtp', '220 mx.lab ESMTP\r\n', 'QUIT', '221 2.0.0 Bye\r\n', '554 No service\r\n'],
    ['pop3', '+OK POP3 ready\r\n', 'QUIT', '+OK bye\r\n', '-ERR maintenance\r\n'],
    ['imap4', '* OK [CAPABILITY IMAP4rev1] ready\r\n', 'a1 LOGOUT', '* BYE logging out\r\na1 OK LOGOUT completed\r\n', '* BYE server shutting down\r\n'],
    ['nntp', '201 news.lab ready (no posting)\r\n', 'QUIT', '205 closing\r\n', '502 access denied\r\n'],
  ];

  it.each(cases)('%s: the success greeting passes and the check says goodbye', async (type, good, bye, answer) => {
    const s = await server({ greeting: good, respond: (l) => (l === bye ? answer : undefined) });
    const r = await runProbe(type, ctx(s.port));
    expect(r.ok).toBe(true);
    expect(r.reason).toMatch(new RegExp(`^${type.toUpperCase()} greeting ".*" in `));
    expect(s.received).toEqual([bye]);
    expect(String(r.evidence.quitReply)).toBe(answer.trim().split('\r\n').pop());
  });

  it.each(cases)('%s: an error greeting fails with the banner as evidence', async (type, _good, _bye, _answer, badGreeting) => {
    const s = await server({ greeting: badGreeting });
    const r = await runProbe(type, ctx(s.port));
    expect(r.ok).toBe(false);
    expect(r.reason).toContain(`greeting "${badGreeting.trim()}" is not a`);
    expect(r.evidence.banner).toBe(badGreeting.trim());
  });

  it('a multi-line FTP greeting is read to its last line', async () => {
    const s = await server({ greeting: '220-one\r\n220-two\r\n220 three\r\n', respond: () => '221 bye\r\n' });
    const r = await runProbe('ftp', ctx(s.port));
    expect(r).toMatchObject({ ok: true, evidence: { greetingLines: 3, banner: '220-one | 220 three' } });
  });

  it('a silent server fails with a timeout that names the wait', async () => {
    const s = await server({ greeting: null });
    const r = await runProbe('smtp', ctx(s.port, { timeoutMs: 300 }));
    expect(r).toMatchObject({ ok: false, reason: 'timeout after 300 ms waiting for the SMTP greeting' });
  });

  it('a server that hangs up at once fails', async () => {
    const s = await server({ greeting: null, dropAtOnce: true });
    const r = await runProbe('pop3', ctx(s.port));
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^connection closed by the server waiting for the POP3 greeting|read ECONNRESET/);
  });

  it('a slow greeting counts as the response time', async () => {
    const s = await server({ greeting: '220 slow\r\n', delayMs: 150, respond: () => '221 bye\r\n' });
    const r = await runProbe('ftp', ctx(s.port));
    expect(r.ok).toBe(true);
    expect(r.rttMs!).toBeGreaterThanOrEqual(140);
  });
});

describe('TELNET', () => {
  it('option negotiation from the server passes', async () => {
    const s = await server({ greeting: Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20]) });
    const r = await runProbe('telnet', ctx(s.port));
    expect(r).toMatchObject({ ok: true, evidence: { negotiation: true, firstBytes: 'fffd18fffd20' } });
  });

  it('a login prompt passes too; silence fails', async () => {
    const s = await server({ greeting: 'login: ' });
    expect((await runProbe('telnet', ctx(s.port))).ok).toBe(true);
    const mute = await server({ greeting: null });
    expect(await runProbe('telnet', ctx(mute.port, { timeoutMs: 200 }))).toMatchObject({ ok: false, reason: 'timeout after 200 ms waiting for the TELNET server to speak' });
  });
});

describe('RTSP', () => {
  const rtsp = (status: string) => server({ greeting: null, respond: (l) => (l === '' ? `RTSP/1.0 ${status}\r\nCSeq: 1\r\nPublic: OPTIONS, DESCRIBE, SETUP\r\n\r\n` : undefined) });

  it('OPTIONS answered 200 passes, with the Public methods as evidence', async () => {
    const s = await rtsp('200 OK');
    const r = await runProbe('rtsp', ctx(s.port));
    expect(r).toMatchObject({ ok: true, evidence: { statusLine: 'RTSP/1.0 200 OK', public: 'OPTIONS, DESCRIBE, SETUP' } });
    expect(s.received.slice(0, 2)).toEqual(['OPTIONS * RTSP/1.0', 'CSeq: 1']);
  });

  it('a non-2xx status fails', async () => {
    const s = await rtsp('503 Service Unavailable');
    expect(await runProbe('rtsp', ctx(s.port))).toMatchObject({ ok: false, reason: 'OPTIONS answered RTSP/1.0 503 (not 2xx)' });
  });
});

describe('MMS (MS-MMSP connect handshake)', () => {
  it('ReportConnectedEX with hr S_OK passes; the client identifies itself as a player', async () => {
    const s = await startMmsServer(H);
    open.push(s);
    const r = await runProbe('mms', ctx(s.port));
    expect(r).toMatchObject({ ok: true, evidence: { mid: '0x00040001', hr: '0x00000000', serverVersion: '9.1' } });
    expect(s.received[0]).toMatch(/^NSPlayer\/9\.0\.0\.2980; \{[0-9a-f-]{36}\}; Host: 127\.0\.4\.30:\d+$/);
  });

  it('an error HRESULT fails', async () => {
    const s = await startMmsServer(H, 0x80070005);
    open.push(s);
    expect(await runProbe('mms', ctx(s.port))).toMatchObject({ ok: false, reason: 'MMS connect refused: hr 0x80070005' });
  });

  it('a server that does not speak MMS fails', async () => {
    const s = await server({ greeting: 'HTTP/1.0 400 Bad Request\r\n\r\n'.padEnd(40, ' ') });
    const r = await runProbe('mms', ctx(s.port));
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('not an MMS reply');
  });
});

describe('PNM (connection accepted and held)', () => {
  it('a listener that keeps the connection passes, and the check leaves with FIN', async () => {
    const l = await startTcpListener(H);
    open.push(l);
    const r = await runProbe('pnm', ctx(l.port));
    expect(r.ok).toBe(true);
    expect(r.reason).toContain('PNA handshake not attempted');
    await settle();
    expect(l.endings).toEqual(['end']);
  });

  it('a server that accepts and closes at once fails', async () => {
    const s = await server({ greeting: null, dropAtOnce: true });
    const r = await runProbe('pnm', ctx(s.port));
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^PNM server accepted, then .* within 100 ms$/);
  });
});
