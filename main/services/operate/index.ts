// Runtime operations on a live appliance (lbdesk state, drain, maint, ready): ask each member's
// state and change it at once, without a reload or a config change, over the appliance's SSH
// connection. The per-driver part is a RuntimeDriver; a driver without one says so.
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import { connectSsh, type SshConnection, type SshOptions } from '../ssh/connect';
import { operatorName, recordOperation } from '../sync/history';
import type { ReloadKeeper } from '../sync/push';
import type { Remote } from '../sync/remote';
import type { SudoOptions } from '../sync/sudo';
import type { SecretStore } from '../secrets/types';
import type { SyncTarget } from '../sync/target';
import { haproxyRuntime } from './haproxy';
import { pingdirectoryRuntime } from './pingdirectory';
import { commandBoxRuntime } from './command-box';
import { ipvsRuntime } from './ipvs';
import { runtimeRemote } from './remote';
import { lbdeskRuntime } from './lbdesk';
import { keepChange, loadKept, type KeptMember } from '../sync/kept';
import { allMembers, resolveMembers } from './members';
import { selectIncluded } from '../drivers';
import type { AdminState, Runtime, RuntimeDriver, WorkspaceMember } from './types';

export { allMembers, resolveMembers, MemberError, memberLabel } from './members';
export { RuntimeError } from './haproxy';
export { runtimeRemote } from './remote';
export { loadKept, outForWords } from '../sync/kept';
export type { AdminState, MemberState, Runtime, WorkspaceMember } from './types';

const drivers: Partial<Record<DriverName, RuntimeDriver>> = { haproxy: haproxyRuntime, adx: commandBoxRuntime('adx', 'real server port'), a10: commandBoxRuntime('a10', 'slb server port'), netscaler: commandBoxRuntime('netscaler', 'service group member'), f5: commandBoxRuntime('f5', 'pool member'), keepalived: ipvsRuntime, pingdirectory: pingdirectoryRuntime, lbdesk: lbdeskRuntime };

/** The driver's runtime part, or undefined where lbdesk has none for it yet. */
export function runtimeDriver(driver: DriverName): RuntimeDriver | undefined {
  return drivers[driver];
}

/** The drivers that have runtime operations (for the message of one that has none). */
export function runtimeDrivers(): DriverName[] {
  return Object.keys(drivers) as DriverName[];
}

export interface OperateContext {
  workspace: Workspace;
  appliance: Appliance;
  target: SyncTarget;
}

/** The members this appliance serves: those of the groups its services use (its include list). */
export function servedMembers(ctx: Pick<OperateContext, 'workspace' | 'appliance'>): WorkspaceMember[] {
  const groups = new Set(selectIncluded(ctx.workspace, ctx.appliance).services.map((s) => s.group));
  return allMembers(ctx.workspace).filter((m) => groups.has(m.group));
}

/** Over the box's Remote (its connection, config file and commands). */
export function openRuntime(ctx: OperateContext, remote: Remote, secrets?: SecretStore): Runtime | undefined {
  return runtimeDriver(ctx.appliance.driver)?.open({ workspace: ctx.workspace, appliance: ctx.appliance, remote, conn: remote.conn, configPath: ctx.target.configPath, ...(secrets ? { secrets } : {}) });
}

export interface Operation {
  conn: SshConnection;
  runtime: Runtime;
  close(): void;
}

/** Connects (as push does: its endpoint, become: sudo) and opens the box's runtime. */
export async function connectRuntime(ctx: OperateContext, opts: SshOptions & SudoOptions): Promise<Operation> {
  const conn = await connectSsh(ctx.target.endpoint, opts);
  const runtime = openRuntime(ctx, runtimeRemote(conn, ctx.target, opts), opts.secrets)!;
  return { conn, runtime, close: () => conn.close() };
}

/** Sets `admin` on the box and records it (history operation; kept for the next reload unless ready). */
export async function setAdmin(ctx: OperateContext, op: Operation, members: WorkspaceMember[], admin: AdminState, dataDir: string) {
  const labels = members.map((m) => m.label);
  const r = await op.runtime.set(members, admin);
  const base = { appliance: ctx.appliance.name, operation: admin, members: labels, by: operatorName(), target: op.conn.label };
  if (!r.ok) {
    await recordOperation(dataDir, { ...base, outcome: 'refused', reason: r.refused });
    return r;
  }
  const outFor = await keepChange(dataDir, ctx.appliance.name, labels, admin);
  await recordOperation(dataDir, { ...base, outcome: 'done', ...(Object.keys(outFor).length ? { outFor } : {}) });
  return r;
}

/** `kept drain on web/web1:8081 (since …, by …)`: what a push keeps, for its preview and report. */
export function keptWords(k: KeptMember): string {
  return `${k.admin} on ${k.member} (since ${new Date(k.since).toISOString()}, by ${k.by})`;
}

const NEW_WORKER_MS = 10_000;

/**
 * For a push: the members lbdesk drained or put in maintenance, set so again on the process the
 * reload started (it begins with the config's states). Undefined where nothing is kept.
 */
export async function reloadKeeper(ctx: OperateContext, dataDir: string): Promise<ReloadKeeper | undefined> {
  if (!runtimeDriver(ctx.appliance.driver)) return undefined;
  const kept = await loadKept(dataDir, ctx.appliance.name);
  if (kept.length === 0) return undefined;
  let runtime: Runtime | undefined;
  let before = '';
  return {
    async before(remote) {
      runtime = openRuntime(ctx, remote);
      before = await runtime!.generation().catch(() => '');
    },
    boxTimerWords: kept.map(keptWords).join(', '),
    async boxTimer(remote: Remote) {
      runtime ??= openRuntime(ctx, remote);
      if (!runtime?.boxKeeper) return undefined;
      const sets = (['drain', 'maint'] as const).map((admin) => ({ admin, members: resolveMembers(ctx.workspace, kept.filter((k) => k.admin === admin).map((k) => k.member)) }));
      return runtime.boxKeeper(sets.filter((s) => s.members.length > 0));
    },
    async after(remote) {
      runtime ??= openRuntime(ctx, remote)!;
      const notes: string[] = [];
      // The new worker: a connection to the old one (still finishing) would be set and lost. No
      // process answered before (a fresh start, or a box whose states are its config): none to wait out.
      const until = Date.now() + NEW_WORKER_MS;
      let now = '';
      while (before !== '' && Date.now() < until) {
        now = await runtime.generation().catch(() => '');
        if (now && now !== before) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (before !== '' && (!now || now === before)) notes.push(`the box's process did not change within ${NEW_WORKER_MS / 1000}s of the reload: runtime states set on the one that answers`);
      const applied: KeptMember[] = [];
      for (const admin of ['drain', 'maint'] as const) {
        const group = kept.filter((k) => k.admin === admin);
        if (!group.length) continue;
        let members: WorkspaceMember[];
        try {
          members = resolveMembers(ctx.workspace, group.map((k) => k.member));
        } catch (err) {
          notes.push(`kept ${admin}: ${(err as Error).message}`);
          continue;
        }
        const r = await runtime.set(members, admin);
        if (r.ok) applied.push(...group);
        else notes.push(`kept ${admin} refused by the box: ${r.refused}`);
      }
      for (const k of applied) notes.push(`kept ${keptWords(k)}: set again after the reload`);
      if (applied.length) {
        await recordOperation(dataDir, { appliance: ctx.appliance.name, operation: 'kept', members: applied.map((k) => k.member), by: operatorName(), target: remote.conn.label, outcome: 'done' });
      }
      return notes;
    },
  };
}
