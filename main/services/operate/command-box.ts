// The runtime of a command-driven vendor box (adx…): its show commands read in one CLI session
// (the push's prompts, paging and error lines), each workspace member found among the box's
// members the way a push finds its objects, and the dialect's enable/disable commands sent at
// once, never saved (no write memory: the saved config stays what the last push left).
import { boxObjectFor } from '../drivers/box-object';
import { getDriver } from '../drivers';
import type { BoxMember, LiveDialect } from '../drivers/live';
import { withDriverPatterns } from '../sync/appliance';
import { BoxSession } from '../sync/commands/box-session';
import { redact } from '../sync/commands/redact';
import { cliTarget } from '../sync/commands/target';
import { RuntimeError } from './haproxy';
import type { AdminState, MemberState, Runtime, RuntimeContext, RuntimeDriver, SetOutcome, WorkspaceMember } from './types';

interface Placed { member: WorkspaceMember; box?: BoxMember; state: MemberState }

/** The box's member a workspace member stands for: its port, its server's object (name, else address). */
export function placeMembers(members: WorkspaceMember[], seen: BoxMember[], what: string): Placed[] {
  return members.map((m) => {
    const onPort = seen.filter((b) => m.port === undefined || b.port === m.port);
    const box = boxObjectFor(onPort, { name: m.server, address: m.address }, (b) => b.object, (b) => b.address);
    const base = { group: m.group, server: m.server, ...(m.port === undefined ? {} : { port: m.port }) };
    if (!box) {
      const port = m.port === undefined ? '' : ` on port ${m.port}`;
      return { member: m, state: { ...base, health: 'unknown', why: `the box has no ${what} for ${m.server} (${m.address})${port}` } };
    }
    const state: MemberState = {
      ...base, admin: box.admin, health: box.health, on: [box.on],
      ...(box.sessions === undefined ? {} : { sessions: box.sessions }),
      ...(box.weight === undefined ? {} : { weight: box.weight }),
      ...(box.check === undefined ? {} : { check: box.check }),
    };
    return { member: m, box, state };
  });
}

function openVendor(ctx: RuntimeContext, live: LiveDialect, what: string): Runtime {
  const driver = getDriver(ctx.appliance.driver).commands!;
  const target = withDriverPatterns(cliTarget(ctx.appliance), ctx.appliance, driver);
  let session: Promise<BoxSession> | undefined;
  const conn = ctx.remote.conn;

  const start = async (): Promise<BoxSession> => {
    const s = await BoxSession.open(conn.client, { patterns: target.patterns, timeoutMs: target.settings.timeout, label: conn.label });
    conn.client.once('close', () => s.close());
    if (driver.enable && />\s*$/.test(s.currentPrompt)) await must(s, driver.enable);
    // Paging off and the like; configuration mode is entered by the change commands themselves.
    for (const c of driver.prologue.filter((x) => !/^conf/.test(x))) await must(s, c);
    return s;
  };
  const open = async () => {
    let s = await (session ??= start().catch((err: unknown) => { session = undefined; throw err; }));
    if (s.isClosed) s = await (session = start());
    return s;
  };
  const must = async (s: BoxSession, command: string) => {
    const r = await s.run(command);
    if (r.error !== undefined) throw new RuntimeError(`"${command}" was refused: ${redact(r.error)}`);
    return r.output;
  };
  const box = async () => {
    const s = await open();
    const outputs: string[] = [];
    for (const c of live.show) outputs.push(await must(s, c));
    for (const c of live.then?.(outputs) ?? []) outputs.push(await must(s, c));
    return live.parse(outputs);
  };

  return {
    async via() {
      return `${ctx.appliance.driver} CLI (${live.show.join(', ')})`;
    },
    async state(members) {
      return placeMembers(members, await box(), what).map((p) => p.state);
    },
    async set(members, admin: AdminState): Promise<SetOutcome> {
      const placed = placeMembers(members, await box(), what);
      const missing = placed.find((p) => !p.box);
      if (missing) throw new RuntimeError(`${missing.member.label}: ${missing.state.why}; nothing was changed`);
      const s = await open();
      const done: string[] = [];
      for (const p of placed) {
        for (const c of live.change(p.box!, admin)) {
          const r = await s.run(c);
          if (r.error === undefined) continue;
          for (const l of driver.leave) await s.run(l).catch(() => undefined);
          const before = done.length ? ` (already set on ${done.join(', ')})` : ' (nothing was changed)';
          return { ok: false, refused: `${p.member.label}: "${c}": "${redact(r.error)}"${before}` };
        }
        done.push(p.member.label);
      }
      return { ok: true };
    },
    // A vendor box has no process a reload replaces: its runtime states are its running config.
    async generation() {
      return '';
    },
  };
}

/** The runtime of a command-driven driver with a live dialect; `what` names its member objects. */
export function commandBoxRuntime(name: 'adx' | 'a10' | 'netscaler' | 'f5', what: string): RuntimeDriver {
  return {
    open(ctx) {
      const live = getDriver(name).live;
      if (!live) throw new RuntimeError(`driver ${name} has no live dialect`);
      return openVendor(ctx, live, what);
    },
  };
}
