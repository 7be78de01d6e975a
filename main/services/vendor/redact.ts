// Output and commands shown to the user or kept in history never carry a password: the word
// after password / secret / key / community keywords is replaced, and so are the forms vendors
// use for keys and SNMPv3 credentials.
// Not inside a longer hyphenated keyword (pre-shared-key, message-digest-key): those are FORMS.
const KEYWORD = /(?<![\w-])(password|passwd|secret|passphrase|community|key-string|auth-key|enable secret|key)(\s*[=:]\s*|\s+(?:\d\s+)?)("[^"]*"|\S+)/gi;
const FORMS: [RegExp, string][] = [
  // pre-shared-key [ascii-text|hex] VALUE
  [/\b(pre-shared-key\s+(?:(?:ascii-text|hex|0|7)\s+)?)("[^"]*"|\S+)/gi, '$1<redacted>'],
  // message-digest-key 1 md5 VALUE (OSPF), authentication-key VALUE
  [/\b(message-digest-key\s+\d+\s+md5\s+(?:\d\s+)?)("[^"]*"|\S+)/gi, '$1<redacted>'],
  // snmp-server user NAME GROUP v3 auth sha VALUE priv aes 128 VALUE
  [/\b(auth\s+(?:md5|sha\S*)\s+)(\S+)/gi, '$1<redacted>'],
  [/\b(priv\s+(?:des\S*|3des|aes)(?:\s+\d+)?\s+)(\S+)/gi, '$1<redacted>'],
  // HAProxy: stats auth USER:PASS, user NAME insecure-password PASS
  [/\b(stats\s+auth\s+[^:\s]+:)(\S+)/gi, '$1<redacted>'],
  [/\b(insecure-password\s+)(\S+)/gi, '$1<redacted>'],
  // keepalived: auth_pass PASS
  [/\b(auth_pass\s+)(\S+)/gi, '$1<redacted>'],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, to] of FORMS) out = out.replace(re, to);
  return out.replace(KEYWORD, (_m, word: string, gap: string) => `${word}${gap}<redacted>`);
}
