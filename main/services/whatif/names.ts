// What `--fail X` names: a server, `GROUP/SERVER[:PORT]`, a group, an address (a server's, or a
// target-set server's, also as `N/ADDRESS`), or an appliance (an HA box: with its keepalived).
// An unknown name is refused with the closest known one.
import { memberKey } from '../../../shared/api/types';
import type { WhatIfFailure } from '../../../shared/api/whatif';
import { parseTargetSetIncludeName } from '../../../shared/model/ipfe';
import { pairOf } from '../../../shared/model/pairs';
import type { Workspace } from '../../../shared/model/schema';
import { didYouMean } from '../../../shared/model/similar';
import { normaliseAddress } from '../engine/config';

export class UnknownFailure extends Error {}

export function resolveFailure(workspace: Workspace, name: string): WhatIfFailure {
  const groupKeys = (group: string, keep: (server: string, port?: number) => boolean) =>
    workspace.groups.filter((g) => g.name === group).flatMap((g) => g.members.filter((m) => keep(m.server, m.port)).map((m) => memberKey({ group: g.name, server: m.server, port: m.port })));
  const out = (kind: WhatIfFailure['kind'], members: string[], appliances: string[] = []): WhatIfFailure => ({ name, kind, members, appliances });

  const slash = name.indexOf('/');
  if (slash > 0) {
    const head = name.slice(0, slash);
    const tail = name.slice(slash + 1);
    // A group of that name first: `1/x` is target set 1 only where no group is called "1".
    const named = workspace.groups.some((g) => g.name === head);
    const ts = named ? undefined : /^\d+$/.test(head) ? Number(head) : parseTargetSetIncludeName(head);
    if (ts !== undefined) {
      const set = workspace.targetSets.find((t) => t.number === ts);
      const found = set?.servers.find((s) => normaliseAddress(s.address) === normaliseAddress(tail));
      if (set && found) return out('member', [memberKey({ targetSet: ts, address: found.address })]);
      if (!set) throw new UnknownFailure(`no target set ${ts} in the workspace`);
      throw new UnknownFailure(`target set ${ts} has no server ${tail}${didYouMean(tail, set.servers.map((s) => s.address))}`);
    }
    const group = workspace.groups.find((g) => g.name === head);
    if (!group) throw new UnknownFailure(`no group "${head}" in the workspace${didYouMean(head, workspace.groups.map((g) => g.name))}`);
    const portAt = tail.lastIndexOf(':');
    const port = portAt > 0 && /^\d+$/.test(tail.slice(portAt + 1)) ? Number(tail.slice(portAt + 1)) : undefined;
    const server = port === undefined ? tail : tail.slice(0, portAt);
    const keys = groupKeys(head, (s, p) => s === server && (port === undefined || p === port));
    if (keys.length) return out('member', keys);
    const names = group.members.map((m) => (port === undefined || m.port === undefined ? m.server : `${m.server}:${m.port}`));
    throw new UnknownFailure(`group ${head} has no member ${tail}${didYouMean(tail, names)}`);
  }
  if (workspace.servers.some((s) => s.name === name)) {
    return out('server', workspace.groups.flatMap((g) => groupKeys(g.name, (s) => s === name)));
  }
  if (workspace.groups.some((g) => g.name === name)) return out('group', groupKeys(name, () => true));
  if (workspace.appliances.some((a) => a.name === name)) {
    const box = pairOf(workspace.pairs, name)?.member;
    return out('box', [], box ? [box.appliance, ...(box.keepalived ? [box.keepalived] : [])] : [name]);
  }
  const address = tryNormalise(name);
  if (address !== undefined) {
    const servers = workspace.servers.filter((s) => normaliseAddress(s.address) === address).map((s) => s.name);
    const keys = [
      ...workspace.groups.flatMap((g) => groupKeys(g.name, (s) => servers.includes(s))),
      ...workspace.targetSets.flatMap((t) => t.servers.filter((s) => normaliseAddress(s.address) === address).map((s) => memberKey({ targetSet: t.number, address: s.address }))),
    ];
    if (keys.length || servers.length) return out('address', keys);
  }
  const known = [...workspace.servers.map((s) => s.name), ...workspace.groups.map((g) => g.name), ...workspace.appliances.map((a) => a.name)];
  throw new UnknownFailure(`nothing named "${name}" in the workspace (a server, GROUP/SERVER, a group, an address or an appliance)${didYouMean(name, known)}`);
}

function tryNormalise(s: string): string | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !/[.:]/.test(s)) return undefined;
  return normaliseAddress(s);
}
