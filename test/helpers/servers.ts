// Real servers on loopback for tests: TCP listener, HTTP(S), greeting (banner) servers, MMS,
// UDP sink, DNS (dns-packet) and RADIUS (RFC 2865/5997, written from the RFCs independently of
// the health probes). Every helper binds port 0 unless told otherwise and returns close().
import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';

export interface Running {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** A port that was free a moment ago on host (bind 0, read, release). */
export async function freePort(host: string, proto: 'tcp' | 'udp' = 'tcp'): Promise<number> {
  if (proto === 'udp') {
    const s = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    await new Promise<void>((r) => s.bind(0, host, () => r()));
    const port = s.address().port;
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, host, () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

function closer(server: net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('error', () => undefined); // a health check may end with RST
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

export interface TcpListener extends Running {
  /** Connections accepted so far. */
  accepted: number;
  /** How each accepted connection ended: 'reset' (RST), 'end' (FIN). */
  endings: string[];
}

/** A plain TCP listener that accepts and waits; records whether clients left with RST or FIN. */
export async function startTcpListener(host: string, port = 0): Promise<TcpListener> {
  const server = net.createServer();
  const sockets = track(server);
  const out = { host, port: 0, accepted: 0, endings: [] as string[], close: closer(server, sockets) };
  server.on('connection', (s) => {
    out.accepted += 1;
    s.on('error', (e: NodeJS.ErrnoException) => out.endings.push(e.code === 'ECONNRESET' ? 'reset' : String(e.code)));
    s.on('end', () => {
      out.endings.push('end');
      s.end();
    });
  });
  out.port = await listen(server, host, port);
  return out;
}

export interface HttpServer extends Running {
  url: string;
  requests: { method: string; url: string; httpVersion: string; headers: http.IncomingHttpHeaders }[];
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A Node HTTP server (answers HTTP/1.0 requests as HTTP/1.1 responses, like most servers). */
export async function startHttpServer(host: string, handler: Handler, port = 0): Promise<HttpServer> {
  return serveHttp(http.createServer(), host, handler, port, 'http');
}

export async function startHttpsServer(host: string, handler: Handler, tls: { key: string; cert: string }, port = 0): Promise<HttpServer> {
  return serveHttp(https.createServer(tls), host, handler, port, 'https');
}

async function serveHttp(server: http.Server, host: string, handler: Handler, port: number, scheme: string): Promise<HttpServer> {
  const sockets = track(server);
  const out: HttpServer = { host, port: 0, url: '', requests: [], close: closer(server, sockets) };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    out.requests.push({ method: req.method ?? '', url: req.url ?? '', httpVersion: req.httpVersion, headers: req.headers });
    handler(req, res);
  });
  out.port = await listen(server, host, port);
  out.url = `${scheme}://${host}:${out.port}`;
  return out;
}

/** ' (skipped: …)' when the system openssl that selfSignedCert needs is missing, else ''. */
export const noOpenssl = existsSync('/usr/bin/openssl') || existsSync('/usr/local/bin/openssl') ? '' : ' (skipped: openssl is not installed, needed for test certificates)';

/**
 * A throwaway self-signed certificate from the system openssl (key and cert PEM), valid for
 * `days` from now; `days: -1` makes one that expired a day ago (re-signed with `x509 -days -1`,
 * which OpenSSL 3.0 allows, so no fake clock is needed).
 */
export function selfSignedCert(commonName: string, ipSan?: string, days = 2): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-cert-'));
  try {
    const san = ipSan ? `IP:${ipSan}` : `DNS:${commonName}`;
    const k = join(dir, 'k.pem');
    const c = join(dir, 'c.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', String(Math.max(days, 1)),
      '-subj', `/CN=${commonName}`, '-addext', `subjectAltName=${san}`, '-keyout', k, '-out', c], { stdio: 'ignore' });
    if (days < 1) execFileSync('openssl', ['x509', '-in', c, '-signkey', k, '-days', String(days), '-out', c], { stdio: 'ignore' });
    return { key: readFileSync(k, 'utf8'), cert: readFileSync(c, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bare TLS server (node:tls) that completes the handshake and closes: what an `ssl` check meets. */
export async function startTlsServer(host: string, creds: { key: string; cert: string }, port = 0): Promise<Running> {
  const server = tls.createServer(creds, (s) => s.end());
  server.on('tlsClientError', () => undefined); // a check may hang up mid-handshake
  const sockets = track(server);
  return { host, port: await listen(server, host, port), close: closer(server, sockets) };
}

export interface BannerServer extends Running {
  /** Lines received from clients, in order. */
  received: string[];
  connections: number;
}

export interface BannerOptions {
  /** Written on connect (null: say nothing until spoken to). */
  greeting: string | Buffer | null;
  /** Answer to each received line (undefined: no answer). Return 'CLOSE' to hang up. */
  respond?: (line: string) => string | undefined;
  /** Wait this long before the greeting (a slow server). */
  delayMs?: number;
  /** Hang up right after accepting, saying nothing. */
  dropAtOnce?: boolean;
}

/** A line-based TCP server: FTP, SMTP, POP3, IMAP4, NNTP, TELNET, RTSP greetings and replies. */
export async function startBannerServer(host: string, opts: BannerOptions, port = 0): Promise<BannerServer> {
  const server = net.createServer();
  const sockets = track(server);
  const out: BannerServer = { host, port: 0, received: [], connections: 0, close: closer(server, sockets) };
  server.on('connection', (s) => {
    out.connections += 1;
    if (opts.dropAtOnce) {
      s.end();
      return;
    }
    const greet = () => {
      if (opts.greeting !== null && !s.destroyed) s.write(opts.greeting);
    };
    if (opts.delayMs) setTimeout(greet, opts.delayMs);
    else greet();
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).replace(/\r$/, '');
        buf = buf.slice(i + 1);
        out.received.push(line);
        const answer = opts.respond?.(line);
        if (answer === 'CLOSE') s.end();
        else if (answer !== undefined) s.write(answer);
      }
    });
    s.on('end', () => s.end());
  });
  out.port = await listen(server, host, port);
  return out;
}

/**
 * An MMS (MS-MMSP) server that answers LinkViewerToMacConnect with ReportConnectedEX
 * carrying `hr`, and records the subscriber name the client sent.
 */
export async function startMmsServer(host: string, hr = 0, port = 0): Promise<BannerServer> {
  const server = net.createServer();
  const sockets = track(server);
  const out: BannerServer = { host, port: 0, received: [], connections: 0, close: closer(server, sockets) };
  server.on('connection', (s) => {
    out.connections += 1;
    let buf = Buffer.alloc(0);
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 32) return;
      const len = buf.readUInt32LE(8) + 16; // messageLength counts the message plus 16
      if (buf.length < len) return;
      const ok = buf.readUInt32LE(4) === 0xb00bface && buf.subarray(12, 16).toString('latin1') === 'MMS ';
      const mid = buf.readUInt32LE(36);
      if (!ok || mid !== 0x00030001) {
        out.received.push(`bad packet ${buf.subarray(0, 40).toString('hex')}`);
        s.destroy();
        return;
      }
      out.received.push(buf.subarray(52, len).toString('utf16le').replace(/\0.*$/s, ''));
      const version = Buffer.from('9.1\0', 'utf16le');
      const body = Buffer.alloc(Math.ceil((64 + version.length) / 8) * 8);
      body.writeUInt32LE(body.length / 8, 0);
      body.writeUInt32LE(0x00040001, 4);
      body.writeUInt32LE(hr >>> 0, 8);
      body.writeUInt32LE(0xf0f0f0ef, 12);
      body.writeUInt32LE(0x0004000b, 16);
      body.writeUInt32LE(0x0003001c, 20);
      body.writeDoubleLE(1.0, 24);
      body.writeUInt32LE(1, 32);
      body.writeUInt32LE(1, 36);
      body.writeUInt32LE(0x8000, 40);
      body.writeUInt32LE(0x00989680, 44);
      body.writeUInt32LE(version.length / 2, 48);
      version.copy(body, 64);
      const head = Buffer.alloc(32);
      head.writeUInt8(1, 0);
      head.writeUInt32LE(0xb00bface, 4);
      head.writeUInt32LE(body.length + 16, 8);
      head.write('MMS ', 12, 'latin1');
      head.writeUInt32LE((body.length + 16) / 8, 16);
      s.write(Buffer.concat([head, body]));
      buf = Buffer.alloc(0);
    });
  });
  out.port = await listen(server, host, port);
  return out;
}

