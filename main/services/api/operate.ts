// The Operate view's connections: one SSH connection per appliance, kept between the view's
// refreshes (a login per refresh would flood the box's auth log and take seconds each), closed
// when the view says it is done or after a quiet minute.
import { ApiError } from '../../../shared/api/contract';
import type { LiveMember, LiveState } from '../../../shared/api/operate';
import type { SshOptions } from '../ssh';
import { connectRuntime, openRuntime, runtimeDriver, runtimeDrivers, runtimeRemote, servedMembers, type MemberState, type Operation, type OperateContext } from '../operate';

export const OPERATE_IDLE_MS = 60_000;

interface Kept { endpoint: string; workspace: string; ctx: OperateContext; op: Operation; timer?: ReturnType<typeof setTimeout> }

const labelOf = (m: { group: string; server: string; port?: number }) => `${m.group}/${m.server}${m.port === undefined ? '' : `:${m.port}`}`;

export function liveMember(m: MemberState): LiveMember {
  return { ...m, label: labelOf(m) };
}

export class OperateSessions {
  private readonly kept = new Map<string, Kept>();
  private readonly connecting = new Map<string, Promise<Kept>>();

  constructor(private readonly idleMs = OPERATE_IDLE_MS) {}

  /** The appliance's kept connection with a runtime for this workspace text (a new one when the endpoint changed or the line dropped). */
  async session(ctx: OperateContext, ssh: SshOptions): Promise<Kept> {
    const name = ctx.appliance.name;
    if (!runtimeDriver(ctx.appliance.driver)) throw new ApiError('unsupported', `${name}: driver ${ctx.appliance.driver} has no runtime operations in lbdesk yet (${runtimeDrivers().join(', ')} have)`);
    const endpoint = JSON.stringify(ctx.target.endpoint);
    let k = this.kept.get(name);
    if (k && (k.op.conn.isClosed || k.endpoint !== endpoint)) {
      this.end(name);
      k = undefined;
    }
    if (!k) {
      let going = this.connecting.get(name);
      if (!going) {
        going = connectRuntime(ctx, ssh).then((op) => ({ endpoint, workspace: JSON.stringify(ctx.workspace), ctx, op }));
        this.connecting.set(name, going);
        void going.then((x) => this.kept.set(name, x), () => undefined).finally(() => this.connecting.delete(name));
      }
      k = await going;
    }
    const workspace = JSON.stringify(ctx.workspace);
    if (workspace !== k.workspace) {
      // Edited since: same connection, a runtime that knows the workspace's groups now.
      k.op.runtime = openRuntime(ctx, runtimeRemote(k.op.conn, ctx.target, ssh), ssh.secrets)!;
      k.workspace = workspace;
      k.ctx = ctx;
    }
    this.touch(name, k);
    return k;
  }

  async state(ctx: OperateContext, ssh: SshOptions): Promise<LiveState> {
    const k = await this.session(ctx, ssh);
    const askedAt = Date.now();
    const members = await k.op.runtime.state(servedMembers(k.ctx));
    return { appliance: ctx.appliance.name, driver: ctx.appliance.driver, via: `${k.op.conn.label}, ${await k.op.runtime.via()}`, askedAt, members: members.map(liveMember) };
  }

  end(name: string): boolean {
    const k = this.kept.get(name);
    if (!k) return false;
    clearTimeout(k.timer);
    k.op.close();
    this.kept.delete(name);
    return true;
  }

  endAll(): void {
    for (const name of [...this.kept.keys()]) this.end(name);
  }

  get open(): string[] {
    return [...this.kept.keys()];
  }

  private touch(name: string, k: Kept): void {
    clearTimeout(k.timer);
    k.timer = setTimeout(() => this.end(name), this.idleMs);
    k.timer.unref?.();
  }
}
