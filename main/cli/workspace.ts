// Every command reads its workspace here: each problem on stderr as file:line:col: path: message,
// then one closing line; the exit status is the command's own (check is Nagios-style, diff
// diff(1)-style), for a file that cannot be read and for one that is not valid.
import { resolve } from 'node:path';
import { formatProblem } from '../../shared/model/problem';
import type { Workspace } from '../../shared/model/schema';
import { loadWorkspace, type LoadRefused } from '../services/workspace/load';
import { CliError } from './errors';

export interface ExitCodes {
  unreadable: number;
  invalid: number;
}

/** The problems of a refused load, on stderr. */
export function reportProblems(refused: LoadRefused): void {
  for (const p of refused.problems) process.stderr.write(`${formatProblem(p)}\n`);
}

/** The valid workspace `file` names (warnings printed), or a CliError after its problems. */
export async function readWorkspace(file: string, exits: ExitCodes): Promise<{ workspace: Workspace; path: string }> {
  const path = resolve(file);
  const loaded = await loadWorkspace(path, { shown: file });
  if (!loaded.ok) {
    reportProblems(loaded);
    throw new CliError(loaded.message, loaded.unreadable ? exits.unreadable : exits.invalid);
  }
  for (const p of loaded.problems) process.stderr.write(`${formatProblem(p)}\n`);
  return { workspace: loaded.workspace, path };
}