export interface UdpServer extends Running {
  received: Buffer[];
}

function udpBind(host: string, port: number, onMessage: (s: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo) => void): Promise<UdpServer> {
  const s = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  const out: UdpServer = { host, port: 0, received: [], close: () => new Promise((r) => s.close(() => r())) };
  s.on('message', (msg, rinfo) => {
    out.received.push(msg);
    onMessage(s, msg, rinfo);
  });
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.bind(port, host, () => {
      out.port = s.address().port;
      resolve(out);
    });
  });
}

/** A bound UDP port that never answers: the "silence means up" case. */
export function startUdpSink(host: string, port = 0): Promise<UdpServer> {
  return udpBind(host, port, () => undefined);
}

export interface DnsAnswer {
  rcode?: string;
  answers?: dnsPacket.Answer[];
  /** Do not answer at all. */
  silent?: boolean;
}

/** A DNS server over UDP: `answer` decides the reply to each question. */
export function startDnsServer(host: string, answer: (q: dnsPacket.Question) => DnsAnswer, port = 0): Promise<UdpServer> {
  return udpBind(host, port, (s, msg, rinfo) => {
    const query = dnsPacket.decode(msg);
    const q = query.questions?.[0];
    if (!q) return;
    const a = answer(q);
    if (a.silent) return;
    const rcodes: Record<string, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | (rcodes[a.rcode ?? 'NOERROR'] ?? 2),
      questions: [q],
      answers: a.answers ?? [],
    });
    s.send(reply, rinfo.port, rinfo.address);
  });
}

