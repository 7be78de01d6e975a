// Entry point of the `lbdesk` binary.
import { main } from './index';

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
