// `lbdesk push WS --pair NAME`: the rolling push of an HA pair (docs/ha.md). Standby first, then
// active; the first failure puts the pair back on its last good config. Exit 0 applied (or
// unchanged, would apply), 1 refused with both boxes unchanged, 3 rolled back or failed.
import { ApiError } from '../../../shared/api/contract';
import { keptWords } from '../../services/operate';
import { pushPairOf } from '../../services/push';
import { syncDataDir } from '../../services/sync';
import { pushPair, type PairReport } from '../../services/sync/pair';
import { failoverVerify } from '../../services/sync/pair-workspace';
import { CliError, unprefixed } from '../errors';
import { prepareForSync, progressLine, sshOptionsFrom, type SshCliOptions } from '../sync-options';

/** What of push's options a pair push reads. */
export interface PairCliOptions extends SshCliOptions {
  dryRun?: boolean;
  force?: boolean;
  verify: boolean;
  json?: boolean;
  quiet?: boolean;
  failoverTest?: boolean;
  failoverRelease: string;
  failoverRestore: string;
}

export async function pushPairCli(file: string, o: PairCliOptions, extra: { confirmWithinMs?: number; verifyTimeoutMs?: number }): Promise<void> {
  const { workspace, path } = await prepareForSync(file, o, true, true);
  const pair = workspace.pairs.find((p) => p.name === o.pair)!;
  const dataDir = syncDataDir();
  // Commit-confirmed without a timer is a usage error (2); a pair that cannot be pushed, refused (1).
  const { standby, active, boxes, kept } = await pushPairOf(pair, { workspace, path, dataDir, dryRun: o.dryRun, confirmWithinMs: extra.confirmWithinMs }).catch((err: unknown) => {
    throw err instanceof ApiError ? new CliError(err.message, err.code === 'refused' ? 1 : 2) : err;
  });
  const failover = o.failoverTest ? { release: o.failoverRelease, restore: o.failoverRestore, verify: failoverVerify(workspace, pair, active) } : undefined;
  if (failover && failover.verify.length === 0) throw new CliError(`--failover-test: ${active} is master of no TCP address to check on ${standby}`, 2);
  if (!o.quiet && !o.json) process.stderr.write(`lbdesk: pair ${pair.name}: ${standby} (standby) first, then ${active} (active)\n`);
  // Members drained or in maintenance on a box stay so through its reload: named first, set again after.
  for (const { appliance, kept: members } of kept) {
    for (const k of members) if (!o.quiet && !o.json) process.stderr.write(`lbdesk: ${appliance}: ${o.dryRun ? 'would keep' : 'keeps'} ${keptWords(k)}\n`);
  }
  const report: PairReport = await pushPair(pair.name, ...boxes, {
    ...sshOptionsFrom(o),
    dataDir,
    dryRun: o.dryRun,
    force: o.force,
    confirmWithinMs: extra.confirmWithinMs,
    skipVerify: !o.verify,
    verifyTimeoutMs: extra.verifyTimeoutMs,
    ...(failover ? { failover } : {}),
    onProgress: (e) => {
      const line = o.quiet || o.json ? undefined : progressLine(e);
      if (line) process.stderr.write(`${line}\n`);
    },
  });
  if (o.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    for (const r of report.reports) {
      process.stdout.write(`${r.appliance}: ${r.outcome}: ${unprefixed(r.appliance, r.reason)}\n`);
      for (const n of r.notes.filter((x) => /^(kept |runtime states |the box's process did not change)/.test(x))) process.stdout.write(`${r.appliance}: note: ${n}\n`);
    }
    if (report.failover) process.stdout.write(`failover test: ${report.failover.ok ? 'ok' : 'FAILED'}: ${report.failover.reason}\n`);
    process.stdout.write(`pair ${pair.name}: ${report.outcome}: ${report.reason}\n`);
    for (const b of report.order) process.stdout.write(`${b} (${b === standby ? 'standby' : 'active'}) runs ${report.holds[b]}\n`);
    if (report.reports.some((r) => r.pending)) process.stdout.write(`confirm both with: lbdesk confirm ${file} --pair ${pair.name}\n`);
  }
  process.exitCode = report.outcome === 'refused' ? 1 : report.outcome === 'rolled-back' || report.outcome === 'failed' ? 3 : 0;
}
