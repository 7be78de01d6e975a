// One push of one appliance as the user asks it, the same from the CLI and the window: what goes
// (the render, or a stored version for a restore), what refuses it before any login, and the
// members kept drained or in maintenance through the reload. A fleet takes it as one item.
import { ApiError } from '../../../shared/api/contract';
import type { HistoryEntry, PushReport } from '../../../shared/api/sync';
import type { Pair, Workspace } from '../../../shared/model/schema';
import { loadKept, reloadKeeper } from '../operate';
import type { KeptMember } from '../sync/kept';
import { openAppliance, type ApplianceLink } from '../sync/appliance';
import { readHistory } from '../sync/history';
import type { PairBox } from '../sync/pair';
import { pairBox, pairOrder } from '../sync/pair-workspace';
import type { PushOptions } from '../sync/push';
import { cannotRender, noConfirmFor, notTwoMembers } from '../sync/refusals';
import type { SyncTarget } from '../sync/target';

export interface PushAsk {
  workspace: Workspace;
  dataDir: string;
  dryRun?: boolean;
  confirmWithinMs?: number;
  /** A history entry id: push that stored version instead of the render. */
  restore?: string;
}

/** Refused before anything is read (a fleet reports it), or ready to run with the fleet's or the session's options. */
export type AppliancePush =
  | { target: SyncTarget; refused: string }
  | {
    target: SyncTarget;
    config: string | Buffer;
    /** The stored version a restore pushes. */
    restored?: HistoryEntry;
    /** Members the push keeps as they are at run time (set so again after the reload). */
    kept: KeptMember[];
    run: (opts: PushOptions) => Promise<PushReport>;
  };

/**
 * Throws ApiError `unsupported` (commit-confirmed without a timer on the box) or `not-found`
 * (no such stored version): nothing to push at all. A render error is a refused item.
 */
export async function pushAppliance(link: ApplianceLink, ask: PushAsk): Promise<AppliancePush> {
  const name = link.appliance.name;
  if (ask.confirmWithinMs !== undefined && link.noConfirm) throw new ApiError('unsupported', noConfirmFor(name, link.noConfirm));
  if (link.errors.length) return { target: link.target, refused: cannotRender(link.errors) };
  const stored = ask.restore === undefined ? undefined : await readHistory(ask.dataDir, name, ask.restore).catch((e: Error) => {
    throw new ApiError('not-found', e.message);
  });
  const config = stored?.data ?? link.render.text;
  const kept = await loadKept(ask.dataDir, name);
  // A dry run reloads nothing: nothing to keep through it.
  const keep = ask.dryRun ? undefined : await reloadKeeper({ workspace: ask.workspace, appliance: link.appliance, target: link.target }, ask.dataDir);
  return {
    target: link.target, config, kept, ...(stored ? { restored: stored.entry } : {}),
    run: (opts) => link.push(config, { ...opts, ...(keep ? { keep } : {}), ...(stored ? { kind: 'restore' as const } : {}) }),
  };
}

export interface PairPush {
  standby: string;
  active: string;
  /** Standby first, then active; each item keeps its members' runtime states through its reload. */
  boxes: [PairBox, PairBox];
  /** Members each appliance keeps as they are at run time, in push order. */
  kept: { appliance: string; kept: KeptMember[] }[];
}

/**
 * A rolling pair push as the user asks it, the same from the CLI and the window. Throws ApiError
 * `unsupported` (commit-confirmed onto an appliance without a timer) or `refused` (not two members).
 */
export async function pushPairOf(pair: Pair, ask: Omit<PushAsk, 'restore'> & { path: string }): Promise<PairPush> {
  const { workspace, dataDir } = ask;
  if (ask.confirmWithinMs !== undefined) {
    for (const name of pair.members.flatMap((m) => (m.keepalived ? [m.appliance, m.keepalived] : [m.appliance]))) {
      const a = workspace.appliances.find((x) => x.name === name);
      const why = a && openAppliance(workspace, a, ask.path).noConfirm;
      if (why) throw new ApiError('unsupported', noConfirmFor(name, why));
    }
  }
  if (pair.members.length !== 2) throw new ApiError('refused', notTwoMembers(pair.name));
  const [standby, active] = pairOrder(workspace, pair);
  const kept: PairPush['kept'] = [];
  const keeping = async (box: PairBox): Promise<PairBox> => {
    const items = await Promise.all(box.items.map(async (item) => {
      const appliance = workspace.appliances.find((x) => x.name === item.target.appliance)!;
      // A dry run reloads nothing: nothing to keep through it.
      const keep = ask.dryRun ? undefined : await reloadKeeper({ workspace, appliance, target: item.target }, dataDir);
      return { item: keep ? { ...item, keep } : item, kept: { appliance: appliance.name, kept: await loadKept(dataDir, appliance.name) } };
    }));
    kept.push(...items.map((x) => x.kept));
    return { ...box, items: items.map((x) => x.item) };
  };
  const boxes: [PairBox, PairBox] = [await keeping(pairBox(workspace, pair, standby, ask.path)), await keeping(pairBox(workspace, pair, active, ask.path))];
  return { standby, active, boxes, kept };
}
