// Many appliances at once: bounded concurrency, optional canaries first, a failure threshold
// that stops starting new pushes, and one exact report per appliance.
import type { FleetReport, PushOutcome, PushReport } from '../../../shared/api/sync';
import { loadSshConfig } from '../ssh/connect';
import { KnownHosts } from '../ssh/known-hosts';
import { pushConfig, type PushOptions } from './push';
import type { SyncTarget } from './target';

/**
 * An appliance to push, one already refused before any connection (e.g. it did not render), or
 * one pushed its own way (`driver: cli`: pushCli) with the fleet's shared options.
 */
export type FleetItem =
  | { target: SyncTarget; text: string | Buffer }
  | { target: SyncTarget; refused: string }
  | { target: SyncTarget; run: (opts: PushOptions) => Promise<PushReport> };

export interface FleetOptions extends PushOptions {
  /** Pushes in flight at once (default 8). */
  concurrency?: number;
  /** Push this many appliances first, one at a time; any failure among them stops the rest. */
  canary?: number;
  /** Stop starting new pushes once this many have failed (refused, rolled back, failed). */
  maxFailures?: number;
  onReport?: (r: PushReport) => void;
}

const FAILURES: PushOutcome[] = ['refused', 'rolled-back', 'failed'];

function skipped(item: FleetItem, reason: string, outcome: PushOutcome = 'skipped'): PushReport {
  return {
    appliance: item.target.appliance, target: item.target.endpoint.host, configPath: item.target.configPath,
    outcome, reason, hash: '', notes: [], steps: [], durationMs: 0,
  };
}

export async function pushFleet(items: FleetItem[], opts: FleetOptions = {}): Promise<FleetReport> {
  const started = Date.now();
  const shared: PushOptions = {
    ...opts,
    sshConfig: await loadSshConfig(opts),
    ...(opts.knownHostsFile && !opts.knownHosts ? { knownHosts: await KnownHosts.load([opts.knownHostsFile]) } : {}),
  };
  const reports: (PushReport | undefined)[] = new Array(items.length);
  let failures = 0;
  let stopped: string | undefined;
  const maxFailures = opts.maxFailures ?? Infinity;

  const runOne = async (i: number): Promise<void> => {
    const item = items[i]!;
    const r = 'refused' in item ? skipped(item, item.refused, 'refused')
      : 'run' in item ? await item.run(shared)
        : await pushConfig(item.target, item.text, shared);
    reports[i] = r;
    if (FAILURES.includes(r.outcome)) failures++;
    opts.onReport?.(r);
  };

  const canaries = Math.min(opts.canary ?? 0, items.length);
  for (let i = 0; i < canaries && !stopped; i++) {
    await runOne(i);
    const r = reports[i]!;
    if (FAILURES.includes(r.outcome)) stopped = `canary ${r.appliance} ${r.outcome}: ${r.reason}`;
  }

  let next = canaries;
  const worker = async (): Promise<void> => {
    while (!stopped && next < items.length) {
      if (failures >= maxFailures) {
        stopped = `${failures} failure(s) reached the limit of ${maxFailures}`;
        break;
      }
      await runOne(next++);
    }
  };
  const width = Math.max(1, Math.min(opts.concurrency ?? 8, items.length - next || 1));
  await Promise.all(Array.from({ length: width }, worker));
  if (!stopped && failures >= maxFailures && reports.some((r) => r === undefined)) stopped = `${failures} failure(s) reached the limit of ${maxFailures}`;

  const final = items.map((item, i) => {
    if (reports[i]) return reports[i]!;
    const r = skipped(item, `not attempted: ${stopped ?? 'stopped'}`);
    opts.onReport?.(r);
    return r;
  });
  const counts = { applied: 0, unchanged: 0, 'would-apply': 0, refused: 0, 'rolled-back': 0, failed: 0, skipped: 0 } as Record<PushOutcome, number>;
  for (const r of final) counts[r.outcome]++;
  return { reports: final, counts, durationMs: Date.now() - started, ...(stopped ? { stopped } : {}) };
}
