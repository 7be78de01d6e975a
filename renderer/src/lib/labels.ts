// Words for a place in the workspace, for undo/redo tooltips: `server web1 address`, not `servers.0.address`.
import { getIn, type Path } from './tree';

const NOUN: Record<string, string> = {
  servers: 'server', groups: 'group', services: 'service', targetSets: 'target set', appliances: 'appliance',
  members: 'member', include: 'entry', ports: 'port',
};

/** The item at a list index by its name (or number), else its position from 1. */
function itemWords(raw: unknown, list: string, at: Path): string {
  const item = getIn(raw, at) as Record<string, unknown> | undefined;
  const noun = NOUN[list] ?? list;
  const id = list === 'targetSets' ? item?.number : list === 'members' ? item?.server : item?.name;
  return typeof id === 'string' || typeof id === 'number' ? `${noun} ${id}` : `${noun} ${Number(at.at(-1)) + 1}`;
}

export function describeAt(raw: unknown, path: Path): string {
  const words: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const k = path[i]!;
    const next = path[i + 1];
    if (typeof k === 'string' && typeof next === 'number') {
      words.push(itemWords(raw, k, path.slice(0, i + 2)));
      i++;
    } else if (typeof k === 'string') words.push(k === 'healthTimers' && i === 0 ? 'global timers' : k);
    else words.push(String(k + 1));
  }
  return words.join(' ') || 'workspace';
}

/** The noun for an item of a top-level list (`server`), for "add server". */
export const itemNoun = (list: string): string => NOUN[list] ?? list;
