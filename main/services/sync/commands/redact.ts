// Output and commands shown to the user or kept in history never carry a password: the word
// after password / secret / key / community keywords is replaced, and so are the forms vendors
// use for keys and SNMPv3 credentials. One line at a time: a match never runs into the next.
/** A value: quoted (spaces and all) or one word. */
const VALUE = `("[^"\\n]*"?|'[^'\\n]*'?|\\S+)`;
// Not inside a longer hyphenated keyword (pre-shared-key, message-digest-key): those are FORMS.
// An underscore joins (db_password, admin_password); bindpw is OpenLDAP's.
const KEYWORD = new RegExp(`(?<![A-Za-z0-9-])(password|passwd|bindpw|secret|passphrase|community|key-string|auth-key|authentication-key|enable secret|key)([ \\t]*[=:][ \\t]*|[ \\t]+(?:\\d[ \\t]+)?)${VALUE}`, 'gi');
/** Header names that carry a credential. */
const SCHEME = '(?:Bearer|Basic|Digest|Token|Negotiate)[ \\t]+';
const CREDENTIAL_HEADER = '(?:Proxy-)?Authorization|X-[A-Za-z0-9-]*(?:Key|Token|Secret|Auth|Password)[A-Za-z0-9-]*|[A-Za-z0-9-]*(?:Api-?Key|Access-?Token|Auth-?Token)';
/**
 * A credential header's value (HAProxy set-header/add-header, http-check hdr, curl -H …), the auth
 * scheme and quotes kept: Authorization "Bearer T", Authorization: Basic B64, X-Api-Key K.
 */
const HEADER_VALUE = new RegExp(`(?<![A-Za-z0-9-])((?:${CREDENTIAL_HEADER}):?[ \\t]+)(?:"(${SCHEME})?[^"\\n]*("?)|(${SCHEME})?[^\\s"]+)`, 'gi');
const FORMS: [RegExp, string][] = [
  // pre-shared-key [ascii-text|hex] VALUE
  [new RegExp(`\\b(pre-shared-key[ \\t]+(?:(?:ascii-text|hex|0|7)[ \\t]+)?)${VALUE}`, 'gi'), '$1<redacted>'],
  // message-digest-key 1 md5 VALUE (OSPF)
  [new RegExp(`\\b(message-digest-key[ \\t]+\\d+[ \\t]+md5[ \\t]+(?:\\d[ \\t]+)?)${VALUE}`, 'gi'), '$1<redacted>'],
  // snmp-server user NAME GROUP v3 auth sha VALUE priv aes 128 VALUE
  [new RegExp(`\\b(auth[ \\t]+(?:md5|sha\\S*)[ \\t]+)${VALUE}`, 'gi'), '$1<redacted>'],
  [new RegExp(`\\b(priv[ \\t]+(?:des\\S*|3des|aes)(?:[ \\t]+\\d+)?[ \\t]+)${VALUE}`, 'gi'), '$1<redacted>'],
  // HAProxy: stats auth USER:PASS, user NAME insecure-password PASS
  [new RegExp(`\\b(stats[ \\t]+auth[ \\t]+[^:\\s]+:)${VALUE}`, 'gi'), '$1<redacted>'],
  [new RegExp(`\\b(insecure-password[ \\t]+)${VALUE}`, 'gi'), '$1<redacted>'],
  // keepalived: auth_pass PASS
  [new RegExp(`\\b(auth_pass[ \\t]+)${VALUE}`, 'gi'), '$1<redacted>'],
  // A bearer token wherever it stands.
  [/\b(Bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}/g, '$1<redacted>'],
];

function redactLine(line: string): string {
  let out = line;
  for (const [re, to] of FORMS) out = out.replace(re, to);
  out = out.replace(HEADER_VALUE, (m, head: string, qScheme?: string, close?: string, scheme?: string) =>
    m.slice(head.length).startsWith('"') ? `${head}"${qScheme ?? ''}<redacted>${close ?? ''}` : `${head}${scheme ?? ''}<redacted>`);
  return out.replace(KEYWORD, (_m, word: string, gap: string) => `${word}${gap}<redacted>`);
}

export function redact(text: string): string {
  return text.split('\n').map(redactLine).join('\n');
}

/** A unified diff with each line's content redacted after its ' ', '-' or '+' marker. */
export function redactPatch(patch: string): string {
  return patch.split('\n').map((l) => (/^[ +-](?!--|\+\+)/.test(l) ? l[0] + redactLine(l.slice(1)) : redactLine(l))).join('\n');
}

/** An appliance's config as any path shows it (pull, history, compare, import): passwords masked. */
export function shownConfig(data: Uint8Array | string): string {
  return redact(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
}
