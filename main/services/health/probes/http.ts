// HTTP (Px seed 004), over plain TCP or TLS. All requests are HTTP/1.0.
//  - with an object (`http.path`): GET it; it must be returned (2xx) and, with `http.expect`,
//    the string must lie wholly within the first 1000 bytes of the returned body;
//  - without an object: `HEAD /`, and anything returned passes ("If anything is returned, the
//    check passes"): any HTTP status, or bytes that are not HTTP at all.
import type { Conn } from './conn';
import { dialogue } from './conn';
import { tlsOptions, tlsVerdict, withCertificate } from './tls';
import type { Evidence, PeerCertificate, ProbeContext, ProbeOutcome } from './types';
import { CONTROL, httpTarget } from '../../../../shared/model/text-rules';
import { ProbeFailure, clip, fail, hostForUrl, pass, dialOf, portFor } from './util';

/** How much of the body the Px check looks at: it decides once these bytes are in. */
export const EXPECT_WINDOW = 1000;
const MAX_HEADER = 64 * 1024;

interface Head {
  statusLine: string;
  version: string;
  status: number;
  headers: Map<string, string>;
  firstByteMs: number;
  /** For HEAD: the first bytes of an answer that is not HTTP. */
  other?: string;
}

export function httpProbe(ctx: ProbeContext, secure = false): Promise<ProbeOutcome> {
  const port = portFor(ctx, secure ? 'https' : 'http');
  const http = ctx.check.http ?? {};
  // An expect string without an object makes no sense on HEAD: fetch `/` and look in it.
  const path = http.path ?? (http.expect ? '/' : undefined);
  const method = path === undefined ? 'HEAD' : 'GET';
  // The request line and headers are CRLF-delimited: the path is percent-encoded as the HAProxy
  // render does it (CR, LF, spaces included), and a Host that would end its header is refused.
  const target = httpTarget(path ?? '/');
  const defaultPort = secure ? 443 : 80;
  const host = http.host ?? (port === defaultPort ? hostForUrl(ctx.address) : `${hostForUrl(ctx.address)}:${port}`);
  if (CONTROL.test(host) || /\s/.test(host)) return Promise.resolve(fail(`http.host "${clip(host, 60)}" cannot be sent: it holds a space or a control character`));
  const request = `${method} ${target} HTTP/1.0\r\nHost: ${host}\r\nUser-Agent: lbdesk-health/1\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
  const tls = secure ? tlsOptions(ctx, http.host) : undefined;
  let cert: PeerCertificate | undefined;

  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    const base: Evidence = {};
    if (tls) {
      cert = c.certificate();
      const verdict = tlsVerdict(ctx, c);
      Object.assign(base, verdict.evidence);
      if (!verdict.ok) return fail(verdict.reason, base);
    }
    c.phase = `waiting for the response to ${method} ${target}`;
    c.write(request);
    const head = await readHead(c, method === 'HEAD');
    if (head.other !== undefined) {
      Object.assign(base, { request: 'HEAD / HTTP/1.0', answer: clip(head.other, 60), connectMs: c.connectMs ?? 0, firstByteMs: head.firstByteMs });
      return pass(`HEAD / answered with non-HTTP bytes "${clip(head.other, 40)}" (anything returned passes)`, base, head.firstByteMs);
    }
    Object.assign(base, { request: `${method} ${target} HTTP/1.0`, statusLine: clip(head.statusLine), status: head.status, connectMs: c.connectMs ?? 0, firstByteMs: head.firstByteMs });
    const code = `HTTP/${head.version} ${head.status}`;
    if (method === 'HEAD') {
      return pass(`HEAD / answered ${code} (any answer passes)`, base, head.firstByteMs);
    }
    if (head.status < 200 || head.status > 299) {
      return fail(`GET ${target}: ${code}${head.statusLine.length > 12 ? ` ${clip(head.statusLine.slice(13), 60)}` : ''} (object not returned)`, base, head.firstByteMs);
    }
    if (http.expect === undefined) {
      return pass(`GET ${target}: ${code} (object returned)`, base, head.firstByteMs);
    }
    c.phase = `reading the body of ${target}`;
    const window = await readWindow(c, head);
    // Decided: the response time is the time to this decision, not to the whole object.
    const ms = c.elapsed();
    const needle = Buffer.from(http.expect, 'utf8');
    const at = window.indexOf(needle);
    const ev = { ...base, bodyBytesRead: window.length, decidedMs: ms };
    if (at >= 0) return pass(`${code}, "${clip(http.expect, 60)}" found in first ${EXPECT_WINDOW} bytes`, { ...ev, expectAt: at }, ms);
    // Only what has already arrived is searched further, to say where the string was instead.
    const seen = Buffer.concat([window, c.buffered()]);
    const later = seen.indexOf(needle);
    const where = later >= 0 ? ` (found at bytes ${later + 1}-${later + needle.length})` : window.length < EXPECT_WINDOW ? ` (body is ${window.length} bytes)` : '';
    return fail(`${code}, "${clip(http.expect, 60)}" not in first ${EXPECT_WINDOW} bytes${where}`, ev, ms);
  }, { tls }).then((r) => withCertificate(r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r, cert));
}

/**
 * The status line (`statusOnly`, for HEAD) or the whole header. For HEAD anything returned
 * counts, so an answer that is not HTTP comes back as `other` instead of failing.
 */
async function readHead(c: Conn, statusOnly: boolean): Promise<Head> {
  let firstByteMs: number | undefined;
  let other: string | undefined;
  const raw = await c.read((buf, eof) => {
    if (buf.length > 0 && firstByteMs === undefined) firstByteMs = c.elapsed();
    const lead = buf.subarray(0, 5).toString('latin1');
    if (!(lead.length === 5 ? lead === 'HTTP/' : 'HTTP/'.startsWith(lead)) || (eof && buf.length < 5 && buf.length > 0)) {
      const text = buf.subarray(0, 60).toString('latin1');
      if (statusOnly) {
        other = text;
        return buf.length;
      }
      throw new ProbeFailure(`not an HTTP response: "${clip(text, 60)}"`);
    }
    const end = statusOnly ? lineEnd(buf) : headerEnd(buf);
    if (end >= 0) return end;
    if (buf.length > MAX_HEADER) throw new ProbeFailure(`response header longer than ${MAX_HEADER} bytes`);
    // A server may close right after the status line or the headers without a blank line.
    return eof && buf.length > 0 ? buf.length : -1;
  });
  if (other !== undefined) return { statusLine: '', version: '', status: 0, headers: new Map(), firstByteMs: firstByteMs ?? c.elapsed(), other };
  const lines = raw.toString('latin1').split(/\r?\n/);
  const statusLine = lines[0] ?? '';
  const m = /^HTTP\/(\d(?:\.\d)?) (\d{3})(?: .*)?$/.exec(statusLine);
  if (!m) throw new ProbeFailure(`malformed status line "${clip(statusLine, 80)}"`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { statusLine, version: m[1]!, status: Number(m[2]), headers, firstByteMs: firstByteMs ?? c.elapsed() };
}

function lineEnd(b: Buffer): number {
  const i = b.indexOf(10);
  return i < 0 ? -1 : i + 1;
}

function headerEnd(b: Buffer): number {
  const crlf = b.indexOf('\r\n\r\n');
  const lf = b.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return crlf + 4;
  return lf >= 0 ? lf + 2 : -1;
}

/** The first EXPECT_WINDOW bytes of the body, de-chunked: resolves as soon as they are in or the body ends. */
async function readWindow(c: Conn, head: Head): Promise<Buffer> {
  const te = head.headers.get('transfer-encoding')?.toLowerCase() ?? '';
  if (te.includes('chunked')) {
    const parts: Buffer[] = [];
    let total = 0;
    while (total < EXPECT_WINDOW) {
      const sizeLine = await c.line();
      const size = Number.parseInt(sizeLine.split(';')[0]!.trim(), 16);
      if (!Number.isFinite(size)) throw new ProbeFailure(`bad chunk size "${clip(sizeLine, 40)}"`);
      if (size === 0) break;
      // A large chunk is read only as far as the window needs.
      const take = Math.min(size, EXPECT_WINDOW - total);
      parts.push(await c.bytes(take));
      total += take;
      if (take === size) await c.line();
    }
    return Buffer.concat(parts);
  }
  const length = Number(head.headers.get('content-length'));
  const want = Number.isFinite(length) && length >= 0 ? Math.min(length, EXPECT_WINDOW) : EXPECT_WINDOW;
  return c.rest(want);
}
