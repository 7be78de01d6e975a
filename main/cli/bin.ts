// Entry point of the `lbdesk` binary.
import { main } from './index';
import { writeFailure } from './errors';

// A closed or full standard output is an answer, not a crash: `lbdesk pull --history | head -1`
// ends quietly; `> /dev/full` is one line on stderr (never Node's "Unhandled 'error' event").
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  process.stderr.write(`lbdesk: cannot write to standard output: ${writeFailure(err)}\n`);
  process.exit(2);
});
// Nowhere left to say anything.
process.stderr.on('error', () => process.exit(2));

main(process.argv.slice(2)).then(
  (code) => {
    // Long-running commands (serve) keep the loop alive themselves and set exitCode on stop.
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`lbdesk: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
