// `lbdesk push WS --appliance NAME …`: render, upload atomically, validate on the appliance,
// apply; with --confirm-within, the appliance rolls back unless `lbdesk confirm` follows.
// Exit 0 applied (or unchanged), 1 refused/failed with the appliance unchanged, 3 rolled back
// (or the appliance was touched and could not be rolled back cleanly).
import { Option, type Command } from 'commander';
import type { FleetReport, PushReport } from '../../../shared/api/sync';
import { formatDuration } from '../../../shared/model/duration';
import { CONFIRM_WITHIN_MAX_MS, CONFIRM_WITHIN_MIN_MS } from '../../../shared/model/limits';
import { ApiError } from '../../../shared/api/contract';
import { pushAppliance } from '../../services/push';
import { pushFleet, syncDataDir, type FleetItem } from '../../services/sync';
import { pendingWatches } from '../../services/sync/commands';
import { CliError, unprefixed } from '../errors';
import { durationOption, intOption, prepareForSync, progressLine, refuseNoConfirm, sshOptionsFrom, withSshOptions } from '../sync-options';
import { pushPairCli, type PairCliOptions } from './push-pair';
import { keptWords } from '../../services/operate';

export function exitCodeFor(reports: PushReport[]): number {
  if (reports.some((r) => r.outcome === 'rolled-back' || r.outcome === 'failed')) return 3;
  if (reports.some((r) => r.outcome === 'refused' || r.outcome === 'skipped')) return 1;
  return 0;
}

