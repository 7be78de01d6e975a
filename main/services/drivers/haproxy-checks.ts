// Health checks in HAProxy terms: one check method per backend, timers per server line.
import { CHECKS, type ResolvedType } from '../../../shared/model/checks';
import type { HealthCheck } from '../../../shared/model/schema';
import { cutText, shownText, UnwritableTextError } from '../../../shared/model/text-rules';
import { haproxyTime, haproxyWord, httpTarget } from './format';
import { degradedWarning, type PoolMember } from './pools';
import type { DriverProblem } from './types';

export interface HaproxyCheck {
  /** `option httpchk …`, `tcp-check …`, `timeout check …` lines for the backend. */
  backendLines: string[];
  /** The `check …` arguments of one server line; empty when the backend is not checked. */
  serverArgs(member: PoolMember): string;
  errors: DriverProblem[];
  warnings: DriverProblem[];
}

/** HAProxy's passive health: one failed connection (or reset) is enough to check early. */
export const PASSIVE = 'observe layer4 error-limit 1 on-error fastinter';

/** What `observe layer4 … on-error fastinter` cannot mirror of lbdesk's passive → active. */
export const PASSIVE_WARNING = 'passive detection: after a failed connection HAProxy checks the server within fastinter (the retry interval), lbdesk at once';

/** HAProxy schedules checks from the end of the previous one, the Px procedure from its start. */
export const TIMING_WARNING = 'check timing: HAProxy starts each check inter/fastinter/downinter after the previous one ended, lbdesk after it started: while checks time out (a frozen or slow server) each retry comes up to the check timeout later';

/** What one check type adds to a backend: lines, `check` arguments, warnings. */
interface Parts {
  subject: string;
  hc: HealthCheck;
  lines: string[];
  serverExtra: string[];
  warnings: DriverProblem[];
  word: (what: string, text: string) => string;
}

/**
 * What HAProxy does with each check type: `unchecked` (no check), `refuse` (the render fails,
 * with why), `connectInstead` (a TCP connect to the same port stands in: weaker, never
 * stricter, with why), or `render` (its lines).
 */
type HaproxyWay = { unchecked: true } | { refuse: string } | { connectInstead: string } | { render: (p: Parts) => void };

/** A string for `tcp-check send`: CR and LF escaped, quoted when it holds a blank. */
function sendText(text: string): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
  return /\s|"/.test(text.replace(/[\r\n]/g, '')) ? `"${escaped}"` : escaped;
}

/** A banner protocol: wait for the greeting (HAProxy's words for the descriptor's pass), then say goodbye. */
const banner = (type: 'ftp' | 'pop3' | 'imap4' | 'nntp', expect: string): HaproxyWay => ({
  render: (p) => p.lines.push('option tcp-check', 'tcp-check connect', `tcp-check expect ${expect}`, `tcp-check send ${sendText(CHECKS[type].dialogue.quit.send)}`),
});

export const HAPROXY_CHECKS: Record<ResolvedType, HaproxyWay> = {
  none: { unchecked: true },
  ping: { connectInstead: 'HAProxy has no ICMP check' },
  tcp: { render: () => {} },
  udp: { refuse: 'HAProxy cannot run UDP health checks (check type udp)' },
  http: { render: (p) => httpLines(p, false) },
  https: { render: (p) => httpLines(p, true) },
  ssl: { render: (p) => { p.serverExtra.push(tlsArgs(p.hc, undefined, p.word)); } },
  ftp: banner('ftp', 'rstring ^220'),
  smtp: { render: (p) => { p.lines.push('option smtpchk'); } },
  pop3: banner('pop3', 'string +OK'),
  imap4: banner('imap4', 'string "* OK"'),
  nntp: banner('nntp', 'rstring ^20[01]'),
  telnet: { connectInstead: 'HAProxy has no Telnet check' },
  ldap: {
    render: (p) => {
      p.lines.push('option ldap-check');
      const l = p.hc.ldap;
      const search = `search base ${shownText(l?.baseDn ?? '')} scope ${l?.scope ?? 'base'} filter ${cutText(l?.filter ?? '(objectClass=*)')}`;
      const extra = [search, l?.bindDn ? `bind as ${cutText(l.bindDn)}` : '', l?.expect ? 'expected attributes' : ''].filter(Boolean).join(', ');
      p.warnings.push({ subject: p.subject, message: `LDAP check approximated by an anonymous bind (option ldap-check); not checked: ${extra}` });
    },
  },
  dns: { connectInstead: 'HAProxy has no DNS health check' },
  radius: { connectInstead: 'HAProxy has no RADIUS health check' },
  rtsp: {
    // The descriptor's OPTIONS request; HAProxy's expect takes 200 only (lbdesk's probe any 2xx).
    render: (p) => p.lines.push('option tcp-check', 'tcp-check connect', `tcp-check send ${sendText(`${CHECKS.rtsp.dialogue.request}\r\n`)}`, 'tcp-check expect rstring ^RTSP/1[.][01][[:space:]]200'),
  },
  mms: { connectInstead: 'HAProxy has no MMS check' },
  pnm: { connectInstead: 'HAProxy has no PNM check' },
};

