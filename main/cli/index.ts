// The `lbdesk` command line: one commander program, one file per command.
import { Command, CommanderError } from 'commander';
import { CliError } from './errors';
import { visible } from '../../shared/model/problem';
import { commands } from './commands';
import { VERSION } from '../../shared/version';

/** A commander usage error, with the command it happened in (for the `--help` hint). */
class UsageError extends Error {
  constructor(readonly original: CommanderError, readonly command: string) {
    super(original.message);
  }
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Commander's message as one line of ours: no "error: " prefix, a suggestion kept on the line. */
export function usageLine(message: string, command: string): string {
  const text = message.replace(/^error: /, '').replace(/\n\(Did you mean/g, ' (did you mean').replace(/ is invalid\. /, ' is invalid: ').replace(/\s*\n\s*/g, ' ').trim().replace(/\.$/, '');
  return `${text} (${command} --help for usage)`;
}

export function buildProgram(): Command {
  const program = new Command('lbdesk')
    .description('The field engineer\'s workbench for server load balancers')
    .version(VERSION)
    .option('--debug', 'print stack traces of unexpected errors');
  for (const register of commands) register(program);
  for (const cmd of [program, ...program.commands]) {
    // main() prints usage errors, as one line; commander prints help and --version only.
    cmd.configureOutput({ outputError: () => undefined });
    cmd.exitOverride((err) => {
      throw new UsageError(err, commandPath(cmd));
    });
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      const { original } = err;
      // --help and --version exit 0; `lbdesk` alone printed the help on stderr already.
      if (original.exitCode === 0) return 0;
      if (original.code === 'commander.help' || original.code === 'commander.helpDisplayed') return 2;
      process.stderr.write(`lbdesk: ${usageLine(original.message, err.command)}\n`);
      return 2;
    }
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      process.stderr.write(`lbdesk: ${visible(err.message)}\n`);
      return err.exitCode;
    }
    const debug = argv.includes('--debug');
    process.stderr.write(`lbdesk: unexpected error: ${visible(err instanceof Error ? err.message : String(err))}\n`);
    if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return 2;
  }
}
