// Words for a place in the workspace, for undo/redo tooltips: `server web1 address`, not `servers.0.address`.
import { getIn, parsePath, type Path } from './tree';

const NOUN: Record<string, string> = {
  servers: 'server', groups: 'group', services: 'service', targetSets: 'target set', appliances: 'appliance',
  members: 'member', include: 'entry', ports: 'port',
};

/** The item at a list index by its name (or number), else its position from 1. */
function itemWords(raw: unknown, list: string, at: Path): string {
  const item = getIn(raw, at) as Record<string, unknown> | undefined;
  const noun = NOUN[list] ?? list;
  const idOf = (x: Record<string, unknown> | undefined) => (list === 'targetSets' ? x?.number : list === 'members' ? x?.server : x?.name);
  const id = idOf(item);
  const n = Number(at.at(-1)) + 1;
  if (typeof id !== 'string' && typeof id !== 'number') return `${noun} ${n}`;
  // Two web2s: the name says nothing, the position does.
  const siblings = getIn(raw, at.slice(0, -1));
  const shared = Array.isArray(siblings) && siblings.some((x, i) => i !== n - 1 && idOf(x as Record<string, unknown>) === id);
  return shared ? `${noun} ${id} (no. ${n})` : `${noun} ${id}`;
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

/**
 * A validation message with its places in words: "(also defined at servers[1])" reads "(also
 * defined at server web2)". The CLI keeps the paths (they name the YAML); the window names items.
 */
export function placesInWords(raw: unknown, message: string): string {
  return message.replace(/\b(?:servers|groups|services|targetSets|appliances)\[\d+\](?:\.[A-Za-z]\w*|\[\d+\])*/g, (m) => describeAt(raw, parsePath(m)));
}

/** The noun for an item of a top-level list (`server`), for "add server". */
export const itemNoun = (list: string): string => NOUN[list] ?? list;