function httpLines(p: Parts, secure: boolean): void {
  const { hc, lines, word } = p;
  const path = hc.http?.path;
  lines.push(`option httpchk ${path ? `GET ${word('http.path', httpTarget(path))}` : 'HEAD /'} HTTP/1.0`);
  if (hc.http?.host) lines.push(`http-check send hdr Host ${word('http.host', hc.http.host)}`);
  // Px (and lbdesk's health checker): with an object, it must be returned (2xx) before any string
  // is looked for; HAProxy alone would pass a 500 page or a redirect.
  if (path) lines.push('http-check expect status 200-299');
  if (hc.http?.expect) {
    lines.push('# lbdesk looks for the string in the first 1000 bytes of the body; HAProxy searches all of the body it reads');
    lines.push(`http-check expect string ${word('http.expect', hc.http.expect)}`);
    p.warnings.push({ subject: p.subject, message: `HTTP check: HAProxy looks for ${shownText(hc.http.expect)} in the whole body read, not only its first 1000 bytes` });
  } else if (!path) {
    // Px: without an object, a HEAD / passes whatever the status.
    lines.push('http-check expect rstatus ^[1-5][0-9][0-9]$');
  }
  if (secure) p.serverExtra.push(tlsArgs(hc, hc.http?.host, word));
}

/**
 * The backend's check. `servicePort` is where port-less members are reached (and checked);
 * `subject` names the service or target set in problems.
 */
export function haproxyCheck(subject: string, hc: HealthCheck, members: PoolMember[], servicePort: number): HaproxyCheck {
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  // A value that would end the directive early is a refusal of the render, by name.
  const word = (what: string, text: string): string => {
    try {
      return haproxyWord(text, what);
    } catch (err) {
      if (!(err instanceof UnwritableTextError)) throw err;
      errors.push({ subject, message: err.message });
      return "''";
    }
  };
  const types = [...new Set(members.map((m) => m.check.type))];
  let type: ResolvedType = types[0] ?? 'none';
  if (types.length > 1) {
    const list = members.map((m) => `${m.name} ${m.check.type}`).join(', ');
    warnings.push({ subject, message: `members resolve to different checks (${list}); HAProxy runs one check per backend: TCP connect used for all` });
    type = 'tcp';
  }
  const way = HAPROXY_CHECKS[type];
  if ('unchecked' in way) return { backendLines: [], serverArgs: () => '', errors, warnings };

  const lines: string[] = [];
  const serverExtra: string[] = [];
  if ('refuse' in way) errors.push({ subject, message: way.refuse });
  else if ('connectInstead' in way) warnings.push({ subject, message: `${way.connectInstead} (check ${type}): a TCP connect check to the member port is used instead` });
  else way.render({ subject, hc, lines, serverExtra, warnings, word });
  warnings.push({ subject, message: PASSIVE_WARNING }, { subject, message: TIMING_WARNING });
  const degraded = degradedWarning(subject, hc, 'HAProxy');
  if (degraded) warnings.push(degraded);

  const timeouts = [...new Set(members.map((m) => m.timers.timeout))].sort((a, b) => a - b);
  const timeout = timeouts[timeouts.length - 1];
  // The check timeout is the connect timeout too, as in lbdesk (for traffic and checks:
  // HAProxy connects a check within min(timeout connect, inter), then reads for timeout check).
  if (timeout !== undefined) lines.push(`timeout connect ${haproxyTime(timeout)}`, `timeout check ${haproxyTime(timeout)}`);
  if (timeouts.length > 1) {
    warnings.push({ subject, message: `members have different check timeouts (${timeouts.map(haproxyTime).join(', ')}); HAProxy has one per backend: ${haproxyTime(timeout!)} used` });
  }
  const extra = serverExtra.filter(Boolean).join(' ');
  return {
    backendLines: lines,
    errors,
    warnings,
    serverArgs(m) {
      const t = m.timers;
      const port = m.port === undefined ? ` port ${servicePort}` : '';
      const inter = `inter ${haproxyTime(t.interval)} fastinter ${haproxyTime(t.retryInterval)} downinter ${haproxyTime(t.retryInterval)}`;
      // Passive to active, as in lbdesk: a failed connection brings the next check
      // forward (to within fastinter; the check, not the error, decides the state).
      return `check${extra ? ` ${extra}` : ''}${port} ${inter} rise ${t.restoreAfter} fall ${t.failAfter} ${PASSIVE}`;
    },
  };
}

/**
 * TLS for the check only (the traffic itself is passed through untouched). The name sent and
 * verified is tls.serverName, else the HTTP Host, as lbdesk's own probe does.
 */
function tlsArgs(hc: HealthCheck, host: string | undefined, word: (what: string, text: string) => string): string {
  const tls = hc.tls;
  const name = tls?.serverName ?? host;
  const what = tls?.serverName ? 'tls.serverName' : 'http.host';
  const args = ['check-ssl'];
  if (tls?.verify) {
    args.push('verify required ca-file @system-ca');
    if (name) args.push(`verifyhost ${word(what, name)}`);
  } else {
    args.push('verify none');
  }
  if (name) args.push(`check-sni ${word(what, name)}`);
  return args.join(' ');
}
