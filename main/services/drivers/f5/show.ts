// F5 BIG-IP at run time: `show ltm pool members` (each member's availability, state, reason,
// monitor and server-side connections) beside `list ltm node` and `list ltm pool` (addresses and
// ratios), and the tmsh member modifications that drain, force down or restore one, not saved:
//   drain  `session user-disabled`: no new connections (persistent ones still come), open ones go on
//   maint  `state user-down session user-disabled`: forced offline, its checks' verdict ignored
//   ready  `session user-enabled state user-up`
import type { BoxMember, LiveAdmin, LiveDialect } from '../live';
import { parseF5 } from './parse';

export interface F5MemberStatus {
  pool: string;
  member: string;
  fields: Map<string, string>;
  connections?: number;
}

/** Blocks headed `Ltm::Pool Member: NAME` (after `Ltm::Pool: POOL`), with or without the `| ` margin. */
export function parseShowPoolMembers(text: string): F5MemberStatus[] {
  const out: F5MemberStatus[] = [];
  let pool = '';
  let cur: F5MemberStatus | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s*\|\s?/, '');
    const p = /^Ltm::Pool:\s+(\S+)/.exec(line);
    if (p) { pool = p[1]!; cur = undefined; continue; }
    const m = /^Ltm::Pool Member:\s+(.+)$/.exec(line);
    if (m) {
      const words = m[1]!.trim().split(/\s+/);
      cur = { pool: words.length > 1 ? words[0]! : pool, member: words[words.length - 1]!, fields: new Map() };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const f = /^\s*([A-Z][\w ]*?)\s*:\s*(.+?)\s*$/.exec(line);
    if (f) { cur.fields.set(f[1]!, f[2]!); continue; }
    const c = /^\s*Current Connections\s+(\d+)/.exec(line);
    if (c && cur.connections === undefined) cur.connections = Number(c[1]);
  }
  return out;
}

const base = (name: string) => name.replace(/^\/[^/]+\//, '');

export function f5Members(show: string, listed: string): BoxMember[] {
  const cfg = parseF5(listed);
  return parseShowPoolMembers(show).flatMap((s) => {
    const colon = s.member.lastIndexOf(':');
    const node = s.member.slice(0, colon);
    const port = Number(s.member.slice(colon + 1));
    if (colon < 0 || !Number.isInteger(port)) return [];
    const pool = cfg.pools.find((p) => base(p.obj.name!) === base(s.pool));
    const conf = pool?.members.find((m) => base(m.node) === base(node) && Number(m.port) === port);
    const address = conf?.address ?? cfg.nodes.find((n) => base(n.obj.name!) === base(node))?.address ?? node;
    const avail = s.fields.get('Availability') ?? 'unknown';
    const state = s.fields.get('State') ?? '';
    const reason = s.fields.get('Reason') ?? '';
    const monitor = s.fields.get('Monitor Status') ?? '';
    const admin: LiveAdmin = conf?.down || /forced (?:offline|down)/i.test(reason) || /forced down|user-down/i.test(monitor) ? 'maint'
      : conf?.disabled || /disabled/i.test(state) ? 'drain' : 'ready';
    const health = /^available$/i.test(avail) ? 'up' : /^(offline|unavailable)$/i.test(avail) ? 'down' : 'no-check';
    return [{
      object: base(node), address, port, container: pool?.obj.name ?? s.pool, admin, health,
      ...(s.connections === undefined ? {} : { sessions: s.connections }),
      ...(conf ? { weight: conf.ratio } : {}),
      check: [avail, state, reason].filter(Boolean).join(', ') + (monitor ? ` (monitor ${monitor})` : ''),
      on: `pool ${pool?.obj.name ?? s.pool} member ${conf?.name ?? s.member}`,
    }];
  });
}

const CHANGE: Record<LiveAdmin, string> = {
  drain: 'session user-disabled',
  maint: 'state user-down session user-disabled',
  ready: 'session user-enabled state user-up',
};

export const f5Live: LiveDialect = {
  show: ['show ltm pool members', 'list ltm node', 'list ltm pool'],
  parse: ([show, nodes, pools]) => f5Members(show ?? '', `${nodes ?? ''}\n${pools ?? ''}`),
  change(m, admin) {
    const member = m.on.replace(/^pool \S+ member /, '');
    return [`modify ltm pool ${m.container} members modify { ${member} { ${CHANGE[admin]} } }`];
  },
};
