// `lbdesk push WS --pair NAME`: the rolling push of an HA pair (docs/ha.md). Standby first, then
// active; the first failure puts the pair back on its last good config. Exit 0 applied (or
// unchanged, would apply), 1 refused with both boxes unchanged, 3 rolled back or failed.
import { planInstances } from '../../../shared/model/pairs';
import type { Pair, Workspace } from '../../../shared/model/schema';
import { syncDataDir } from '../../services/sync';
import { pushPair, type PairBox, type PairReport } from '../../services/sync/pair';
import type { VerifyTarget } from '../../services/sync/target';
import type { ApplianceLink } from '../../services/sync/appliance';
import { CliError, unprefixed } from '../errors';
import { prepareForSync, progressLine, refuseNoConfirm, sshOptionsFrom, type PushCliOptions } from './push';

/** The box that is master of fewer instances is the standby (pushed first); a tie: the second member. */
export function pairOrder(ws: Workspace, pair: Pair): [string, string] {
  const plan = planInstances(pair, ws.services, ws.targetSets);
  const [m0, m1] = pair.members.map((m) => m.appliance) as [string, string];
  const masterOf = (a: string) => plan.filter((i) => i.master === a).length;
  return masterOf(m0) >= masterOf(m1) ? [m1, m0] : [m0, m1];
}

/** What must answer on the standby while it holds the active box's addresses: their TCP ports. */
function failoverVerify(ws: Workspace, pair: Pair, active: string): VerifyTarget[] {
  const out: VerifyTarget[] = [];
  for (const inst of planInstances(pair, ws.services, ws.targetSets)) {
    if (inst.master !== active) continue;
    for (const a of inst.addresses) {
      for (const s of ws.services) if (s.address === a.address && s.enabled && s.protocol === 'tcp') out.push({ address: s.address, port: s.port });
      for (const t of ws.targetSets) {
        if (!t.disabled && t.protocols !== 'sctp' && (t.address === a.address || t.secondaryAddress === a.address)) out.push(...t.ports.map((port) => ({ address: a.address, port })));
      }
    }
  }
  return out;
}

function box(name: string, pair: Pair, prepared: ApplianceLink[]): PairBox {
  const member = pair.members.find((m) => m.appliance === name)!;
  const mine = prepared.filter((p) => p.appliance.name === member.appliance || p.appliance.name === member.keepalived);
  const errors = mine.flatMap((p) => p.errors.map((e) => `${p.appliance.name}: ${e}`));
  const cli = mine.find((p) => p.appliance.driver === 'cli');
  return {
    name,
    items: mine.map((p) => ({ target: p.target, text: p.render.text })),
    ...(errors.length ? { refused: errors.join('; ') } : cli ? { refused: `${cli.appliance.name} has driver cli: a pair is pushed as files` } : {}),
  };
}

export async function pushPairCli(file: string, o: PushCliOptions, extra: { confirmWithinMs?: number; verifyTimeoutMs?: number }): Promise<void> {
  const { ws, prepared } = await prepareForSync(file, o, true);
  const pair = ws.pairs.find((p) => p.name === o.pair)!;
  if (extra.confirmWithinMs !== undefined) refuseNoConfirm(prepared);
  if (pair.members.length !== 2) throw new CliError(`pair ${pair.name} does not have two members`, 1);
  const [standby, active] = pairOrder(ws, pair);
  const failover = o.failoverTest ? { release: o.failoverRelease, restore: o.failoverRestore, verify: failoverVerify(ws, pair, active) } : undefined;
  if (failover && failover.verify.length === 0) throw new CliError(`--failover-test: ${active} is master of no TCP address to check on ${standby}`, 2);
  if (!o.quiet && !o.json) process.stderr.write(`lbdesk: pair ${pair.name}: ${standby} (standby) first, then ${active} (active)\n`);
  const report: PairReport = await pushPair(pair.name, box(standby, pair, prepared), box(active, pair, prepared), {
    ...sshOptionsFrom(o),
    dataDir: syncDataDir(),
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
    for (const r of report.reports) process.stdout.write(`${r.appliance}: ${r.outcome}: ${unprefixed(r.appliance, r.reason)}\n`);
    if (report.failover) process.stdout.write(`failover test: ${report.failover.ok ? 'ok' : 'FAILED'}: ${report.failover.reason}\n`);
    process.stdout.write(`pair ${pair.name}: ${report.outcome}: ${report.reason}\n`);
    for (const b of report.order) process.stdout.write(`${b} (${b === standby ? 'standby' : 'active'}) runs ${report.holds[b]}\n`);
    if (report.reports.some((r) => r.pending)) process.stdout.write(`confirm both with: lbdesk confirm ${file} --pair ${pair.name}\n`);
  }
  process.exitCode = report.outcome === 'refused' ? 1 : report.outcome === 'rolled-back' || report.outcome === 'failed' ? 3 : 0;
}
