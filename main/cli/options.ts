// Option value parsers shared by commands: a bad value is a usage error (one line, exit 2)
// raised by commander before the command starts anything.
import { InvalidArgumentError } from 'commander';

/** A TCP port to listen on: a whole number 0-65535 (0: any free port). */
export function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  }
  return Number(value);
}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available',
};

/** `cannot listen on HOST:PORT: why` for an error from listen(), or undefined for anything else. */
export function listenFailure(err: unknown, host: string, port: number | undefined): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!code || (!(code in LISTEN_ERRORS) && (err as { syscall?: string }).syscall !== 'listen')) return undefined;
  return `cannot listen on ${host}:${port ?? 0}: ${LISTEN_ERRORS[code] ?? code}`;
}
