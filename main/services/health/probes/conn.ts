// One TCP (or TLS) connection for a dialogue probe: awaitable reads, one deadline for the
// whole dialogue, and a clean close whatever happens. Every failure becomes a ProbeFailure
// whose reason says what was going on ("timeout after 5 s waiting for the greeting").
import net from 'node:net';
import tls from 'node:tls';
import { ProbeFailure, clip, deadline, errnoReason, fmtMs, stopwatch } from './util';
import type { Evidence, PeerCertificate } from './types';

type Take = (buf: Buffer, eof: boolean) => number;

export interface ConnOptions {
  /** Wrap in TLS: options for tls.connect (host and port are filled in). */
  tls?: tls.ConnectionOptions;
}

export class Conn {
  readonly elapsed = stopwatch();
  /** What the dialogue is doing, for timeout and close messages. */
  phase = 'connecting';
  connectMs?: number;
  handshakeMs?: number;
  readonly socket: net.Socket;
  private buf: Buffer = Buffer.alloc(0);
  private eof = false;
  private failure?: ProbeFailure;
  private pending?: { take: Take; resolve: (b: Buffer) => void; reject: (e: ProbeFailure) => void };
  private readonly timer: { clear(): void };
  private readonly ready: Promise<void>;

  constructor(address: string, port: number, readonly timeoutMs: number, opts: ConnOptions = {}) {
    this.timer = deadline(timeoutMs, () => this.abort(new ProbeFailure(`timeout after ${fmtMs(timeoutMs)} ${this.phase}`, { timeoutMs, phase: this.phase })));
    this.socket = opts.tls ? tls.connect({ ...opts.tls, host: address, port }) : net.connect({ host: address, port });
    this.ready = new Promise<void>((resolve, reject) => {
      this.socket.once('connect', () => {
        this.connectMs = this.elapsed();
        if (!opts.tls) {
          this.phase = 'after connecting';
          resolve();
        } else this.phase = 'in the TLS handshake';
      });
      this.socket.once('secureConnect', () => {
        this.handshakeMs = this.elapsed();
        this.phase = 'after the TLS handshake';
        resolve();
      });
      this.socket.setNoDelay(true);
      this.socket.on('data', (d: Buffer) => {
        this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
        this.pump();
      });
      this.socket.on('end', () => {
        this.eof = true;
        this.pump();
      });
      this.socket.on('error', (err) => {
        const failure = this.describe(err);
        reject(failure);
        this.abort(failure);
      });
      this.socket.on('close', () => {
        this.eof = true;
        // Closed by our own deadline (a server that never answers the handshake): that reason.
        reject(this.failure ?? new ProbeFailure(`connection closed ${this.phase}`));
        this.pump();
      });
    });
    this.ready.catch(() => undefined);
  }

