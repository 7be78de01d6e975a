// `lbdesk compare WS --appliance NAME [--json] [--time-scale F]`: the same faults and traffic
// through lbdesk's lab and through the appliance's software on loopback, side by side.
// Exit: 0 no unexplained difference, 1 some unexplained, 2 usage / cannot run here.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { formatProblem, hasErrors } from '../../../shared/model/problem';
import { compareWithAppliance, CompareUnavailableError, formatReport } from '../../services/compare';
import { loadWorkspaceFile, WorkspaceFileError } from '../../services/workspace';
import { CliError } from '../errors';

interface CompareOptions {
  appliance: string;
  json?: boolean;
  timeScale?: string;
}

export function register(program: Command): void {
  program
    .command('compare')
    .description("run the same traffic and faults (a member stopped, slowed, answering wrong content, refusing) through lbdesk's lab and through the appliance's software started on loopback; report both side by side (exit 0 no unexplained difference, 1 some, 2 cannot run)")
    .argument('<workspace>', 'workspace file')
    .requiredOption('--appliance <name>', 'the appliance whose software and rendered config are compared')
    .option('--json', 'one JSON document on stdout')
    .option('--time-scale <factor>', 'multiply every interval, retry interval, timeout and threshold by FACTOR on both sides (e.g. 0.05 to run Px defaults in seconds)')
    .action(async (file: string, opts: CompareOptions) => {
      const scale = opts.timeScale === undefined ? 1 : Number(opts.timeScale);
      if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new CliError(`--time-scale must be a number above 0 and at most 10 (got "${opts.timeScale}")`, 2);
      let loaded;
      try {
        loaded = await loadWorkspaceFile(file);
      } catch (e) {
        if (e instanceof WorkspaceFileError) throw new CliError(e.message, 2);
        throw e;
      }
      for (const p of loaded.problems) process.stderr.write(`${formatProblem(p)}\n`);
      if (!loaded.workspace || hasErrors(loaded.problems)) throw new CliError(`${file} is not a valid workspace`, 2);
      const workspace = loaded.workspace;
      const appliance = workspace.appliances.find((a) => a.name === opts.appliance);
      if (!appliance) throw new CliError(`unknown appliance "${opts.appliance}" (known: ${workspace.appliances.map((a) => a.name).join(', ') || 'none'})`, 2);
      let report;
      try {
        report = await compareWithAppliance(workspace, appliance, { workspacePath: resolve(file), timeScale: scale });
      } catch (e) {
        if (e instanceof CompareUnavailableError) throw new CliError(`cannot compare with ${appliance.name}: ${e.message}`, 2);
        throw e;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      process.exitCode = report.unexplained > 0 ? 1 : 0;
    });
}
