// An HA pair in the lab (docs/ha.md): one forwarding engine per box, each binding only the
// addresses it holds. A box that runs advertises every advertInterval, as VRRP does; its mate
// takes over an instance's addresses once the holder has been silent for 3 adverts plus the
// skew of its priority (VRRPv2's master-down interval), and gives them back when the preferred
// master returns (after preemptDelay), unless nopreempt.
import type { EngineEvent, PairStatus } from '../../../shared/api/engine';
import type { Pair, PairMember, Workspace } from '../../../shared/model/schema';
import { planInstances, type PlannedInstance } from '../../../shared/model/pairs';
import { normalAddress } from '../../../shared/model/address';
import { ForwardingEngine } from '../engine';
import { listenerId } from '../engine/config';
import type { EngineIo } from '../engine/engine';
import type { HealthView } from '../health/types';
import { isLoopback } from './local';

const POLL_MS = 100;

interface Box {
  member: PairMember;
  engine: ForwardingEngine | undefined;
  up: boolean;
  lastAdvert: number;
  /** When it came up: a returning master waits preemptDelay from here. */
  since: number;
}

export interface PairRuntimeOptions {
  health: HealthView;
  emit(e: EngineEvent): void;
  io?: EngineIo;
  /** The lab's fault paths (services/lab/faults): where a member is dialled instead. */
  route?: (key: string) => string | undefined;
}

/** The addresses the lab's pairs carry (on loopback): the main engine leaves them to the boxes. */
export function pairCarried(workspace: Workspace): Set<string> {
  const out = new Set<string>();
  for (const pair of workspace.pairs) {
    for (const inst of planInstances(pair, workspace.services, workspace.targetSets)) {
      for (const a of inst.addresses) if (isLoopback(a.address)) out.add(normalAddress(a.address));
    }
  }
  return out;
}

/** VRRPv2 master-down interval: 3 adverts + (256 - priority) / 256 s of the waiting box. */
export function takeoverBoundMs(pair: Pair): number {
  return 3 * pair.advertInterval + Math.round(((256 - pair.priority.backup) / 256) * 1000);
}

export class PairRuntime {
  private readonly boxes: Box[];
  private plan: PlannedInstance[];
  /** Instance id -> the appliance holding its addresses (none while both are down). */
  private readonly holder = new Map<number, string | undefined>();
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(private workspace: Workspace, private pair: Pair, private readonly opts: PairRuntimeOptions) {
    this.boxes = pair.members.map((member) => ({ member, engine: undefined, up: false, lastAdvert: 0, since: 0 }));
    this.plan = this.lab(planInstances(pair, workspace.services, workspace.targetSets));
  }

  /** A fault applied or cleared: each running box dials the members' new paths. */
  async reroute(): Promise<void> {
    for (const b of this.boxes) await b.engine?.reroute();
  }

  get name(): string {
    return this.pair.name;
  }

  /** Both boxes up, each instance on its master. */
  async start(): Promise<{ ok: boolean; reason?: string }> {
    const now = Date.now();
    for (const b of this.boxes) Object.assign(b, { up: true, lastAdvert: now, since: now });
    for (const inst of this.plan) this.holder.set(inst.id, inst.master);
    for (const b of this.boxes) {
      const r = await this.bind(b);
      if (!r.ok) return r;
    }
    for (const inst of this.plan) this.say({ change: 'master', box: inst.master, instance: inst.id, addresses: this.addresses(inst), reason: 'preferred master at start (higher priority)' });
    this.timer = setInterval(() => void this.serial(() => this.tick()), POLL_MS);
    this.timer.unref();
    return { ok: true };
  }

  /** A reload: the same holders, the new plan. */
  async apply(workspace: Workspace, pair: Pair): Promise<{ ok: boolean; reason?: string }> {
    return this.serial(async () => {
      this.workspace = workspace;
      this.pair = pair;
      this.plan = this.lab(planInstances(pair, workspace.services, workspace.targetSets));
      for (const inst of this.plan) if (!this.holder.has(inst.id)) this.holder.set(inst.id, inst.master);
      for (const b of this.boxes) {
        if (!b.up) continue;
        const r = await this.bind(b);
        if (!r.ok) return r;
      }
      return { ok: true };
    });
  }

  /** The fault: a box stops (its engine closes, it stops advertising); its mate takes over after the master-down interval. */
  async stopBox(ref: string): Promise<void> {
    await this.serial(async () => {
      const b = this.box(ref);
      if (!b.up) return;
      b.up = false;
      const engine = b.engine;
      b.engine = undefined;
      await engine?.stop();
      this.say({ change: 'stopped', box: b.member.appliance, reason: 'stopped by the user: it no longer forwards or advertises' });
    });
  }

  async startBox(ref: string): Promise<void> {
    await this.serial(async () => {
      const b = this.box(ref);
      if (b.up) return;
      const now = Date.now();
      Object.assign(b, { up: true, lastAdvert: now, since: now });
      const r = await this.bind(b);
      this.say({ change: 'started', box: b.member.appliance, reason: r.ok ? `started as backup${this.pair.nopreempt ? ' (nopreempt: it does not take addresses back)' : ''}` : `could not start: ${r.reason}` });
    });
  }

