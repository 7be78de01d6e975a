// Building remote shell commands safely: every path and value is single-quoted.

/** POSIX single-quoting: safe for any byte string except NUL. */
export function shq(value: string): string {
  if (value.includes('\0')) throw new Error('a NUL byte cannot be passed to a shell');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A driver command with every `{file}` replaced by the quoted path. A `{file}` the user already
 * quoted (`"{file}"`, `'{file}'`) is replaced whole, so the quotes do not end up in the path.
 */
export function fillFile(command: string, file: string): string {
  const q = shq(file);
  return command.split('"{file}"').join(q).split("'{file}'").join(q).split('{file}').join(q);
}

/** `sh -c SCRIPT name arg…`: the script sees its arguments as $1…, never spliced into code. */
export function shScript(script: string, args: string[], name = 'lbdesk'): string {
  return `sh -c ${shq(script)} ${shq(name)} ${args.map(shq).join(' ')}`;
}

/** The last lines of command output, for reasons shown to the user. */
export function tail(text: string, lines = 6, maxChars = 600): string {
  const t = text.trim().split('\n').slice(-lines).join(' | ');
  return t.length > maxChars ? `…${t.slice(-maxChars)}` : t;
}
