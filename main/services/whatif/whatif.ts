// What-if, offline from the workspace alone: with the named servers, members, groups or HA boxes
// failed, each service and target set with the members it keeps and their shares of new
// connections, the clients that move, the addresses an HA mate takes over, and those left with
// none first. Pure: the CLI, the API (lab.whatif) and the change report call it.
import type { WhatIfMember, WhatIfPool, WhatIfReport, WhatIfTakeover } from '../../../shared/api/whatif';
import { planInstances, serves } from '../../../shared/model/pairs';
import type { Workspace } from '../../../shared/model/schema';
import { buildConfig, type PoolConfig } from '../engine/config';
import { resolveFailure } from './names';
import { CONNECTIONS, moves, shares, usableKeys } from './simulate';


/** `shares: false`: members left and their counts only (the change report), no simulation. */
export function whatIf(workspace: Workspace, names: readonly string[], opts: { shares?: boolean } = {}): WhatIfReport {
  const measure = opts.shares !== false;
  const failed = names.map((n) => resolveFailure(workspace, n));
  const keys = new Set(failed.flatMap((f) => f.members));
  const boxes = new Set(failed.flatMap((f) => f.appliances));
  const notes: string[] = [];
  for (const f of failed) if (f.kind === 'server' && f.members.length === 0) notes.push(`server ${f.name} is in no group: failing it changes no service`);
  // Every target set counts, SCTP-only ones too: an appliance serves them where the lab does not.
  const config = buildConfig({ ...workspace, targetSets: workspace.targetSets.map((t) => ({ ...t, protocols: 'tcp' as const })) });
  for (const s of workspace.services) if (!s.enabled) notes.push(`service ${s.name} is disabled: left out`);
  for (const t of workspace.targetSets) if (t.disabled) notes.push(`target set ${t.number} is disabled: left out`);
  const pools = config.pools.map((p) => poolReport(workspace, p, keys, boxes, measure));
  pools.sort((a, b) => Number(b.none) - Number(a.none));
  if (measure) notes.push(`shares: ${CONNECTIONS} new connections through the forwarding engine's own choice, every member left available (health score 10) and keeping what it is given`);
  return { workspace: workspace.name, failed, pools, takeovers: takeovers(workspace, boxes), simulated: measure ? CONNECTIONS : 0, notes };
}

function poolReport(workspace: Workspace, cfg: PoolConfig, keys: ReadonlySet<string>, boxes: ReadonlySet<string>, measure: boolean): WhatIfPool {
  const usableBefore = usableKeys(cfg, new Set());
  const usableNow = usableKeys(cfg, keys);
  const share = measure ? shares(cfg, keys) : new Map<string, number>();
  const nameOf = (key: string) => {
    const m = cfg.members.find((x) => x.key === key);
    if (!m) return key;
    if (cfg.kind === 'targetSet') return m.address;
    const group = key.slice(2, key.indexOf('/'));
    return `${group}/${m.server}${key.endsWith(':-') ? '' : `:${m.port}`}`;
  };
  const members: WhatIfMember[] = cfg.members.map((m) => ({
    key: m.key,
    name: nameOf(m.key),
    weight: m.weight,
    state: keys.has(m.key) ? 'failed' : !m.enabled ? 'disabled' : m.weight <= 0 ? 'weight 0' : 'left',
    share: usableNow.has(m.key) ? share.get(m.key) ?? 0 : 0,
  }));
  const servedBy = workspace.appliances.filter((a) => serves(a, cfg.service ?? '', cfg.targetSet) && (a.include === undefined || a.include.length > 0));
  const unserved = servedBy.length > 0 && servedBy.every((a) => boxes.has(a.name)) ? `every appliance that serves it failed (${servedBy.map((a) => a.name).join(', ')})` : undefined;
  const moved = keys.size && measure ? moves(cfg, keys, nameOf) : undefined;
  return {
    pool: cfg.id,
    kind: cfg.kind,
    name: cfg.name,
    algorithm: cfg.algorithm,
    persistence: cfg.persistence.type === 'client-ip' ? `client-ip ${cfg.persistence.timeoutMs / 1000}s` : 'none',
    left: usableNow.size,
    total: cfg.members.length,
    before: usableBefore.size,
    members,
    ...(moved && moved.moved > 0 ? { moves: moved } : {}),
    ...(unserved ? { unserved } : {}),
    none: usableNow.size === 0 || unserved !== undefined,
  };
}

/** Addresses that move to the mate of a failed box; with both boxes failed, they are lost. */
function takeovers(workspace: Workspace, boxes: ReadonlySet<string>): WhatIfTakeover[] {
  const out: WhatIfTakeover[] = [];
  const down = (appliance: string) => boxes.has(appliance) || workspace.pairs.some((p) => p.members.some((m) => m.appliance === appliance && m.keepalived !== undefined && boxes.has(m.keepalived)));
  for (const pair of workspace.pairs) {
    for (const inst of planInstances(pair, workspace.services, workspace.targetSets)) {
      if (!down(inst.master)) continue;
      for (const a of inst.addresses) {
        out.push({ pair: pair.name, instance: inst.id, address: a.address, from: a.from, failed: inst.master, ...(down(inst.backup) || !inst.backup ? {} : { to: inst.backup }) });
      }
    }
  }
  return out;
}
