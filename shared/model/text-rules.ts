// One rule for workspace text that may reach a rendered config, a vendor CLI, a remote command
// or bytes on the wire: which characters and how many bytes, per field, written once here.
// `validate` refuses a value that breaks its rule at the field's file:line:col; the renderers and
// probes refuse (or encode) it again, so a value that skipped validation still cannot split a
// line into a second command, directive or header.
import { z } from 'zod';

export interface TextRule {
  /** Where the text goes (for docs/security.md and the messages). */
  reaches: string;
  /** Most UTF-8 bytes. */
  maxBytes: number;
  /** Characters refused besides control characters, and how the message names them. */
  refuse?: { chars: RegExp; says: string };
  /** A further check (DNS labels); the message, or undefined when the value is fine. */
  check?: (text: string) => string | undefined;
}

/**
 * Control characters: C0 (NUL, TAB, LF, CR …), DEL, C1 (NEL …) and the Unicode line and
 * paragraph separators. None is allowed in any field of the table.
 */
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;

/**
 * keepalived's config line is read into 1024 bytes (longer lines lose their value) and words
 * are split on blanks, `{`, `}` and double quotes with no escapes; comfortably inside that.
 */
export const KEEPALIVED_WORD_MAX = 900;
/** keepalived words: no double quote (no escape exists) and no braces (they open and close blocks). */
const KEEPALIVED_CHARS = { chars: /["{}]/, says: 'a double quote or a brace ("{", "}")' };
const NAME_CHARS = { chars: /[\s"'{}]/, says: 'a space, a quote or a brace' };

/** RFC 1035: 63 bytes a label, 253 a name (without the final dot). */
function dnsName(text: string): string | undefined {
  if (text === '.') return undefined;
  const name = text.replace(/\.$/, '');
  if (utf8Bytes(name) > 253) return 'must be a DNS name of at most 253 bytes';
  const labels = name.split('.');
  if (labels.some((l) => l === '')) return 'must be a DNS name: a label is empty (two dots, or a dot first)';
  const long = labels.find((l) => utf8Bytes(l) > 63);
  if (long !== undefined) return `must be a DNS name: each label at most 63 bytes (one has ${utf8Bytes(long)})`;
  return undefined;
}

const RULES = {
  /** Descriptions: comments in haproxy.cfg/keepalived.conf, `description "…"` on a vendor CLI. */
  description: { reaches: 'config comments, vendor CLI commands', maxBytes: 255 },
  workspaceName: { reaches: 'the rendered header line', maxBytes: 255 },
  httpPath: { reaches: 'HAProxy/keepalived/vendor CLI check lines, the lab\'s HTTP request line', maxBytes: KEEPALIVED_WORD_MAX },
  /** The Px check reads 1000 bytes of the body: a longer string can never be found. */
  httpExpect: { reaches: 'HAProxy/keepalived/vendor CLI check lines', maxBytes: 1000 },
  httpHost: { reaches: 'the Host header, SNI, HAProxy/keepalived check lines', maxBytes: 255, refuse: NAME_CHARS },
  tlsServerName: { reaches: 'SNI, HAProxy check-sni/verifyhost', maxBytes: 253, refuse: NAME_CHARS },
  ldapText: { reaches: 'the LDAP probe\'s bind and search', maxBytes: 1024 },
  dnsQuery: { reaches: 'the DNS probe\'s question, keepalived DNS_CHECK', maxBytes: 254, refuse: NAME_CHARS, check: dnsName },
  /** RFC 2865 5.1: User-Name is at most 253 bytes (an attribute's length is one byte). */
  radiusUsername: { reaches: 'the RADIUS probe\'s User-Name attribute', maxBytes: 253 },
  trackScript: { reaches: 'keepalived vrrp_script `script "…"`', maxBytes: KEEPALIVED_WORD_MAX, refuse: KEEPALIVED_CHARS },
  cliAnswer: { reaches: 'the vendor CLI session (typed at a confirmation)', maxBytes: 16 },
  cliCommand: { reaches: 'the vendor CLI session (typed as a command)', maxBytes: 1000 },
  appliancePath: { reaches: 'SFTP/SCP paths and remote commands on the appliance', maxBytes: 4096 },
  remoteCommand: { reaches: 'a remote shell command over SSH', maxBytes: 4096 },
} as const satisfies Record<string, TextRule>;
export type TextRuleName = keyof typeof RULES;
export const TEXT_RULES: Readonly<Record<TextRuleName, TextRule>> = RULES;

/**
 * Every workspace field under a rule (`[]` is any list index, `{}` any key). The schema uses
 * these rules; test/shared/model/text-rules.test.ts tries each field with every refused kind.
 */
export const TEXT_FIELDS: readonly { path: string; rule: TextRuleName }[] = [
  { path: 'name', rule: 'workspaceName' },
  { path: 'description', rule: 'description' },
  { path: 'servers[].description', rule: 'description' },
  { path: 'groups[].description', rule: 'description' },
  { path: 'services[].description', rule: 'description' },
  { path: 'targetSets[].description', rule: 'description' },
  { path: 'targetSets[].servers[].description', rule: 'description' },
  { path: 'appliances[].description', rule: 'description' },
  { path: 'pairs[].description', rule: 'description' },
  { path: 'groups[].healthCheck.http.path', rule: 'httpPath' },
  { path: 'groups[].healthCheck.http.expect', rule: 'httpExpect' },
  { path: 'groups[].healthCheck.http.host', rule: 'httpHost' },
  { path: 'groups[].healthCheck.tls.serverName', rule: 'tlsServerName' },
  { path: 'groups[].healthCheck.ldap.baseDn', rule: 'ldapText' },
  { path: 'groups[].healthCheck.ldap.filter', rule: 'ldapText' },
  { path: 'groups[].healthCheck.ldap.bindDn', rule: 'ldapText' },
  { path: 'groups[].healthCheck.ldap.expect.{}', rule: 'ldapText' },
  { path: 'groups[].healthCheck.dns.query', rule: 'dnsQuery' },
  { path: 'groups[].healthCheck.radius.username', rule: 'radiusUsername' },
  { path: 'pairs[].trackScript.command', rule: 'trackScript' },
  { path: 'appliances[].cli.confirmAnswer', rule: 'cliAnswer' },
  { path: 'appliances[].cli.pullCommand', rule: 'cliCommand' },
  { path: 'appliances[].cli.uploadPath', rule: 'appliancePath' },
  { path: 'appliances[].configPath', rule: 'appliancePath' },
  { path: 'appliances[].statsSocket', rule: 'appliancePath' },
  { path: 'appliances[].dsconfig.serverRoot', rule: 'appliancePath' },
  { path: 'appliances[].dsconfig.bindDn', rule: 'ldapText' },
  { path: 'appliances[].validateCommand', rule: 'remoteCommand' },
  { path: 'appliances[].reloadCommand', rule: 'remoteCommand' },
];

export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

const NAMES: Record<string, string> = { '\0': 'a NUL', '\n': 'a line break (LF)', '\r': 'a carriage return (CR)', '\t': 'a tab' };

/** The control character in words: `a line break (LF)`, `a control character (U+0007)`. */
function controlName(c: string): string {
  return NAMES[c] ?? `a control character (U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
}

/** Why `text` breaks `rule` (never repeating the value), or undefined when it keeps it. */
export function textProblem(rule: TextRule, text: string): string | undefined {
  const control = CONTROL.exec(text);
  if (control) return `must be one line of text: ${controlName(control[0])} is not allowed here`;
  const bytes = utf8Bytes(text);
  if (bytes > rule.maxBytes) return `must be at most ${rule.maxBytes} bytes (UTF-8), not ${bytes}`;
  if (rule.refuse?.chars.test(text)) return `must not contain ${rule.refuse.says}`;
  return rule.check?.(text);
}

/** A string field under `rule`, for the schema. */
export function ruledText(name: TextRuleName) {
  const rule = TEXT_RULES[name];
  return z.string().check((ctx) => {
    const why = textProblem(rule, ctx.value);
    if (why !== undefined) ctx.issues.push({ code: 'custom', message: why, input: ctx.value });
  });
}

/** Thrown by a renderer for a value its output cannot carry; the driver reports it as a render error. */
export class UnwritableTextError extends Error {}

/** `text` unchanged, or an UnwritableTextError naming `what` when it holds a control character. */
export function oneLineOrThrow(what: string, text: string): string {
  const control = CONTROL.exec(text);
  if (control) throw new UnwritableTextError(`${what} ${shownText(text)} cannot be written: it holds ${controlName(control[0])}`);
  return text;
}

/**
 * A value as a message or a table row shows it: on one line (control characters as escapes),
 * cut to `max` characters with an ellipsis, so a 100 KB name is never echoed whole.
 */
export function cutText(text: string, max = 80): string {
  return text.length > max ? `${oneLine(text.slice(0, max))}…` : oneLine(text);
}

/** `cutText` in double quotes (quotes inside escaped): a value named in a message. */
export function shownText(text: string, max = 80): string {
  return `"${cutText(text, max).replace(/"/g, '\\"')}"`;
}

/**
 * Control characters shown as escapes (\n, \r, \t, \u0000 …): a value must not move the
 * terminal's cursor, colour it, clear it, or break a message or a row over two lines.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * An HTTP request target: spaces, control characters, non-ASCII, double quotes and braces
 * percent-encoded, everything else as written. The one encoder the HAProxy and keepalived
 * renders and the lab's HTTP probe share, so none of them sends CR/LF or a raw space.
 */
export function httpTarget(path: string): string {
  // A lone surrogate has no UTF-8: sent as U+FFFD, as a browser does.
  return path.replace(/[^\x21-\x7e]|["{}]/gu, (c) => encodeURIComponent(c.length === 1 && c >= '\ud800' && c <= '\udfff' ? '\ufffd' : c));
}
