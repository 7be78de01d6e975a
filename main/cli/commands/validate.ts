// `lbdesk validate WS`: one line per problem on stderr; 0 valid (warnings allowed), 1 invalid, 2 unreadable.
import type { Command } from 'commander';
import { formatProblem, problemCounts } from '../../../shared/model/problem';
import { validateFile } from '../../services/workspace/load';
import { CliError } from '../errors';

export function register(program: Command): void {
  program
    .command('validate')
    .description('parse and validate a workspace file: each problem as file:line:col: path: message')
    .argument('<workspace>', 'workspace file')
    .option('--json', 'print {file, valid, problems} as JSON on stdout instead of lines on stderr')
    .action(async (file: string, opts: { json?: boolean }) => {
      const result = await validateFile(file);
      if (result.exitCode === 2) throw new CliError(result.fatal ?? `cannot read ${file}`, 2);
      const { errors, warnings, more } = problemCounts(result.problems);
      if (opts.json) {
        const problems = result.problems.map(({ segments: _segments, ...p }) => p);
        process.stdout.write(`${JSON.stringify({ file, valid: result.exitCode === 0, errors, warnings, problems }, null, 2)}\n`);
      } else {
        for (const p of result.problems) process.stderr.write(`${formatProblem(p)}\n`);
        const counts = more ? `more than ${errors + warnings} problems` : [errors && plural(errors, 'error'), warnings && plural(warnings, 'warning')].filter(Boolean).join(', ');
        process.stdout.write(`${file}: ${result.exitCode === 0 ? 'valid' : 'invalid'}${counts ? ` (${counts})` : ''}\n`);
      }
      process.exitCode = result.exitCode;
    });
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