export interface RadiusOptions {
  /** The server's shared secret. */
  secret: string;
  /** Reply code to an authentic request: 2 Access-Accept, 3 Access-Reject; 0 = stay silent. */
  reply: number;
  /** Sign replies with this secret instead (a server configured with another secret). */
  signWith?: string;
}

/**
 * A RADIUS server per RFC 2865 / 5997: drops requests whose Message-Authenticator does not
 * verify (as RFC 5997 requires), answers the rest with a correctly signed reply.
 */
export function startRadiusServer(host: string, opts: RadiusOptions, port = 0): Promise<UdpServer & { verified: number; dropped: number }> {
  const stats = { verified: 0, dropped: 0 };
  return udpBind(host, port, (s, msg, rinfo) => {
    const secret = Buffer.from(opts.secret);
    const auth = msg.subarray(4, 20);
    // Find Message-Authenticator (type 80) and verify HMAC-MD5 over the packet with it zeroed.
    let off = 20;
    let maAt = -1;
    while (off + 2 <= msg.length) {
      const type = msg[off]!;
      const len = msg[off + 1]!;
      if (len < 2) break;
      if (type === 80) maAt = off + 2;
      off += len;
    }
    if (maAt < 0) {
      stats.dropped += 1;
      return;
    }
    const copy = Buffer.from(msg);
    copy.fill(0, maAt, maAt + 16);
    const mac = createHmac('md5', secret).update(copy).digest();
    if (!mac.equals(msg.subarray(maAt, maAt + 16))) {
      stats.dropped += 1;
      return;
    }
    stats.verified += 1;
    if (opts.reply === 0) return;
    const reply = Buffer.alloc(20);
    reply[0] = opts.reply;
    reply[1] = msg[1]!;
    reply.writeUInt16BE(20, 2);
    const signer = Buffer.from(opts.signWith ?? opts.secret);
    createHash('md5').update(reply.subarray(0, 4)).update(auth).update(signer).digest().copy(reply, 4);
    s.send(reply, rinfo.port, rinfo.address);
  }).then((u) =>
    Object.defineProperties(u, {
      verified: { get: () => stats.verified },
      dropped: { get: () => stats.dropped },
    }) as UdpServer & { verified: number; dropped: number },
  );
}

/**
 * An HTTP health page: 200 "OK" while `ctl.healthy`, else 503, each answer after `ctl.delayMs`;
 * counts the hits and the most requests in flight at once.
 */
export async function startHealthServer(host: string): Promise<{ srv: HttpServer; port: number; ctl: { healthy: boolean; delayMs: number; inFlight: number; maxInFlight: number; hits: number } }> {
  const ctl = { healthy: true, delayMs: 0, inFlight: 0, maxInFlight: 0, hits: 0 };
  const srv = await startHttpServer(host, (_req, res) => {
    ctl.hits += 1;
    ctl.inFlight += 1;
    ctl.maxInFlight = Math.max(ctl.maxInFlight, ctl.inFlight);
    setTimeout(() => {
      ctl.inFlight -= 1;
      res.statusCode = ctl.healthy ? 200 : 503;
      res.end(ctl.healthy ? 'OK' : 'down');
    }, ctl.delayMs);
  });
  return { srv, port: srv.port, ctl };
}
