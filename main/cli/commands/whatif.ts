// `lbdesk whatif WS --fail X…`: offline, from the workspace alone, what each service and target
// set keeps with X failed. Exit 0 every one keeps a member, 1 some has none, 2 usage.
import type { Command } from 'commander';
import { formatWhatIf, UnknownFailure, whatIf } from '../../services/whatif';
import { CliError } from '../errors';
import { readWorkspace } from '../workspace';

export function register(program: Command): void {
  program
    .command('whatif')
    .description('with servers, members (GROUP/SERVER), groups or HA boxes failed: per service and target set the members left, their shares of new connections, clients that move, addresses a mate takes over; those left with none first')
    .argument('<workspace>', 'workspace file')
    .requiredOption('--fail <names...>', 'what fails: a server, GROUP/SERVER[:PORT], a group, an address, N/ADDRESS (a target-set server) or an appliance')
    .option('--json', 'print the report as JSON')
    .action(async (file: string, opts: { fail: string[]; json?: boolean }) => {
      const { workspace } = await readWorkspace(file, { unreadable: 2, invalid: 2 });
      let report;
      try {
        report = whatIf(workspace, opts.fail);
      } catch (err) {
        if (err instanceof UnknownFailure) throw new CliError(`--fail: ${err.message}`, 2);
        throw err;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatWhatIf(report));
      process.exitCode = report.pools.some((p) => p.none) ? 1 : 0;
    });
}
