// One side of a compare run: start it, wait until every member is in service, send traffic,
// then each fault in turn on one member per service (the first enabled one), timing how long
// the side takes to take it out and, once repaired, to put it back.
import type { FaultKind, FaultTiming } from '../../../shared/api/compare';
import { detectionTimes } from '../../../shared/model/detection';
import type { Backend } from './backends';
import type { Plan, PlanService } from './plan';
import type { Side } from './sides';
import { Traffic, type Outcome } from './traffic';

export const FAULTS: FaultKind[] = ['stopped', 'slowed', 'wrong-content', 'refusing'];
const POLL_MS = 20;

export interface SideResult {
  /** service -> outcomes of its client connections. */
  traffic: Map<string, Outcome[]>;
  /** `service/fault` -> timing. */
  faults: Map<string, FaultTiming>;
  /** fault -> [start, end] on the performance clock: from the fault until every member is back. */
  windows?: Map<FaultKind, [number, number]>;
}

export interface RunOptions {
  /** ms between new client connections, per service. */
  gapMs: number;
  /** ms a client waits for an answer. */
  clientDeadlineMs: number;
  /** Extra time allowed past the worst detection time before a member counts as staying in. */
  slackMs: number;
  /** The faults to run, in order (default all). */
  faults?: FaultKind[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The member a service's faults are applied to: its first enabled one with a weight. */
export function victimOf(s: PlanService): PlanService['members'][number] | undefined {
  return s.members.find((m) => m.enabled && m.weight > 0);
}

async function until(pred: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!pred()) {
    if (performance.now() > end) return false;
    await sleep(POLL_MS);
  }
  return true;
}

export async function runSide(side: Side, plan: Plan, backends: Map<string, Backend>, opts: RunOptions): Promise<SideResult> {
  const faults = new Map<string, FaultTiming>();
  const traffic = new Map<string, Outcome[]>();
  const windows = new Map<FaultKind, [number, number]>();
  await side.start();
  const loops: Traffic[] = [];
  try {
    const inService = (s: PlanService, server: string) => ['up', 'degraded'].includes(side.state(s.name, server));
    const allUp = () => plan.services.every((s) => s.members.every((m) => !m.enabled || side.state(s.name, m.server) === 'up'));
    const startBound = Math.max(...plan.services.map((s) => detectionTimes(s.timers).recovery.worstMs)) + opts.slackMs;
    await until(allUp, startBound);
    for (const s of plan.services) {
      const t = new Traffic(s.address, s.port, opts.gapMs, opts.clientDeadlineMs);
      loops.push(t);
      traffic.set(s.name, t.outcomes);
      t.start();
    }
    await sleep(opts.gapMs * 10);
    for (const fault of opts.faults ?? FAULTS) {
      const victims = plan.services.map((s) => ({ s, m: victimOf(s) })).filter((v) => v.m !== undefined);
      const hurt = new Set(victims.map((v) => v.m!.id));
      const t0 = performance.now();
      for (const id of hurt) await backends.get(id)!.set(fault);
      const timing = new Map(victims.map((v) => [v.s.name, {} as FaultTiming]));
      // The lab's worst case, plus what HAProxy adds (a retry interval per check, timed from its end).
      const downBound = Math.max(...victims.map((v) => detectionTimes(v.s.timers).failure.worstMs + v.s.timers.failAfter * v.s.timers.retryInterval)) + opts.slackMs;
      await until(() => {
        for (const v of victims) {
          const t = timing.get(v.s.name)!;
          const st = side.state(v.s.name, v.m!.server);
          if (st === 'degraded') t.degraded = true;
          if (st === 'down' && t.downMs === undefined) t.downMs = Math.round(performance.now() - t0);
        }
        return victims.every((v) => timing.get(v.s.name)!.downMs !== undefined);
      }, downBound);
      const t1 = performance.now();
      for (const id of hurt) await backends.get(id)!.set('ok');
      const upBound = Math.max(...victims.map((v) => detectionTimes(v.s.timers).recovery.worstMs + v.s.timers.restoreAfter * v.s.timers.retryInterval)) + opts.slackMs;
      await until(() => {
        for (const v of victims) {
          const t = timing.get(v.s.name)!;
          if (t.downMs !== undefined && t.upMs === undefined && inService(v.s, v.m!.server)) t.upMs = Math.round(performance.now() - t1);
        }
        return victims.every((v) => { const t = timing.get(v.s.name)!; return t.downMs === undefined || t.upMs !== undefined; });
      }, upBound);
      // The next fault starts from a clean slate: every member available again.
      await until(allUp, upBound);
      windows.set(fault, [t0, performance.now()]);
      for (const v of victims) faults.set(`${v.s.name}/${fault}`, timing.get(v.s.name)!);
    }
  } finally {
    await Promise.all(loops.map((t) => t.stop()));
    await side.stop();
    for (const b of backends.values()) await b.set('ok');
  }
  return { traffic, faults, windows };
}
