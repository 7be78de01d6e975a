// A backend's HAProxy health check as an lbdesk health check, with what had to change.
import type { CfgLine } from './haproxy-parse';
import { splitWords } from './haproxy-parse';

export interface ImportedCheck {
  check: Record<string, unknown>;
  notes: string[];
}

/** The tcp-check sequences lbdesk renders for banner protocols (drivers/haproxy-checks; check-types.test.ts holds them equal). */
const BANNERS: [string, string[]][] = [
  ['ftp', ['tcp-check expect rstring ^220', 'tcp-check send QUIT\\r\\n']],
  ['pop3', ['tcp-check expect string +OK', 'tcp-check send QUIT\\r\\n']],
  ['imap4', ['tcp-check expect string "* OK"', 'tcp-check send "a1 LOGOUT\\r\\n"']],
  ['nntp', ['tcp-check expect rstring ^20[01]', 'tcp-check send QUIT\\r\\n']],
  ['rtsp', ['tcp-check send "OPTIONS * RTSP/1.0\\r\\nCSeq: 1\\r\\n\\r\\n"', 'tcp-check expect rstring ^RTSP/1[.][01][[:space:]]200']],
];
const wordsOf = (l: string): string => splitWords(l).map((w) => w.text).join('\u0000');
const BANNER_KEYS = BANNERS.map(([type, lines]) => [type, lines.map(wordsOf).join('\n')] as const);

/** The first expectations of a hand-written sequence that name a banner protocol. */
const BANNER_GUESS: [RegExp, string][] = [
  [/^expect\0r?string\0\^?220/, 'ftp'],
  [/^expect\0r?string\0\^?\+OK/, 'pop3'],
  [/^expect\0r?string\0\^?\* OK/, 'imap4'],
];

interface TlsServer {
  ssl: boolean;
  verify: boolean;
  sni?: string;
}

export function importCheck(lines: CfgLine[], tls: TlsServer, anyCheck: boolean): ImportedCheck {
  const notes: string[] = [];
  if (!anyCheck) return { check: { type: 'none' }, notes };
  const w = (l: CfgLine): string[] => l.words.map((x) => x.text);
  const option = lines.map(w).find((x) => x[0] === 'option');
  const kind = option?.[1];
  if (kind === 'httpchk') return httpCheck(lines.map(w), option!, tls, notes);
  if (kind === 'smtpchk') return { check: { type: 'smtp' }, notes };
  if (kind === 'ldap-check') return { check: { type: 'ldap' }, notes: ['option ldap-check (an anonymous bind) imported as an LDAP check; lbdesk also searches the base DN ""'] };
  if (kind === 'ssl-hello-chk') return { check: { type: 'ssl' }, notes: ['ssl-hello-chk (an SSLv3 hello) imported as a full TLS handshake check'] };
  if (kind && kind !== 'tcp-check') {
    notes.push(`option ${kind}: lbdesk has no such check; TCP connect check in the lab`);
    return { check: { type: 'tcp' }, notes };
  }
  const steps = lines.map(w).filter((x) => x[0] === 'tcp-check' && x[1] !== 'comment');
  const body = steps.filter((x) => x[1] !== 'connect');
  if (body.length) {
    const key = body.map((x) => x.join('\u0000')).join('\n');
    const exact = BANNER_KEYS.find(([, k]) => k === key);
    if (exact) return { check: { type: exact[0] }, notes };
    const first = body[0]!.slice(1).join('\u0000');
    const guess = BANNER_GUESS.find(([re]) => re.test(first));
    if (guess) {
      notes.push(`tcp-check sequence (${body.length} steps) imported as the ${guess[1].toUpperCase()} banner check`);
      return { check: { type: guess[1] }, notes };
    }
    notes.push(`tcp-check sequence (${body.length} steps) is not modelled: TCP connect check in the lab`);
  }
  if (tls.ssl) return { check: tlsPart({ type: 'ssl' }, tls, undefined), notes };
  return { check: { type: 'tcp' }, notes };
}

function tlsPart(check: Record<string, unknown>, tls: TlsServer, host: string | undefined): Record<string, unknown> {
  const t: Record<string, unknown> = {};
  if (tls.sni && tls.sni !== host) t.serverName = tls.sni;
  if (tls.verify) t.verify = true;
  if (Object.keys(t).length) check.tls = t;
  return check;
}

function httpCheck(lines: string[][], option: string[], tls: TlsServer, notes: string[]): ImportedCheck {
  let method = 'OPTIONS';
  let uri = '/';
  let host: string | undefined;
  // Old form: option httpchk [METH] URI [VERSION with \r\n headers].
  const args = option.slice(2);
  if (args.length === 1) uri = args[0]!;
  else if (args.length >= 2) [method, uri] = [args[0]!, args[1]!];
  const version = args[2];
  if (version) {
    const m = /\r\nHost:\s*([^\r\n]+)/i.exec(version);
    if (m) host = m[1]!.trim();
  }
  const expects: string[][] = [];
  for (const l of lines) {
    if (l[0] !== 'http-check') continue;
    if (l[1] === 'send') {
      for (let i = 2; i < l.length; i += 2) {
        const k = l[i];
        const v = l[i + 1];
        if (k === 'meth' && v) method = v;
        else if (k === 'uri' && v) uri = v;
        else if (k === 'hdr' && v) {
          if (v.toLowerCase() === 'host') host = l[i + 2];
          i++;
        }
      }
    } else if (l[1] === 'expect') expects.push(l.slice(2));
  }
  const http: Record<string, unknown> = {};
  let anyStatus = false;
  for (const e of expects) {
    const [what, value] = e[0] === '!' ? ['!', ''] : [e[0], e[1]];
    if (what === 'string' && value) {
      http.expect = value;
      notes.push(`http-check expect string: lbdesk's lab looks for "${value}" in the first 1000 bytes only`);
    } else if (what === 'status' && (value === '200-299' || value === '200')) {
      if (value === '200') notes.push('http-check expect status 200: lbdesk accepts any 2xx');
    } else if (what === 'rstatus' && value === '^[1-5][0-9][0-9]$') {
      anyStatus = true;
    } else notes.push(`http-check expect ${e.join(' ')}: not modelled (lbdesk expects a 2xx status)`);
  }
  if (method === 'HEAD' && uri === '/' && (anyStatus || !expects.length)) {
    if (!anyStatus) notes.push('HEAD / expecting 2xx/3xx: lbdesk passes any answer to HEAD /');
  } else {
    if (method !== 'GET') notes.push(`${method} ${uri}: lbdesk sends GET ${uri}`);
    http.path = uri.startsWith('/') ? uri : `/${uri}`;
  }
  if (host) http.host = host;
  const check: Record<string, unknown> = { type: tls.ssl ? 'https' : 'http' };
  if (Object.keys(http).length) check.http = http;
  return { check: tls.ssl ? tlsPart(check, tls, host) : check, notes };
}
