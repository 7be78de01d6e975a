// What both importers share: servers keyed by address, clamping into workspace ranges.
import { formatDuration } from '../../../shared/model/duration';
import { normalAddress } from '../../../shared/model/address';
import { NameSpace } from './names';
import type { ServerInput } from './types';

/** Clamps a duration into a workspace range, saying so. */
export function clampMs(ms: number, min: number, max: number, what: string, notes: string[]): number {
  if (ms < min) {
    notes.push(`${what} ${formatDuration(ms)} is below lbdesk's ${formatDuration(min)}: ${formatDuration(min)} used`);
    return min;
  }
  if (ms > max) {
    notes.push(`${what} ${formatDuration(ms)} is above lbdesk's ${formatDuration(max)}: ${formatDuration(max)} used`);
    return max;
  }
  return ms;
}

/** One workspace server per address, named after the first config line that uses it. */
export class Servers {
  readonly list: ServerInput[] = [];
  private readonly byAddress = new Map<string, ServerInput>();
  private readonly disabledSeen = new Map<ServerInput, { on: number; off: number }>();
  private readonly names: NameSpace;

  /** `existing`: the workspace's servers (a merge reuses them by address). */
  constructor(taken?: Iterable<string>, existing: { name: string; address: string }[] = []) {
    this.names = new NameSpace(taken);
    for (const e of existing) this.byAddress.set(normalAddress(e.address), { name: e.name, address: e.address });
  }

  add(name: string, address: string, enabled: boolean, timers: ServerInput['healthTimers'] | undefined, notes: string[]): string {
    const key = normalAddress(address);
    let s = this.byAddress.get(key);
    if (s && !this.disabledSeen.has(s)) return s.name;
    if (!s) {
      s = { name: this.names.take(name), address };
      if (!enabled) s.enabled = false;
      if (timers) s.healthTimers = timers;
      this.byAddress.set(key, s);
      this.list.push(s);
      this.disabledSeen.set(s, enabled ? { on: 1, off: 0 } : { on: 0, off: 1 });
      return s.name;
    }
    const seen = this.disabledSeen.get(s)!;
    if (enabled) seen.on++;
    else seen.off++;
    if (seen.on && seen.off && (enabled ? seen.on === 1 : seen.off === 1)) {
      if (s.enabled === false) delete s.enabled;
      notes.push(`server ${s.name} (${address}) is disabled in some sections only: enabled in lbdesk (the line stays as written)`);
    }
    if (timers && JSON.stringify(timers) !== JSON.stringify(s.healthTimers)) {
      if (!s.healthTimers) s.healthTimers = timers;
      else notes.push(`server ${s.name} (${address}) has different check timers in different sections: lbdesk keeps one set`);
    }
    return s.name;
  }
}
