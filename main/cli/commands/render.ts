// `lbdesk render WS --appliance NAME [--out FILE]`: the config the appliance's driver would push.
import type { Command } from 'commander';
import { renderForAppliance, type DriverProblem } from '../../services/drivers';
import { CliError } from '../errors';
import { notTheWorkspace, writeOut } from '../out';
import { readWorkspace } from '../workspace';

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
      const { ws, path } = await readWorkspace(file, { unreadable: 2, invalid: 1 });
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
