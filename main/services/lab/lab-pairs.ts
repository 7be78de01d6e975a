// Every HA pair of the running lab (or `serve`): started, reloaded and stopped with it. The main
// engine leaves the pairs' addresses to them (`mainFilter`).
import type { PairStatus } from '../../../shared/api/engine';
import type { Workspace } from '../../../shared/model/schema';
import { normalAddress } from '../../../shared/model/address';
import type { ListenFilter } from '../engine/engine';
import { pairCarried, PairRuntime, type PairRuntimeOptions } from './pair-runtime';

export class LabPairs {
  private readonly running = new Map<string, PairRuntime>();

  constructor(private readonly opts: PairRuntimeOptions) {}

  /** The main engine's listeners: everything but the addresses the pairs carry. */
  static mainFilter(workspace: Workspace): ListenFilter | undefined {
    const carried = pairCarried(workspace);
    return carried.size ? { keep: (a) => !carried.has(normalAddress(a)) } : undefined;
  }

  /** Starts new pairs, reloads kept ones, stops removed ones; the first refusal is returned. */
  async apply(workspace: Workspace): Promise<{ ok: boolean; reason?: string }> {
    const wanted = new Set<string>();
    for (const pair of workspace.pairs) {
      if (pairCarried({ ...workspace, pairs: [pair] }).size === 0) continue;
      wanted.add(pair.name);
      const have = this.running.get(pair.name);
      const r = have ? await have.apply(workspace, pair) : await this.start(workspace, pair);
      if (!r.ok) return { ok: false, reason: `pair ${pair.name}: ${r.reason ?? 'refused'}` };
    }
    for (const [name, rt] of this.running) {
      if (wanted.has(name)) continue;
      this.running.delete(name);
      await rt.stop();
    }
    return { ok: true };
  }

  private async start(workspace: Workspace, pair: Workspace['pairs'][number]) {
    const rt = new PairRuntime(workspace, pair, this.opts);
    this.running.set(pair.name, rt);
    const r = await rt.start();
    if (!r.ok) {
      this.running.delete(pair.name);
      await rt.stop();
    }
    return r;
  }

  /** Stops or starts one box of a pair: by its appliance or IPFE name (the pair may be left out). */
  async box(pair: string | undefined, box: string, action: 'stop' | 'start'): Promise<void> {
    if (pair === undefined) {
      const owner = [...this.running.values()].find((rt) => rt.status().boxes.some((b) => b.appliance === box || b.ipfe === box));
      if (!owner) throw new Error(`no running pair has a box "${box}"`);
      pair = owner.name;
    }
    const rt = this.running.get(pair);
    if (!rt) throw new Error(`no pair "${pair}" runs here${this.running.size ? ` (running: ${[...this.running.keys()].join(', ')})` : ' (the workspace has no pair on loopback addresses)'}`);
    await (action === 'stop' ? rt.stopBox(box) : rt.startBox(box));
  }

  async reroute(): Promise<void> {
    for (const rt of this.running.values()) await rt.reroute();
  }

  status(): PairStatus[] {
    return [...this.running.values()].map((rt) => rt.status());
  }

  async stop(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    for (const rt of all) await rt.stop();
  }
}
