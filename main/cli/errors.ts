/** An expected failure: printed as one line on stderr, never with a stack trace. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}
