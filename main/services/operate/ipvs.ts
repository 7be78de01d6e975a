// keepalived's runtime: the IPVS table (`ipvsadm -Ln`) over SSH, through sudo where the
// appliance says `become: sudo`. drain = weight 0 (IPVS sends no new connections to it, open
// ones go on); ready = the workspace's weight back. keepalived sets the weight again itself on
// its next reload or when the member's check changes state (kept.ts names what a push keeps).
// maint is refused: taking a real server out of the table is keepalived's own job (its checks,
// or `enabled: false` in the workspace and a push).
import { IPVS_SCRIPT, ipvsWeightArgs, noIpvs, parseIpvsadm, type IpvsReal } from '../drivers/keepalived-ipvs';
import { selectIncluded } from '../drivers';
import { sameAddress } from '../../../shared/model/address';
import { RuntimeError } from './haproxy';
import type { MemberState, Runtime, RuntimeContext, RuntimeDriver, SetOutcome, WorkspaceMember } from './types';

function openIpvs(ctx: RuntimeContext): Runtime {
  const services = selectIncluded(ctx.workspace, ctx.appliance).services;
  const ipvsadm = async (args: string[]) => {
    const r = await ctx.remote.run(IPVS_SCRIPT, args, 15_000);
    const why = noIpvs(r.stdout);
    if (why) throw new RuntimeError(why);
    if (r.code !== 0) throw new RuntimeError(`ipvsadm ${args.join(' ')}: ${(r.stderr || r.stdout).trim().split('\n')[0] ?? `exit ${r.code}`}`);
    return r.stdout;
  };
  /** The member's rows: a real server at its address and port under a VIP of its group's services. */
  const rowsOf = (m: WorkspaceMember, table: IpvsReal[]) => services.filter((s) => s.group === m.group).flatMap((s) => table.filter((r) => {
    const vip = /^\[?(.+?)\]?:(\d+)$/.exec(r.vip);
    return vip && sameAddress(vip[1]!, s.address) && Number(vip[2]) === s.port && sameAddress(r.address, m.address) && r.port === (m.port ?? s.port);
  }));
  const weightOf = (m: WorkspaceMember) => ctx.workspace.groups.find((g) => g.name === m.group)?.members
    .find((x) => x.server === m.server && x.port === m.port)?.weight ?? 1;
  const stateOf = (m: WorkspaceMember, rows: IpvsReal[]): MemberState => {
    const base = { group: m.group, server: m.server, ...(m.port === undefined ? {} : { port: m.port }) };
    if (!rows.length) return { ...base, health: 'unknown', why: `not in the IPVS table under its services' addresses (keepalived has taken it out after failed checks, or has not loaded it)` };
    const r = rows[0]!;
    return {
      ...base, admin: rows.every((x) => x.weight === 0) ? 'drain' : 'ready', health: 'up', weight: r.weight,
      sessions: rows.reduce((n, x) => n + x.active, 0),
      // keepalived keeps only healthy real servers in the table: being in it is its "up".
      check: `${r.forward}, ${r.active} active, ${r.inactive} inactive connections`, on: rows.map((x) => x.service),
    };
  };
  return {
    async via() { return 'IPVS (ipvsadm -Ln)'; },
    async state(members) {
      const table = parseIpvsadm(await ipvsadm(['-Ln']));
      return members.map((m) => stateOf(m, rowsOf(m, table)));
    },
    async set(members, admin): Promise<SetOutcome> {
      if (admin === 'maint') return { ok: false, refused: 'keepalived has no maintenance state in IPVS: drain sets the weight to 0 (open connections go on); to take the server out, set enabled: false in the workspace and push' };
      const table = parseIpvsadm(await ipvsadm(['-Ln']));
      const placed = members.map((m) => ({ m, rows: rowsOf(m, table) }));
      const missing = placed.find((p) => !p.rows.length);
      if (missing) throw new RuntimeError(`${missing.m.label}: ${stateOf(missing.m, []).why}; nothing was changed`);
      const done: string[] = [];
      for (const p of placed) {
        try {
          for (const r of p.rows) await ipvsadm(ipvsWeightArgs(r, admin === 'drain' ? 0 : weightOf(p.m)));
        } catch (err) {
          return { ok: false, refused: `${p.m.label}: ${(err as Error).message}${done.length ? ` (already set on ${done.join(', ')})` : ''}` };
        }
        done.push(p.m.label);
      }
      return { ok: true };
    },
    async generation() { return ''; },
  };
}

export const ipvsRuntime: RuntimeDriver = { open: openIpvs };
