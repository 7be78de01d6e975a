// `lbdesk confirm WS --appliance NAME`: keep a commit-confirmed push (stop its rollback timer).
// Exit 0 confirmed, 1 nothing pending (or too late: the appliance already rolled back), 2 the
// appliance could not be reached or asked: then the push may still roll back, which a script
// must not take for "nothing pending".
import type { Command } from 'commander';
import { syncDataDir } from '../../services/sync';
import { about, unprefixed } from '../errors';
import { prepareForSync, refuseNoConfirm, sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

export function register(program: Command): void {
  const cmd = program
    .command('confirm')
    .description('confirm a pending commit-confirmed push (exit 0 confirmed, 1 nothing pending, 2 appliance not reached)')
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, true).action(async (file: string, o: SshCliOptions) => {
    const { prepared: named } = await prepareForSync(file, o, true);
    // With --all, an appliance without a rollback timer (nothing to confirm) is passed over,
    // not a reason to leave the others unconfirmed; named, it is an error.
    let prepared = named;
    if (o.all) {
      prepared = named.filter((p) => !p.noConfirm);
      for (const p of named) if (p.noConfirm) process.stderr.write(`lbdesk: ${p.appliance.name}: skipped: ${p.noConfirm}\n`);
    } else refuseNoConfirm(prepared);
    const ssh = sshOptionsFrom(o);
    let all = true;
    let unreached = false;
    for (const p of prepared) {
      try {
        const r = await p.confirm({ ...ssh, dataDir: syncDataDir() });
        process.stdout.write(`${p.appliance.name}: ${r.outcome}: ${unprefixed(p.appliance.name, r.reason)}\n`);
        if (r.outcome !== 'confirmed') all = false;
      } catch (err) {
        process.stderr.write(`lbdesk: ${about(p.appliance.name, (err as Error).message)} (not confirmed: a pending push there still rolls back when its time is up)\n`);
        unreached = true;
      }
    }
    process.exitCode = unreached ? 2 : all ? 0 : 1;
  });
}
