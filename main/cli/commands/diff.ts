// `lbdesk diff WS --appliance NAME`: unified diff of what push would change on the appliance.
// Exit 0 no change, 1 changes, 2 trouble (like diff(1)).
import type { Command } from 'commander';
import { cannotRender } from '../../services/sync/refusals';
import { about, CliError } from '../errors';
import { prepareForSync, sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

export function register(program: Command): void {
  const cmd = program
    .command('diff')
    .description('unified diff of what push would change on the appliance (exit 0 no change, 1 changes)')
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, false)
    .option('--force', 'manage: sections: show what push --force would write over owned sections edited on the appliance')
    .action(async (file: string, o: SshCliOptions & { force?: boolean }) => {
    // An invalid workspace is trouble (2), never "changes" (1): a script would go on to push.
    const { prepared } = await prepareForSync(file, o, false).catch((err: unknown) => {
      throw err instanceof CliError && err.exitCode === 1 ? new CliError(err.message, 2) : err;
    });
    const p = prepared[0]!;
    if (p.errors.length) throw new CliError(`${p.appliance.name}: ${cannotRender(p.errors)}`, 2);
    let d;
    try {
      d = await p.diff({ ...sshOptionsFrom(o), force: o.force === true });
    } catch (err) {
      throw new CliError(about(p.appliance.name, (err as Error).message), 2);
    }
    // Conflicts (owned sections edited on the appliance) are shown before the patch.
    for (const c of d.conflicts ?? []) process.stderr.write(`lbdesk: ${p.appliance.name}: conflict: ${c}\n`);
    if (d.refused) throw new CliError(`${p.appliance.name}: cannot render onto the appliance's file: ${d.refused}`, 2);
    // A latin1 patch is the files' bytes, one per character: written back as those bytes.
    process.stdout.write(d.encoding === 'latin1' ? Buffer.from(d.patch, 'latin1') : d.patch);
    process.exitCode = d.changed ? 1 : 0;
  });
}
