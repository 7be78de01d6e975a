// Output and commands shown to the user or kept in history never carry a password: the word
// after password / secret / key / community keywords is replaced.
const SECRET_WORDS = /\b(password|passwd|secret|passphrase|community|pre-shared-key|key-string|auth-key|enable secret|key)(\s+(?:\d\s+)?)("[^"]*"|\S+)/gi;

export function redact(text: string): string {
  return text.replace(SECRET_WORDS, (_m, word: string, gap: string) => `${word}${gap}<redacted>`);
}
