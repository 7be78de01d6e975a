// From a workspace to a rolling pair push: which box is the standby, what each box pushes (its
// appliance, then its keepalived), and what a failover test must find answering.
import { planInstances } from '../../../shared/model/pairs';
import { driverFacts } from '../../../shared/model/drivers';
import type { Pair, Workspace } from '../../../shared/model/schema';
import type { PairBox } from './pair';
import type { VerifyTarget } from './target';
import { openAppliance } from './appliance';

/** The box that is master of fewer instances is the standby (pushed first); a tie: the second member. */
export function pairOrder(workspace: Workspace, pair: Pair): [string, string] {
  const plan = planInstances(pair, workspace.services, workspace.targetSets);
  const [m0, m1] = pair.members.map((m) => m.appliance) as [string, string];
  const masterOf = (a: string) => plan.filter((i) => i.master === a).length;
  return masterOf(m0) >= masterOf(m1) ? [m1, m0] : [m0, m1];
}

/** What must answer on the standby while it holds the active box's addresses: their TCP ports. */
export function failoverVerify(workspace: Workspace, pair: Pair, active: string): VerifyTarget[] {
  const out: VerifyTarget[] = [];
  for (const inst of planInstances(pair, workspace.services, workspace.targetSets)) {
    if (inst.master !== active) continue;
    for (const a of inst.addresses) {
      for (const s of workspace.services) if (s.address === a.address && s.enabled && s.protocol === 'tcp') out.push({ address: s.address, port: s.port });
      for (const t of workspace.targetSets) {
        if (!t.disabled && t.protocols !== 'sctp' && (t.address === a.address || t.secondaryAddress === a.address)) out.push(...t.ports.map((port) => ({ address: a.address, port })));
      }
    }
  }
  return out;
}

/** One box ready to push: its member appliance and its keepalived, rendered; refused with the reasons when one cannot be. */
export function pairBox(workspace: Workspace, pair: Pair, name: string, workspacePath: string): PairBox {
  const member = pair.members.find((m) => m.appliance === name)!;
  const names = member.keepalived ? [member.appliance, member.keepalived] : [member.appliance];
  const mine = names.flatMap((n) => {
    const a = workspace.appliances.find((x) => x.name === n);
    return a ? [openAppliance(workspace, a, workspacePath)] : [];
  });
  const errors = mine.flatMap((p) => p.errors.map((e) => `${p.appliance.name}: ${e}`));
  if (mine.length < names.length) errors.push(`no appliance ${names.find((n) => !mine.some((p) => p.appliance.name === n))}`);
  // A template-driven vendor CLI is pushed by its commands, never as a file.
  const cli = mine.find((p) => driverFacts(p.appliance.driver).template);
  return {
    name,
    items: mine.map((p) => ({ target: p.target, text: p.render.text })),
    ...(errors.length ? { refused: errors.join('; ') } : cli ? { refused: `${cli.appliance.name} has driver ${cli.appliance.driver}: a pair is pushed as files` } : {}),
  };
}