interface PushCliOptions extends PairCliOptions {
  confirmWithin?: string;
  verifyTimeout?: string;
  concurrency?: string;
  canary?: string;
  maxFailures?: string;
  restore?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('push')
    .description('render, upload atomically, validate on the appliance and apply (exit 0 applied, 1 refused with the appliance unchanged, 3 rolled back)')
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, true)
    .option('--dry-run', 'upload to a temp file and validate on the appliance; change nothing')
    .option('--confirm-within <duration>', 'commit-confirmed: the appliance restores the previous config unless `lbdesk confirm` arrives in time (a vendor box without its own timer: applied unsaved, and this process waits to send the inverse)')
    .option('--force', 'overwrite a remote config changed since the last pull or push')
    .option('--no-verify', 'skip connecting to the VIPs from the appliance after the reload')
    .option('--verify-timeout <duration>', 'how long the VIPs may take to answer after a reload (default 5s)')
    .option('--concurrency <n>', 'appliances pushed at once (default 8)')
    .option('--canary <n>', 'push this many appliances first, one by one; stop if one fails')
    .option('--max-failures <n>', 'stop starting new pushes after this many failures')
    .addOption(new Option('--restore <id>', 'push a version from the appliance\'s history (see `lbdesk pull --history`) instead of rendering'))
    .option('--failover-test', 'with --pair: between the boxes, move the addresses to the pushed standby and check it answers on them')
    .option('--failover-release <command>', 'with --failover-test: run on the active box to let its addresses go', 'systemctl stop keepalived')
    .option('--failover-restore <command>', 'with --failover-test: run on the active box to take them back', 'systemctl start keepalived')
    .option('--json', 'print the report as JSON on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .action(async (file: string, o: PushCliOptions) => {
      const confirmWithinMs = durationOption(o.confirmWithin, '--confirm-within');
      if (confirmWithinMs !== undefined && (confirmWithinMs < CONFIRM_WITHIN_MIN_MS || confirmWithinMs > CONFIRM_WITHIN_MAX_MS)) {
        throw new CliError(`--confirm-within ${o.confirmWithin} is out of range: from ${formatDuration(CONFIRM_WITHIN_MIN_MS)} (time for the push and the confirm) to ${formatDuration(CONFIRM_WITHIN_MAX_MS)}`, 2);
      }
      const verifyTimeoutMs = durationOption(o.verifyTimeout, '--verify-timeout');
      const concurrency = intOption(o.concurrency, '--concurrency');
      const canary = intOption(o.canary, '--canary');
      const maxFailures = intOption(o.maxFailures, '--max-failures');
      if (o.pair !== undefined) {
        if (o.restore || o.canary || o.concurrency || o.maxFailures) throw new CliError('--pair pushes one box at a time by itself: --restore, --canary, --concurrency and --max-failures do not apply', 2);
        await pushPairCli(file, o, { confirmWithinMs, verifyTimeoutMs });
        return;
      }
      if (o.failoverTest) throw new CliError('--failover-test needs --pair', 2);
      const { prepared, workspace } = await prepareForSync(file, o, true, true);
      if (o.restore && prepared.length !== 1) throw new CliError('--restore takes exactly one --appliance', 2);
      const dataDir = syncDataDir();
      const items: FleetItem[] = [];
      if (confirmWithinMs !== undefined) refuseNoConfirm(prepared);
      for (const p of prepared) {
        const item = await pushAppliance(p, { workspace, dataDir, dryRun: o.dryRun, confirmWithinMs, restore: o.restore }).catch((err: unknown) => {
          throw err instanceof ApiError ? new CliError(err.message, 2) : err;
        });
        items.push(item);
        if ('refused' in item) continue;
        const { restored: entry } = item;
        if (entry) process.stderr.write(`lbdesk: ${p.appliance.name}: restoring ${entry.id} (${entry.kind} of ${new Date(entry.at).toISOString()})\n`);
        // Members drained or in maintenance at run time stay so: named now, set again after the reload.
        for (const k of item.kept) process.stderr.write(`lbdesk: ${p.appliance.name}: ${o.dryRun ? 'would keep' : 'keeps'} ${keptWords(k)}\n`);
      }
      const report: FleetReport = await pushFleet(items, {
        ...sshOptionsFrom(o),
        dataDir,
        dryRun: o.dryRun,
        force: o.force,
        confirmWithinMs,
        skipVerify: !o.verify,
        verifyTimeoutMs,
        concurrency,
        canary,
        maxFailures,
        kind: o.restore ? 'restore' : 'push',
        onProgress: (e) => {
          const line = o.quiet || o.json ? undefined : progressLine(e);
          if (line) process.stderr.write(`${line}\n`);
        },
      });
      if (o.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        for (const r of report.reports) {
          process.stdout.write(`${r.appliance}: ${r.outcome}: ${unprefixed(r.appliance, r.reason)}\n`);
          for (const n of r.notes) process.stdout.write(`${r.appliance}: note: ${n}\n`);
          if (r.pending) process.stdout.write(`${r.appliance}: confirm with: lbdesk confirm ${file} --appliance ${r.appliance}\n`);
        }
        if (report.reports.length > 1) {
          const counts = Object.entries(report.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
          process.stdout.write(`${report.reports.length} appliances: ${counts} in ${(report.durationMs / 1000).toFixed(1)}s${report.stopped ? ` (stopped: ${report.stopped})` : ''}\n`);
        }
      }
      process.exitCode = exitCodeFor(report.reports);
      await waitForConfirm(o.quiet || o.json);
    });
}

/**
 * A vendor box without a timer of its own: this process is what sends the inverse at the
 * deadline, so it waits for it (or for `lbdesk confirm` from elsewhere) before it exits.
 */
async function waitForConfirm(quiet?: boolean): Promise<void> {
  const watches = pendingWatches();
  if (!watches.length) return;
  if (!quiet) process.stderr.write(`lbdesk: waiting for lbdesk confirm (from another terminal or the window) until the deadline, when this process sends the inverse; stopped before then (Ctrl-C), it sends nothing and the change stays running unsaved until the box reloads\n`);
  for (const w of watches) {
    const r = await w.done;
    const line = r.outcome === 'confirmed' ? 'confirmed: saved on the box'
      : r.outcome === 'rolled-back' ? `not confirmed: the inverse was sent at ${new Date(r.at).toISOString()}, nothing saved; the running config is the one before the push`
        : r.reason;
    process.stdout.write(`${w.appliance}: ${line}\n`);
    if (r.outcome !== 'confirmed') process.exitCode = 3;
  }
}
