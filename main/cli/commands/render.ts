// `lbdesk render WS --appliance NAME [--out FILE]`: the config the appliance's driver would push.
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import { getDriver, renderForAppliance, type DriverProblem, type RenderResult } from '../../services/drivers';
import { renderOnto, type OntoResult } from '../../services/drivers/sections';
import { CliError } from '../errors';
import { notTheWorkspace, writeOut } from '../out';
import { readWorkspace } from '../workspace';

interface RenderOptions {
  appliance: string;
  out?: string;
  onto?: string;
  force?: boolean;
  commands?: boolean;
  inverse?: boolean;
}

export function register(program: Command): void {
  program
    .command('render')
    .description("print the config an appliance's driver would push (haproxy.cfg, keepalived.conf or an lbdesk workspace)")
    .argument('<workspace>', 'workspace file')
    .requiredOption('--appliance <name>', 'the appliance to render for')
    .option('--out <file>', 'write the config to FILE instead of stdout')
    .option('--onto <file>', 'the whole file a push would leave on an appliance that holds FILE now (manage: sections keeps every part lbdesk does not own)')
    .option('--force', 'with --onto: render over owned sections edited since lbdesk wrote them (listed as conflicts)')
    .option('--commands', 'with --onto on a command-driven appliance (adx, a10, netscaler, f5, pingdirectory): the commands a push sends, one per line (none when nothing changed)')
    .option('--inverse', 'with --commands: the commands a rollback of that push sends (the inverse, newest change first)')
    .action(async (file: string, opts: RenderOptions) => {
      const { workspace, path } = await readWorkspace(file, { unreadable: 2, invalid: 1 });
      const appliance = workspace.appliances.find((a) => a.name === opts.appliance);
      if (!appliance) {
        const known = workspace.appliances.map((a) => a.name);
        throw new CliError(`unknown appliance "${opts.appliance}" (known: ${known.length ? known.join(', ') : 'none, the workspace has no appliances'})`, 2);
      }
      if (opts.out) await notTheWorkspace(path, opts.out);
      if (opts.inverse && !opts.commands) throw new CliError('--inverse goes with --commands', 2);
      if (opts.commands && !opts.onto) throw new CliError('--commands needs --onto FILE (the running config the commands start from)', 2);
      if (opts.commands && !getDriver(appliance.driver).commands) throw new CliError(`--commands: driver ${appliance.driver} is not changed by commands computed from the running config`, 2);
      const plain = renderForAppliance(workspace, appliance, { workspacePath: path });
      const onto = opts.onto ? await renderOntoFile(workspace, appliance, path, opts.onto, opts.force === true) : undefined;
      const steps = onto?.steps ?? [];
      const lines = opts.inverse ? [...steps].reverse().flatMap((s) => s.inverse) : steps.flatMap((s) => s.commands);
      const result: RenderResult = onto && opts.commands ? { ...onto, text: lines.map((c) => `${c}\n`).join('') } : onto ?? plain;
      for (const line of grouped(result.warnings)) process.stderr.write(`lbdesk: warning: ${line}\n`);
      if (result.errors.length) {
        for (const line of grouped(result.errors)) process.stderr.write(`lbdesk: ${line}\n`);
        const n = distinct(result.errors);
        throw new CliError(`refused: nothing rendered for appliance ${appliance.name} (driver ${appliance.driver}): ${n} problem${n === 1 ? '' : 's'} above`, 1);
      }
      if (opts.out) {
        await writeOut(opts.out, result.text);
        process.stderr.write(`lbdesk: wrote ${opts.out} for appliance ${appliance.name} (driver ${appliance.driver}, goes to ${plain.configPath})\n`);
      } else {
        process.stdout.write(result.text);
      }
    });
}

/** `render --onto FILE`: conflicts printed one per line; the result as a plain render's. */
async function renderOntoFile(workspace: Workspace, appliance: Appliance, path: string, onto: string, force: boolean): Promise<OntoResult> {
  let current: string;
  try {
    current = await readFile(onto, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${onto}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, 2);
  }
  if (appliance.manage !== 'sections' && !getDriver(appliance.driver).commands) process.stderr.write(`lbdesk: appliance ${appliance.name} has manage: file: the whole file is replaced\n`);
  const r = renderOnto(workspace, appliance, current, { workspacePath: path }, { file: onto, force });
  for (const c of r.conflicts) process.stderr.write(`lbdesk: conflict: ${c}\n`);
  return r;
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
