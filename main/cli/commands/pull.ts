// `lbdesk pull WS --appliance NAME [--out FILE]`: fetch the appliance's running config (kept in
// the appliance's history). `--history` lists that history; `--show ID` prints one entry.
import type { Command } from 'commander';
import { listHistory, listOperations, readHistory, syncDataDir } from '../../services/sync';
import { outForWords } from '../../services/sync/kept';
import { about, CliError } from '../errors';
import { notTheWorkspace, writeOut } from '../out';
import { prepareForSync, sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

interface PullOptions extends SshCliOptions {
  out?: string;
  history?: boolean;
  show?: string;
}

async function output(data: Buffer, out: string | undefined): Promise<void> {
  if (out) await writeOut(out, data, 1);
  else process.stdout.write(data);
}

export function register(program: Command): void {
  const cmd = program
    .command('pull')
    .description("fetch the appliance's running config (exit 0, 1 on failure)")
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, false)
    .option('--out <file>', 'write it to FILE instead of stdout')
    .option('--history', 'list the versions pushed to and pulled from this appliance (no connection)')
    .option('--show <id>', 'print a stored version (id or unique prefix, or hash prefix) instead of connecting')
    .action(async (file: string, o: PullOptions) => {
      // Before connecting: a pull must never land on the workspace it was read from.
      if (o.out) await notTheWorkspace(file, o.out);
      const { prepared } = await prepareForSync(file, o, false);
      const p = prepared[0]!;
      const dataDir = syncDataDir();
      if (o.history) {
        const entries = await listHistory(dataDir, p.appliance.name);
        // Runtime operations (drain, maint, ready) sit between the versions, in time order.
        const ops = await listOperations(dataDir, p.appliance.name);
        if (entries.length === 0 && ops.length === 0) process.stderr.write(`lbdesk: no history for appliance ${p.appliance.name} yet\n`);
        const lines: { at: number; text: string }[] = ops.map((e) => ({
          at: e.at,
          text: `${e.id}  ${new Date(e.at).toISOString()}  operation:${e.operation}${e.outcome === 'refused' ? ':refused' : ''}  ${e.members.join(', ')}  by ${e.by}  ${e.target}${e.reason ? `  (${e.reason})` : ''}${e.outFor ? `  out for ${Object.entries(e.outFor).map(([m, ms]) => `${m} ${outForWords(ms)}`).join(', ')}` : ''}\n`,
        }));
        for (const e of entries) {
          const fate = e.confirm === 'pending' ? ' (confirm pending)' : e.confirm === 'confirmed' ? ' (confirmed)' : e.confirm === 'rolled-back' ? ' (not confirmed in time)' : '';
          lines.push({ at: e.at, text: `${e.id}  ${new Date(e.at).toISOString()}  ${e.kind}${e.outcome ? `:${e.outcome}` : ''}${fate}  ${e.bytes} bytes  sha256:${e.hash.slice(0, 12)}  ${e.target}:${e.configPath}\n` });
        }
        for (const l of lines.sort((a, b) => a.at - b.at)) process.stdout.write(l.text);
        return;
      }
      if (o.show) {
        const { data } = await readHistory(dataDir, p.appliance.name, o.show).catch((err: Error) => { throw new CliError(err.message, 1); });
        await output(data, o.out);
        return;
      }
      try {
        const r = await p.pull({ ...sshOptionsFrom(o), dataDir });
        await output(r.data, o.out);
        process.stderr.write(`lbdesk: pulled ${r.data.length} bytes of ${r.where} from ${r.target}${r.via ? ` by ${r.via}` : ''}${r.entry ? ` (history ${r.entry.id})` : ''}\n`);
      } catch (err) {
        if (err instanceof CliError) throw err;
        throw new CliError(about(p.appliance.name, (err as Error).message), 1);
      }
    });
}
