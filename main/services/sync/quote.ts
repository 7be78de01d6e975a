// Building remote shell commands safely: every path and value is single-quoted.
import { shq } from '../transfer/host';

/** POSIX single-quoting, and `sh -c SCRIPT lbdesk ARG…` (arguments as $1…): the transfer layer's. */
export { shq, shScript } from '../transfer/host';

/**
 * A driver command with every `{file}` replaced by the quoted path. A `{file}` the user already
 * quoted (`"{file}"`, `'{file}'`) is replaced whole, so the quotes do not end up in the path.
 */
export function fillFile(command: string, file: string): string {
  const q = shq(file);
  return command.split('"{file}"').join(q).split("'{file}'").join(q).split('{file}').join(q);
}

/** The last lines of command output, for reasons shown to the user. */
export function tail(text: string, lines = 6, maxChars = 600): string {
  const t = text.trim().split('\n').slice(-lines).join(' | ');
  return t.length > maxChars ? `…${t.slice(-maxChars)}` : t;
}