  status(): PairStatus {
    return {
      name: this.pair.name,
      nopreempt: this.pair.nopreempt,
      takeoverBoundMs: takeoverBoundMs(this.pair),
      boxes: this.boxes.map((b) => ({
        appliance: b.member.appliance,
        ...(b.member.ipfe ? { ipfe: b.member.ipfe } : {}),
        up: b.up,
        holds: this.plan.filter((i) => this.holder.get(i.id) === b.member.appliance).map((i) => ({ instance: i.id, addresses: this.addresses(i) })),
        ...(this.own(b) ? { own: this.own(b) } : {}),
      })),
    };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.serial(async () => {
      for (const b of this.boxes) {
        const e = b.engine;
        b.engine = undefined;
        b.up = false;
        await e?.stop();
      }
    });
  }

  /** Advertise, and move instances as VRRP would. */
  private async tick(): Promise<void> {
    const now = Date.now();
    for (const b of this.boxes) if (b.up && now - b.lastAdvert >= this.pair.advertInterval) b.lastAdvert = now;
    const bound = takeoverBoundMs(this.pair);
    for (const inst of this.plan) {
      const held = this.holder.get(inst.id);
      const holder = this.boxes.find((b) => b.member.appliance === held);
      const preferred = this.boxes.find((b) => b.member.appliance === inst.master);
      const mate = this.boxes.find((b) => b !== holder && b.up);
      if ((!holder || !holder.up) && mate) {
        const silent = holder ? now - holder.lastAdvert : bound;
        if (silent >= bound) {
          await this.move(inst, mate, 'takeover', holder ? `${holder.member.appliance} silent for ${silent} ms (master-down interval ${bound} ms)` : 'no box held it', silent);
        }
      } else if (holder && preferred && preferred !== holder && preferred.up && !this.pair.nopreempt) {
        const waited = now - preferred.since;
        if (waited >= (this.pair.preemptDelay ?? 0)) {
          await this.move(inst, preferred, 'giveback', `${preferred.member.appliance} is back with the higher priority${this.pair.preemptDelay ? ` (after preemptDelay ${this.pair.preemptDelay} ms)` : ''}`, waited);
        }
      }
    }
  }

  private async move(inst: PlannedInstance, to: Box, change: 'takeover' | 'giveback', reason: string, afterMs: number): Promise<void> {
    const from = this.holder.get(inst.id);
    this.holder.set(inst.id, to.member.appliance);
    // The old holder lets go first (one address is bound by one box at a time), then the new one binds.
    const old = this.boxes.find((b) => b.member.appliance === from && b.up);
    if (old) await this.bind(old);
    await this.bind(to);
    this.say({ change, box: to.member.appliance, instance: inst.id, addresses: this.addresses(inst), ...(from ? { from } : {}), reason, afterMs });
  }

  private async bind(b: Box): Promise<{ ok: boolean; reason?: string }> {
    const held = new Set<string>();
    for (const inst of this.plan) {
      if (this.holder.get(inst.id) === b.member.appliance) for (const a of inst.addresses) held.add(normalAddress(a.address));
    }
    if (!b.engine) {
      const engine = new ForwardingEngine({ health: this.opts.health, ...(this.opts.io ? { io: this.opts.io } : {}), ...(this.opts.route ? { route: this.opts.route } : {}) });
      engine.on('event', (e) => this.opts.emit(e));
      b.engine = engine;
    }
    const own = this.own(b);
    const carried = this.carried();
    const r = await b.engine.apply(this.workspace, {
      listen: {
        keep: (address) => held.has(normalAddress(address)),
        // The box's own address answers for every address of the pair: check a box directly.
        extra: own ? (l) => (carried.has(normalAddress(l.address)) ? [{ ...l, id: listenerId(l.protocol, own, l.port), address: own }] : []) : undefined,
      },
    });
    return r;
  }

  private carried(): Set<string> {
    return new Set(this.plan.flatMap((i) => i.addresses.map((a) => normalAddress(a.address))));
  }

  private own(b: Box): string | undefined {
    return b.member.address !== undefined && isLoopback(b.member.address) ? b.member.address : undefined;
  }

  private box(ref: string): Box {
    const b = this.boxes.find((x) => x.member.appliance === ref || x.member.ipfe === ref);
    if (!b) throw new Error(`pair ${this.pair.name} has no box "${ref}" (its boxes: ${this.boxes.map((x) => x.member.appliance + (x.member.ipfe ? ` (${x.member.ipfe})` : '')).join(', ')})`);
    return b;
  }

  /** The lab binds loopback only. */
  private lab(plan: PlannedInstance[]): PlannedInstance[] {
    return plan.map((i) => ({ ...i, addresses: i.addresses.filter((a) => isLoopback(a.address)) })).filter((i) => i.addresses.length > 0);
  }

  private addresses(inst: PlannedInstance): string[] {
    return inst.addresses.map((a) => a.address);
  }

  private say(e: Omit<Extract<EngineEvent, { type: 'pair' }>, 'ts' | 'type' | 'pair'>): void {
    this.opts.emit({ ts: new Date().toISOString(), type: 'pair', pair: this.pair.name, ...e });
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const p = this.busy.then(f);
    this.busy = p.catch(() => undefined);
    return p;
  }
}
