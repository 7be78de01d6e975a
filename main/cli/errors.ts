/** An expected failure: printed as one line on stderr, never with a stack trace. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

/**
 * `subject: message`, the subject said once: services often name the appliance themselves
 * (`lb1: auth is agent but …`), and the CLI prefixes every line with it too.
 */
export function about(subject: string, message: string): string {
  return `${subject}: ${unprefixed(subject, message)}`;
}

/** The message without a leading `subject: ` (repeated or not). */
export function unprefixed(subject: string, message: string): string {
  let rest = message;
  while (subject && rest.startsWith(`${subject}: `)) rest = rest.slice(subject.length + 2);
  return rest;
}
