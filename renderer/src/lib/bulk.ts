// Bulk actions on selected servers or group members, as edits for one undo step. Enable and
// disable act on the servers (a member has no switch of its own); drain and weight act on the
// members: a server's memberships in every group, or the members picked in one group.
import { WEIGHT_RANGE } from '../../../shared/model/schema';
import { list, num, str } from './derive';
import { plural } from './format';

export type WeightChange = { mode: 'set'; value: number } | { mode: 'percent'; value: number };
export type BulkAction = { kind: 'enable' } | { kind: 'disable' } | { kind: 'drain' } | { kind: 'weight'; change: WeightChange };
export type Bulk = { label: string; ops: EditOp[] } | { error: string };
type Obj = Record<string, unknown>;
/** The document edits a bulk action makes (a subset of the document worker's, which lib/ does not import). */
type EditOp = { op: 'set'; path: (string | number)[]; value: unknown } | { op: 'delete'; path: (string | number)[] };

const RANGE = `${WEIGHT_RANGE.min}-${WEIGHT_RANGE.max}`;

/** `150` sets the weight; `+10%` / `-25 %` changes it by a percentage of each member's own. */
export function parseWeightChange(text: string): WeightChange | { error: string } {
  const t = text.trim();
  const pct = /^([+-])\s*(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct) return { mode: 'percent', value: Number(pct[2]) * (pct[1] === '-' ? -1 : 1) };
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    if (n >= WEIGHT_RANGE.min && n <= WEIGHT_RANGE.max) return { mode: 'set', value: n };
    return { error: `weight ${t} is out of range (${RANGE})` };
  }
  return { error: `"${t}" is not a weight (${RANGE}) or a change like +10% or -25%` };
}

/** Members: [group index, member index]. */
export type MemberRef = readonly [number, number];

function weightOps(raw: Obj, members: MemberRef[], action: BulkAction): Bulk {
  const ops: EditOp[] = [];
  for (const [g, m] of members) {
    const group = list(raw.groups)[g];
    const member = list(group?.members)[m];
    if (!member) continue;
    const old = num(member.weight) ?? 100;
    let next = 0;
    if (action.kind === 'weight') {
      const c = action.change;
      next = c.mode === 'set' ? c.value : Math.round(old * (1 + c.value / 100));
      if (next < WEIGHT_RANGE.min || next > WEIGHT_RANGE.max) {
        return { error: `${str(member.server)} in group ${str(group?.name)}: weight ${old} ${c.value >= 0 ? '+' : ''}${c.value} % is ${next}, outside ${RANGE}; nothing was changed` };
      }
    }
    if (next !== old || member.weight === undefined) ops.push({ op: 'set', path: ['groups', g, 'members', m, 'weight'], value: next });
  }
  return { label: '', ops };
}

function describeWeight(c: WeightChange): string {
  return c.mode === 'set' ? `set weight ${c.value} on` : `change weight ${c.value >= 0 ? '+' : ''}${c.value} % on`;
}

/** Enable or disable servers by index. */
function switchOps(raw: Obj, servers: number[], on: boolean): EditOp[] {
  const ops: EditOp[] = [];
  for (const i of servers) {
    const s = list(raw.servers)[i];
    if (!s) continue;
    // Enabled is the default: enabling removes the switch rather than writing `enabled: true`.
    if (on && s.enabled === false) ops.push({ op: 'delete', path: ['servers', i, 'enabled'] });
    if (!on && s.enabled !== false) ops.push({ op: 'set', path: ['servers', i, 'enabled'], value: false });
  }
  return ops;
}

function finish(verb: string, what: string, r: Bulk): Bulk {
  return 'error' in r ? r : { label: `${verb} ${what}`, ops: r.ops };
}

/** A bulk action on servers (by index): drain and weight apply to their members in every group. */
export function serversBulk(raw: Obj, servers: number[], action: BulkAction): Bulk {
  const what = plural(servers.length, 'server');
  if (action.kind === 'enable' || action.kind === 'disable') return { label: `${action.kind} ${what}`, ops: switchOps(raw, servers, action.kind === 'enable') };
  const names = new Set(servers.map((i) => str(list(raw.servers)[i]?.name)));
  const members: MemberRef[] = [];
  list(raw.groups).forEach((g, gi) => list(g.members).forEach((m, mi) => names.has(str(m.server)) && members.push([gi, mi])));
  if (!members.length) return { error: `${servers.length === 1 ? 'this server is' : 'these servers are'} in no group: weights belong to group members` };
  return finish(action.kind === 'drain' ? 'drain' : describeWeight((action as { change: WeightChange }).change), what, weightOps(raw, members, action));
}

/** A bulk action on members of group `group` (by member index): enable / disable their servers. */
export function membersBulk(raw: Obj, group: number, members: number[], action: BulkAction): Bulk {
  const g = list(raw.groups)[group];
  const what = `${plural(members.length, 'member')} of group ${str(g?.name)}`;
  if (action.kind === 'enable' || action.kind === 'disable') {
    const index = new Map(list(raw.servers).map((s, i) => [str(s.name), i] as const));
    const servers = [...new Set(members.map((m) => index.get(str(list(g?.members)[m]?.server))).filter((i): i is number => i !== undefined))];
    return { label: `${action.kind} the servers of ${what}`, ops: switchOps(raw, servers, action.kind === 'enable') };
  }
  const refs = members.map((m): MemberRef => [group, m]);
  return finish(action.kind === 'drain' ? 'drain' : describeWeight((action as { change: WeightChange }).change), what, weightOps(raw, refs, action));
}
