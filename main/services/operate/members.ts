// MEMBER arguments (`GROUP/SERVER`, `GROUP/SERVER:PORT`, or `SERVER` alone for each group it is
// in) resolved against the workspace; an unknown one is a usage error naming what exists.
import type { Workspace } from '../../../shared/model/schema';
import type { WorkspaceMember } from './types';

export function memberLabel(group: string, server: string, port?: number): string {
  return `${group}/${server}${port === undefined ? '' : `:${port}`}`;
}

/** Every member of every group, in workspace order. */
export function allMembers(workspace: Workspace): WorkspaceMember[] {
  const out: WorkspaceMember[] = [];
  for (const g of workspace.groups) {
    for (const m of g.members) {
      const s = workspace.servers.find((x) => x.name === m.server);
      if (!s) continue;
      out.push({ group: g.name, server: m.server, ...(m.port === undefined ? {} : { port: m.port }), address: s.address, label: memberLabel(g.name, m.server, m.port) });
    }
  }
  return out;
}

export class MemberError extends Error {}

/** The members the arguments name, each once, in the order given. */
export function resolveMembers(workspace: Workspace, args: string[]): WorkspaceMember[] {
  const all = allMembers(workspace);
  const out: WorkspaceMember[] = [];
  for (const arg of args) {
    const found = matchOne(all, arg);
    if (found.length === 0) throw new MemberError(unknown(workspace, all, arg));
    for (const m of found) if (!out.includes(m)) out.push(m);
  }
  return out;
}

function matchOne(all: WorkspaceMember[], arg: string): WorkspaceMember[] {
  const slash = arg.indexOf('/');
  if (slash < 0) return all.filter((m) => m.server === arg);
  const group = arg.slice(0, slash);
  const rest = arg.slice(slash + 1);
  const colon = rest.lastIndexOf(':');
  const port = colon >= 0 && /^\d+$/.test(rest.slice(colon + 1)) ? Number(rest.slice(colon + 1)) : undefined;
  const server = port === undefined ? rest : rest.slice(0, colon);
  const inGroup = all.filter((m) => m.group === group && m.server === server);
  if (port !== undefined) return inGroup.filter((m) => m.port === port);
  // GROUP/SERVER where the server is in the group on two ports: say which one.
  if (inGroup.length > 1) throw new MemberError(`${arg} is in group ${group} on ${inGroup.length} ports: name one (${inGroup.map((m) => m.label).join(', ')})`);
  return inGroup;
}

function unknown(workspace: Workspace, all: WorkspaceMember[], arg: string): string {
  const slash = arg.indexOf('/');
  if (slash < 0) {
    return workspace.servers.some((s) => s.name === arg)
      ? `server ${arg} is in no group`
      : `unknown member "${arg}": no server of that name (a member is GROUP/SERVER, GROUP/SERVER:PORT or SERVER)`;
  }
  const group = arg.slice(0, slash);
  const members = all.filter((m) => m.group === group);
  if (!workspace.groups.some((g) => g.name === group)) return `unknown member "${arg}": no group ${group} (groups: ${workspace.groups.map((g) => g.name).join(', ') || 'none'})`;
  return `unknown member "${arg}": group ${group} has ${members.length ? members.map((m) => m.label).join(', ') : 'no members'}`;
}
