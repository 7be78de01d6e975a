// NetScaler (Citrix ADC) at run time: the running config (servers, their state, each service
// group's binds), `show serviceGroup G` per group (each member's state, weight, monitor and its
// last response) and `stat serviceGroupMember G S P` per member (its current client
// connections), and the commands that drain, stop or restore one member, never saved (no
// `save ns config`: the saved config stays what the last push left):
//   drain  `disable serviceGroup G S P -graceFul YES`: no new connections; the member goes out
//          of service once its open ones are closed. No `-delay`: during a delay the box still
//          sends persistent clients to it (command reference, `disable serviceGroup`).
//   maint  `disable server S`: out of service at once, in every group
//   ready  `enable serviceGroup G S P` (and `enable server S` when the server was disabled)
// The layout of `show serviceGroup` is the one a Citrix ADC VPX prints in the citrix-k8s-ingress-
// controller docs (a member block read through the search tool's code corpus, file ids
// 22891545907 and 22315009130; addresses here changed to documentation ranges):
//   	1)    198.51.100.20:443	State: UP	Server Name: 198.51.100.20	Server ID: None	Weight: 1
//   		Last state change was at Sat Jan 16 05:19:47 2021
//   		Monitor Name: tcp-default 	State: UP	Passive: 0
//   		Last response: Success - TCP syn+ack received.
// `stat serviceGroupMember` is read by its row name, "Current client connections", as the
// command reference names that output; the last number on the row is the count.
import type { BoxMember, LiveAdmin, LiveDialect } from '../live';
import { nsOptions, parseNs, quoteNs, type NsConfig } from './parse';

export interface NsMemberRow {
  address: string;
  port: number;
  state: string;
  server: string;
  weight?: number;
  monitor?: string;
  monitorState?: string;
  lastResponse?: string;
}

/** The member blocks of `show serviceGroup G`: tab-separated `Key: value` fields. */
export function parseShowServiceGroup(text: string): NsMemberRow[] {
  const out: NsMemberRow[] = [];
  let cur: NsMemberRow | undefined;
  for (const raw of text.split('\n')) {
    const fields = raw.replace(/\r$/, '').split('\t').map((f) => f.trim()).filter(Boolean);
    const head = /^\d+\)\s*(\S+)$/.exec(fields[0] ?? '');
    const value = (k: string) => fields.find((f) => f.startsWith(`${k}:`))?.slice(k.length + 1).trim();
    if (head) {
      const at = head[1]!.lastIndexOf(':');
      const port = Number(head[1]!.slice(at + 1));
      cur = { address: head[1]!.slice(0, at).replace(/^\[|\]$/g, ''), port, state: value('State') ?? 'UNKNOWN', server: value('Server Name') ?? head[1]!.slice(0, at) };
      const w = value('Weight');
      if (w !== undefined && /^\d+$/.test(w)) cur.weight = Number(w);
      if (Number.isInteger(port)) out.push(cur);
      continue;
    }
    if (!cur) continue;
    const mon = value('Monitor Name');
    if (mon !== undefined) { cur.monitor = mon; cur.monitorState = value('State'); continue; }
    const last = value('Last response');
    if (last !== undefined) cur.lastResponse = last;
  }
  return out;
}

/** `Current client connections   --   4`: the last number on that row. */
export function parseStatClientConnections(text: string): number | undefined {
  const row = text.split('\n').find((l) => /^\s*Current client connections\b/i.test(l));
  const n = row ? /(\d+)\s*$/.exec(row.replace(/\r$/, '')) : undefined;
  return n ? Number(n[1]) : undefined;
}

interface Asked { group: string; server: string; port: number }

/** What `then` asks, in order: each group's show, then a stat per member the group binds. */
function asked(cfg: NsConfig): { commands: string[]; groups: string[]; members: Asked[] } {
  const groups = cfg.groups.map((g) => g.name);
  const members = cfg.groups.flatMap((g) => g.members.map((m) => ({ group: g.name, server: m.server, port: m.port })));
  return {
    commands: [...groups.map((g) => `show serviceGroup ${quoteNs(g)}`), ...members.map((m) => `stat serviceGroupMember ${quoteNs(m.group)} ${quoteNs(m.server)} ${m.port}`)],
    groups, members,
  };
}

const OUT = /OUT OF SERVICE|^TROFS|^OFS$/i;

export function nsMembers(outputs: string[]): BoxMember[] {
  const running = outputs[0] ?? '';
  const cfg = parseNs(running);
  const a = asked(cfg);
  const shows = outputs.slice(1, 1 + a.groups.length);
  const stats = outputs.slice(1 + a.groups.length);
  return a.groups.flatMap((group, gi) => parseShowServiceGroup(shows[gi] ?? '').map((row): BoxMember => {
    const server = cfg.servers.find((s) => s.name === row.server);
    const bind = cfg.groups[gi]!.members.find((m) => m.server === row.server && m.port === row.port);
    const memberDisabled = bind ? nsOptions(bind.line.words).opts.get('state')?.[0]?.toUpperCase() === 'DISABLED' : false;
    const admin: LiveAdmin = server?.disabled ? 'maint' : memberDisabled || OUT.test(row.state) ? 'drain' : 'ready';
    const health = admin !== 'ready' ? 'no-check' : /^UP$/i.test(row.state) ? 'up' : /^DOWN$/i.test(row.state) ? 'down' : 'no-check';
    const si = a.members.findIndex((m) => m.group === group && m.server === row.server && m.port === row.port);
    const sessions = si < 0 ? undefined : parseStatClientConnections(stats[si] ?? '');
    const monitor = row.monitor ? `, monitor ${row.monitor} ${row.monitorState ?? ''}`.trimEnd() + (row.lastResponse ? `: ${row.lastResponse}` : '') : '';
    return {
      object: row.server, address: server?.address ?? row.address, port: row.port, container: group, admin, health,
      ...(sessions === undefined ? {} : { sessions }),
      ...(row.weight === undefined ? {} : { weight: row.weight }),
      check: `State: ${row.state}${monitor}`,
      on: `serviceGroup ${group} member ${row.server} ${row.port}`,
    };
  }));
}

export const nsLive: LiveDialect = {
  show: ['show ns runningConfig'],
  then: ([running]) => asked(parseNs(running ?? '')).commands,
  parse: nsMembers,
  change(m, admin) {
    const member = `${quoteNs(m.container!)} ${quoteNs(m.object)} ${m.port}`;
    if (admin === 'drain') return [`disable serviceGroup ${member} -graceFul YES`];
    if (admin === 'maint') return [`disable server ${quoteNs(m.object)}`];
    return [`enable serviceGroup ${member}`, ...(m.admin === 'maint' ? [`enable server ${quoteNs(m.object)}`] : [])];
  },
};
