// The `lbdesk` command line: one commander program, one file per command.
import { Command, CommanderError } from 'commander';
import { CliError } from './errors';
import { commands } from './commands';
import { VERSION } from '../../shared/version';

export function buildProgram(): Command {
  const program = new Command('lbdesk')
    .description('The field engineer\'s workbench for server load balancers')
    .version(VERSION)
    .option('--debug', 'print stack traces of unexpected errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of commands) register(program);
  for (const sub of program.commands) sub.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; usage errors were already printed by commander.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof CliError) {
      process.stderr.write(`lbdesk: ${err.message}\n`);
      return err.exitCode;
    }
    const debug = argv.includes('--debug');
    process.stderr.write(`lbdesk: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return 2;
  }
}
