// The HAProxy runtime: `show stat` + `show servers state` to read, `set server B/S state …` to
// change, on the stats socket (the appliance's statsSocket, else the one its config declares).
import { selectIncluded } from '../drivers';
import { KEEP_AFTER_RELOAD, StatsSocket, SocketError, declaredSockets } from './haproxy-socket';
import { boxServersOf, memberState, parseBox, type BoxServer } from './haproxy-stat';
import type { AdminState, MemberState, Runtime, RuntimeContext, RuntimeDriver, SetOutcome, WorkspaceMember } from './types';

export class RuntimeError extends Error {}

function openHaproxy(ctx: RuntimeContext): Runtime {
  let socket: Promise<StatsSocket> | undefined;
  const services = selectIncluded(ctx.workspace, ctx.appliance).services;
  const backendsOf = (group: string) => [...new Set([...services.filter((s) => s.group === group).map((s) => s.name), group])];

  const find = async (): Promise<StatsSocket> => {
    const remote = ctx.remote;
    if (ctx.appliance.statsSocket) return new StatsSocket(remote, ctx.appliance.statsSocket);
    const live = await remote.readLive();
    if (!live) throw new RuntimeError(`${ctx.configPath} does not exist on the box: no stats socket to find`);
    const { sockets, other } = declaredSockets(live.toString('utf8'));
    if (sockets.length === 0) {
      const tcp = other.length ? ` (only ${other.join(', ')}, which lbdesk does not reach: it uses a UNIX socket)` : '';
      throw new RuntimeError(`${ctx.configPath} declares no stats socket in global${tcp}: add "stats socket /run/haproxy/admin.sock mode 600 level admin", or set statsSocket on appliance ${ctx.appliance.name}`);
    }
    return new StatsSocket(remote, sockets[0]!.path);
  };
  const open = () => (socket ??= find().catch((err: unknown) => { socket = undefined; throw err; }));
  const ask = async (commands: string[]) => {
    const s = await open();
    try {
      return await s.ask(commands);
    } catch (err) {
      if (err instanceof SocketError) throw new RuntimeError(err.message);
      throw err;
    }
  };
  const box = async () => {
    const [stat, servers] = await ask(['show stat', 'show servers state']);
    return parseBox(stat!.text, servers!.text);
  };
  const placed = (members: WorkspaceMember[], seen: Map<string, BoxServer>) => members.map((m) => {
    const backends = backendsOf(m.group);
    const servers = boxServersOf(seen, m, backends);
    return { member: m, servers, state: memberState(m, servers, backends) };
  });
  /** For a change, only where the members are (their backends' servers) and which backends stick. */
  const where = async (members: WorkspaceMember[]) => {
    const names = [...new Set(members.flatMap((m) => backendsOf(m.group)))];
    const answers = await ask([...names.map((n) => `show servers state ${n}`), 'show table']);
    const tables = new Set([...answers.pop()!.text.matchAll(/^# table: ([^,]+),/gm)].map((t) => t[1]!));
    return { box: parseBox('', answers.map((a) => a.text).join('\n')), tables };
  };
  /** Success is silence; anything else is the box's refusal, in its words. */
  const refusals = (answers: { text: string }[], on: BoxServer[]) => answers
    .map((a, i) => ({ words: a.text.trim(), on: on[i]! })).filter((a) => a.words)
    .map((a) => `${a.on.backend}/${a.on.server}: "${a.words.split('\n')[0]}"`);

  return {
    async via() {
      const s = await open();
      return `stats socket ${s.path}${s.via ? ` via ${s.via}` : ''}`;
    },
    async state(members): Promise<MemberState[]> {
      return placed(members, await box()).map((p) => p.state);
    },
    async set(members, admin: AdminState): Promise<SetOutcome> {
      const { box: b, tables } = await where(members);
      const all = placed(members, b);
      const missing = all.find((p) => p.servers.length === 0);
      if (missing) throw new RuntimeError(`${missing.member.label}: ${missing.state.why}; nothing was changed`);
      const targets: BoxServer[] = all.flatMap((p) => p.servers);
      const said = refusals(await ask(targets.map((s) => `set server ${s.backend}/${s.server} state ${admin}`)), targets);
      if (said.length) return { ok: false, refused: said.join('; ') };
      // HAProxy's drain still takes persistent clients: their stick entries go, so they are balanced elsewhere.
      const sticky = admin === 'drain' ? targets.filter((s) => tables.has(s.backend)) : [];
      if (sticky.length) {
        const cleared = refusals(await ask(sticky.map((s) => `clear table ${s.backend} data.server_id eq ${s.id}`)), sticky);
        if (cleared.length) return { ok: false, refused: `drained, but its persistent clients were not moved: ${cleared.join('; ')}` };
      }
      return { ok: true };
    },
    async boxKeeper(sets) {
      const lines: string[] = [];
      for (const { members, admin } of sets) {
        const all = placed(members, (await where(members)).box);
        const missing = all.find((p) => p.servers.length === 0);
        if (missing) throw new RuntimeError(`${missing.member.label}: ${missing.state.why}`);
        lines.push(...all.flatMap((p) => p.servers).map((s) => `set server ${s.backend}/${s.server} state ${admin}`));
      }
      const s = await open();
      return { script: KEEP_AFTER_RELOAD, data: [s.path, s.via ?? 'probe', ...lines].join('\n') };
    },
    async generation() {
      const [info] = await ask(['show info']);
      return /^Pid: (\d+)$/m.exec(info!.text)?.[1] ?? '';
    },
  };
}

export const haproxyRuntime: RuntimeDriver = { open: openHaproxy, readsConfigFile: true };
