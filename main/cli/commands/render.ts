// `lbdesk render WS --appliance NAME [--out FILE]`: the config the appliance's driver would push.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Workspace } from '../../../shared/model/schema';
import { formatProblem, hasErrors } from '../../../shared/model/problem';
import { renderForAppliance, type DriverProblem } from '../../services/drivers';
import { loadWorkspaceFile, WorkspaceFileError } from '../../services/workspace';
import { CliError } from '../errors';
import { notTheWorkspace, writeOut } from '../out';

interface RenderOptions {
  appliance: string;
  out?: string;
}

export function register(program: Command): void {
  program
    .command('render')
    .description("print the config an appliance's driver would push (haproxy.cfg, keepalived.conf or an lbdesk workspace)")
    .argument('<workspace>', 'workspace file')
    .requiredOption('--appliance <name>', 'the appliance to render for')
    .option('--out <file>', 'write the config to FILE instead of stdout')
    .action(async (file: string, opts: RenderOptions) => {
      const path = resolve(file);
      const ws = await loadWorkspace(file);
      const appliance = ws.appliances.find((a) => a.name === opts.appliance);
      if (!appliance) {
        const known = ws.appliances.map((a) => a.name);
        throw new CliError(`unknown appliance "${opts.appliance}" (known: ${known.length ? known.join(', ') : 'none, the workspace has no appliances'})`, 2);
      }
      if (opts.out) await notTheWorkspace(path, opts.out);
      const result = renderForAppliance(ws, appliance, { workspacePath: path });
      for (const line of grouped(result.warnings)) process.stderr.write(`lbdesk: warning: ${line}\n`);
      if (result.errors.length) {
        for (const line of grouped(result.errors)) process.stderr.write(`lbdesk: ${line}\n`);
        const n = distinct(result.errors);
        throw new CliError(`refused: nothing rendered for appliance ${appliance.name} (driver ${appliance.driver}): ${n} problem${n === 1 ? '' : 's'} above`, 1);
      }
      if (opts.out) {
        await writeOut(opts.out, result.text);
        process.stderr.write(`lbdesk: wrote ${opts.out} for appliance ${appliance.name} (driver ${appliance.driver}, goes to ${result.configPath})\n`);
      } else {
        process.stdout.write(result.text);
      }
    });
}

/** `subject: message`, subjects that share a message on one line, each named once. */
export function grouped(problems: DriverProblem[]): string[] {
  const byMessage = new Map<string, Set<string>>();
  for (const p of problems) byMessage.set(p.message, (byMessage.get(p.message) ?? new Set()).add(p.subject));
  return [...byMessage].map(([message, subjects]) => `${[...subjects].join(', ')}: ${message}`);
}

/** Distinct (subject, message) pairs: what "N problems" counts. */
function distinct(problems: DriverProblem[]): number {
  return new Set(problems.map((p) => `${p.subject}\n${p.message}`)).size;
}

/** Reads and validates the workspace: exit 2 when unreadable, 1 (each problem printed) when invalid. */
async function loadWorkspace(file: string): Promise<Workspace> {
  let loaded;
  try {
    loaded = await loadWorkspaceFile(file);
  } catch (e) {
    if (!(e instanceof WorkspaceFileError)) throw e;
    throw new CliError(e.message, e.code === 'unreadable' || e.code === 'not-a-file' ? 2 : 1);
  }
  for (const p of loaded.problems) process.stderr.write(`${formatProblem(p)}\n`);
  if (!loaded.workspace || hasErrors(loaded.problems)) throw new CliError(`${file} is not a valid workspace`, 1);
  return loaded.workspace;
}