  /** Resolves once connected (and the TLS handshake is done). */
  connected(): Promise<void> {
    return this.ready;
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** Reads until `take` says how many bytes it wants; `take` returns -1 to wait for more. */
  read(take: Take): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { take, resolve, reject };
      this.pump();
    });
  }

  /** One line without its CR LF (latin1, so any byte survives). */
  async line(max = 8192): Promise<string> {
    const b = await this.read((buf) => {
      const i = buf.indexOf(10);
      if (i >= 0) return i + 1;
      if (buf.length > max) throw new ProbeFailure(`line longer than ${max} bytes ${this.phase}`);
      return -1;
    });
    return b.toString('latin1').replace(/\r?\n$/, '');
  }

  /** Whatever has arrived, once at least one byte has. */
  some(): Promise<Buffer> {
    return this.read((buf) => (buf.length > 0 ? buf.length : -1));
  }

  /** Exactly n bytes. */
  bytes(n: number): Promise<Buffer> {
    return this.read((buf) => (buf.length >= n ? n : -1));
  }

  /** Everything until the server closes, or `max` bytes, whichever is first. */
  rest(max: number): Promise<Buffer> {
    return this.read((buf, eof) => (buf.length >= max ? max : eof ? buf.length : -1));
  }

  /** What has arrived and not been read, without waiting (may be empty). */
  buffered(): Buffer {
    return this.buf;
  }

  /** True once the peer has closed its side. */
  get ended(): boolean {
    return this.eof;
  }

  tlsEvidence(): Evidence {
    const s = this.socket;
    if (!(s instanceof tls.TLSSocket)) return {};
    const ev: Evidence = { tlsProtocol: s.getProtocol() ?? '', cipher: s.getCipher()?.name ?? '', authorized: s.authorized };
    if (!s.authorized && s.authorizationError) ev.authorizationError = String(s.authorizationError);
    const cert = s.getPeerCertificate();
    if (cert && Object.keys(cert).length > 0) {
      const cn = cert.subject?.CN;
      if (cn) ev.certSubject = Array.isArray(cn) ? cn.join(',') : cn;
      if (cert.valid_to) ev.certValidTo = cert.valid_to;
    }
    if (this.handshakeMs !== undefined) ev.handshakeMs = this.handshakeMs;
    return ev;
  }

  /** The certificate the server presented, whether or not it verifies. */
  certificate(): PeerCertificate | undefined {
    const s = this.socket;
    if (!(s instanceof tls.TLSSocket)) return undefined;
    const cert = s.getPeerCertificate();
    if (!cert || !cert.raw) return undefined;
    const notBefore = Date.parse(cert.valid_from);
    const notAfter = Date.parse(cert.valid_to);
    if (!Number.isFinite(notBefore) || !Number.isFinite(notAfter)) return undefined;
    return {
      subject: dn(cert.subject),
      issuer: dn(cert.issuer),
      sans: cert.subjectaltname ? cert.subjectaltname.split(/,\s*/).filter(Boolean).slice(0, 50).map((n) => clip(n, 200)) : [],
      notBefore,
      notAfter,
      sha256: cert.fingerprint256,
    };
  }

  /** Polite close (FIN); the socket is destroyed shortly after if the server lingers. */
  end(): void {
    this.timer.clear();
    if (this.socket.destroyed) return;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Abortive close (RST), as the ADX ends a Layer 4 check. */
  reset(): void {
    this.timer.clear();
    if (this.socket.destroyed) return;
    if (this.socket instanceof tls.TLSSocket) this.socket.destroy();
    else this.socket.resetAndDestroy();
  }

  /** Stops everything now; pending and later reads fail with this reason. */
  abort(failure: ProbeFailure): void {
    this.timer.clear();
    if (!this.failure) this.failure = failure;
    if (!this.socket.destroyed) this.socket.destroy();
    const p = this.pending;
    this.pending = undefined;
    p?.reject(this.failure);
  }

  private describe(err: Error): ProbeFailure {
    if (this.phase === 'in the TLS handshake') {
      const code = (err as NodeJS.ErrnoException).code;
      return new ProbeFailure(`TLS handshake failed: ${tlsWords(err)}`, code ? { errno: code } : {});
    }
    const { reason, evidence } = errnoReason(err, 'socket');
    return new ProbeFailure(this.connectMs === undefined || reason.startsWith('connect') ? reason : `${reason} ${this.phase}`, evidence);
  }

  private pump(): void {
    const p = this.pending;
    if (!p) return;
    if (this.failure) {
      this.pending = undefined;
      p.reject(this.failure);
      return;
    }
    let n: number;
    try {
      n = p.take(this.buf, this.eof);
    } catch (err) {
      this.pending = undefined;
      p.reject(err instanceof ProbeFailure ? err : new ProbeFailure(String(err)));
      return;
    }
    if (n >= 0) {
      this.pending = undefined;
      const out = this.buf.subarray(0, n);
      this.buf = this.buf.subarray(n);
      p.resolve(out);
    } else if (this.eof) {
      this.pending = undefined;
      p.reject(new ProbeFailure(`connection closed by the server ${this.phase}`, this.buf.length ? { partial: this.buf.length } : {}));
    }
  }
}

/** `CN=web.test, O=Example` from Node's parsed name (a field may repeat). */
function dn(name: tls.Certificate | undefined): string {
  if (!name) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(name as unknown as Record<string, string | string[]>)) {
    for (const one of Array.isArray(v) ? v : [v]) parts.push(`${k}=${one}`);
  }
  // The server writes these: one printable line, bounded.
  return clip(parts.join(', '), 300);
}

/**
 * Runs a dialogue on a fresh connection with one deadline; the body returns the outcome or
 * throws ProbeFailure. The connection is always closed (politely unless the body reset it).
 */
export async function dialogue<T extends { ok: boolean }>(
  address: string,
  port: number,
  timeoutMs: number,
  body: (c: Conn) => Promise<T>,
  opts: ConnOptions = {},
): Promise<T | ProbeFailure> {
  const c = new Conn(address, port, timeoutMs, opts);
  try {
    await c.connected();
    return await body(c);
  } catch (err) {
    if (err instanceof ProbeFailure) return err;
    throw err;
  } finally {
    if (c.socket.destroyed) c.abort(new ProbeFailure('closed'));
    else c.end();
  }
}

/**
 * An OpenSSL failure in words: "C0D7…:error:0A00010B:SSL routines:ssl3_get_record:wrong version
 * number" means the port does not speak TLS at all (most often plain HTTP).
 */
export function tlsWords(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const text = err.message;
  if (/WRONG_VERSION_NUMBER/.test(code) || /wrong version number|packet length too long|http request/i.test(text)) return 'the port does not speak TLS (it answered in plain text, e.g. HTTP)';
  if (/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL/.test(code) || /unsupported protocol|protocol version/i.test(text)) return 'no TLS version in common with the server';
  if (/HANDSHAKE_FAILURE/.test(code) || /handshake failure/i.test(text)) return 'the server refused the handshake (no cipher suite or certificate in common)';
  if (code === 'ECONNRESET') return 'the server reset the connection';
  // Otherwise the last part of OpenSSL's line, without its codes.
  const m = /(?:^|:)error:[0-9A-F]+:[^:]*:(?:[^:]*:)?([^:\n]+)\s*$/i.exec(text);
  return m ? m[1]!.trim() : text;
}
