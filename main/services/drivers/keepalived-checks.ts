// Health checkers in keepalived terms: one checker block per real server.
import type { CheckType, HealthCheck } from '../../../shared/model/schema';
import { KEEPALIVED_WORD_MAX, shownText } from '../../../shared/model/text-rules';
import { httpTarget, indent, keepalivedRegex, keepalivedSeconds, keepalivedValue, regexLiteral } from './format';
import type { PoolMember } from './pools';

type Resolved = Exclude<CheckType, 'auto'>;

/** Record types keepalived's DNS_CHECK can ask for. */
const DNS_TYPES = new Set(['A', 'NS', 'CNAME', 'SOA', 'MX', 'TXT', 'AAAA']);
/** The Px HTTP check reads this much of the body. */
const HTTP_READ_BYTES = 1000;

export interface KeepalivedChecker {
  /** The checker block (empty for `none`: keepalived then keeps the server in service). */
  lines: string[];
  warnings: string[];
  /** Values keepalived's config syntax cannot carry (a double quote in a path or name). */
  errors: string[];
}

/** `sctpOnly`: the member only speaks SCTP, so TCP-based checks cannot reach it. */
export function keepalivedChecker(hc: HealthCheck, m: PoolMember, sctpOnly: boolean): KeepalivedChecker {
  const warnings: string[] = [];
  const errors: string[] = [];
  const word = (what: string, text: string): string => {
    const out = keepalivedValue(text);
    if (out === undefined) errors.push(`${what} ${shownText(text)} cannot be written in keepalived.conf (it has a double quote, a brace, a control character or more than ${KEEPALIVED_WORD_MAX} bytes)`);
    return out ?? '""';
  };
  let type: Resolved = m.check.type;
  if (type === 'none') return { lines: [], warnings, errors };
  if (sctpOnly && type !== 'ping') {
    warnings.push(`check ${type} cannot reach SCTP-only servers: keepalived has no SCTP checker, PING_CHECK used`);
    type = 'ping';
  }
  const body: string[] = [];
  let checker: string;
  const how = CHECKERS[type];
  if ('fallback' in how) {
    warnings.push(`${how.why} (check ${type}): ${how.fallback} used instead`);
    checker = how.fallback;
  } else {
    checker = how.write({ hc, body, warnings, word });
  }
  const t = m.timers;
  body.push(
    `connect_timeout ${keepalivedSeconds(t.timeout)}`,
    `retry ${t.failAfter - 1}`,
    `delay_before_retry ${keepalivedSeconds(t.retryInterval)}`,
    `delay_loop ${keepalivedSeconds(t.interval)}`,
    // Px: a server is checked as soon as the system comes up (keepalived would wait a random
    // time up to delay_loop, with alpha keeping the server out until then).
    'warmup 0',
  );
  return { lines: [`${checker} {`, ...indent(body), '}'], warnings, errors };
}

interface Writing {
  hc: HealthCheck;
  body: string[];
  warnings: string[];
  word: (what: string, text: string) => string;
}

/** Each check in keepalived terms: the checker it writes (adding its own lines to the body), or
 * the nearest weaker checker that stands in when keepalived has none. A complete Record, so a new
 * check type does not compile until keepalived says what it does with it. */
type Checker = { write: (w: Writing) => string } | { fallback: 'TCP_CHECK' | 'UDP_CHECK'; why: string };
const fixed = (checker: string): Checker => ({ write: () => checker });
const none = (protocol: string, fallback: 'TCP_CHECK' | 'UDP_CHECK' = 'TCP_CHECK'): Checker => ({ fallback, why: `keepalived has no ${protocol} check` });
const CHECKERS: Record<Exclude<Resolved, 'none'>, Checker> = {
  ping: fixed('PING_CHECK'),
  tcp: fixed('TCP_CHECK'),
  udp: fixed('UDP_CHECK'),
  http: { write: (w) => httpChecker('http', w) },
  https: { write: (w) => httpChecker('https', w) },
  ssl: { fallback: 'TCP_CHECK', why: 'keepalived has no TLS handshake check' },
  ftp: none('FTP'),
  smtp: fixed('SMTP_CHECK'),
  pop3: none('POP3'),
  imap4: none('IMAP4'),
  nntp: none('NNTP'),
  telnet: none('Telnet'),
  ldap: none('LDAP'),
  dns: { write: dnsChecker },
  radius: none('RADIUS', 'UDP_CHECK'),
  rtsp: none('RTSP'),
  mms: none('MMS'),
  pnm: none('PNM'),
};

function httpChecker(type: 'http' | 'https', { hc, body, warnings, word }: Writing): string {
  body.push(...urlBlock(hc, warnings, word));
  const host = hc.http?.host;
  // The name for SNI: serverName, else the Host, as lbdesk's own probe does.
  const sni = type === 'https' ? (hc.tls?.serverName ?? host) : undefined;
  if (host ?? sni) body.push(`virtualhost ${word('host', (host ?? sni)!)}`);
  if (sni) {
    body.push('enable_sni');
    if (host && host !== sni) warnings.push(`keepalived sends the Host name "${host}" as SNI, not serverName "${sni}"`);
  }
  if (type === 'https' && hc.tls?.verify) warnings.push('keepalived SSL_GET does not verify the server certificate (tls.verify)');
  return type === 'http' ? 'HTTP_GET' : 'SSL_GET';
}

function dnsChecker({ hc, body, warnings, word }: Writing): string {
  const dns = hc.dns;
  if (dns && !DNS_TYPES.has(dns.recordType)) {
    warnings.push(`keepalived DNS_CHECK cannot ask for ${dns.recordType} records: UDP_CHECK used instead`);
    return 'UDP_CHECK';
  }
  if (dns) body.push(`type ${dns.recordType}`, `name ${word('DNS query', dns.query)}`);
  return 'DNS_CHECK';
}

function urlBlock(hc: HealthCheck, warnings: string[], word: (what: string, text: string) => string): string[] {
  const http = hc.http;
  const url: string[] = [];
  if (!http?.path) {
    // Px: without an object the check is HEAD / and any answer passes; keepalived only GETs.
    warnings.push('HTTP check without a path (HEAD /, any status) approximated by GET / accepting any status');
    url.push('path /', 'status_code 100-599');
  } else {
    url.push(`path ${word('HTTP path', httpTarget(http.path))}`);
  }
  if (http?.expect) {
    const bytes = Buffer.byteLength(http.expect, 'utf8');
    // The match must start early enough to end within the first 1000 bytes, as in Px.
    url.push(`regex ${keepalivedRegex(regexLiteral(http.expect))}`, `regex_max_offset ${Math.max(0, HTTP_READ_BYTES - bytes)}`);
  }
  return ['url {', ...indent(url), '}'];
}
