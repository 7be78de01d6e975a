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

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

/** Why a file could not be written, in words (the errno code only when there are none). */
export function writeFailure(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return (e?.code && FILE_ERRORS[e.code]) ?? e?.code ?? (err instanceof Error ? err.message : String(err));
}
