// `lbdesk compare`: the same scenario through lbdesk's lab and through the appliance's own
// software, started locally on loopback with the rendered config.
import net from 'node:net';
import type { CompareReport, FaultKind } from '../../../shared/api/compare';
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import { getDriver, renderForAppliance } from '../drivers';
import { Backend } from './backends';
import { makePlan } from './plan';
import { compare } from './report';
import { runSide, type RunOptions } from './run';
import { haproxySide, labSide } from './sides';

export type { CompareReport } from '../../../shared/api/compare';
export { formatReport } from './format';

export class CompareUnavailableError extends Error {}

export interface CompareOptions {
  workspacePath: string;
  /** Multiplies every interval, retry interval, timeout and threshold, on both sides. */
  timeScale?: number;
  /** ms between new client connections per service (default 40). */
  gapMs?: number;
  /** The faults to run (default: stopped, slowed, wrong-content, refusing). */
  faults?: FaultKind[];
}

async function freePort(address: string): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, address, () => resolve());
  });
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Why the appliance's software cannot run here, or undefined. */
export function applianceMissing(driver: DriverName): string | undefined {
  const runsHere = getDriver(driver).runsHere;
  return runsHere ? runsHere() : `driver ${driver} has no software that runs locally`;
}

export async function compareWithAppliance(workspace: Workspace, appliance: Appliance, opts: CompareOptions): Promise<CompareReport> {
  const started = performance.now();
  const missing = applianceMissing(appliance.driver);
  if (missing) throw new CompareUnavailableError(missing);
  const plan = await makePlan(workspace, appliance, freePort, opts.timeScale ?? 1);
  const render = renderForAppliance(plan.workspace, plan.appliance, { workspacePath: opts.workspacePath });
  const base = {
    workspace: workspace.name, appliance: appliance.name, driver: appliance.driver, remapped: plan.remapped, skipped: plan.skipped,
    warnings: render.warnings.map((w) => `${w.subject}: ${w.message}`),
  };
  if (render.errors.length) throw new CompareUnavailableError(`the render is refused: ${render.errors.map((e) => `${e.subject}: ${e.message}`).join('; ')}`);
  if (plan.services.length === 0) throw new CompareUnavailableError(`nothing to compare: ${plan.skipped.map((s) => `${s.service} (${s.reason})`).join(', ') || 'the appliance serves no TCP service'}`);
  const maxTimeout = Math.max(...plan.services.map((s) => s.timers.timeout));
  const backends = new Map<string, Backend>();
  for (const b of plan.backends) {
    const s = plan.services.find((x) => x.members.some((m) => m.id === b.id))!;
    // Slowed: between degradedAbove and the timeout where a threshold is set (the lab's
    // degraded state shows), else well past the timeout (checks fail on both sides).
    const slowMs = s.check.degradedAbove !== undefined && s.check.degradedAbove < s.timers.timeout
      ? Math.round((s.check.degradedAbove + s.timers.timeout) / 2)
      : 3 * s.timers.timeout;
    backends.set(b.id, new Backend({ ...b, slowMs }));
  }
  const run: RunOptions = { gapMs: opts.gapMs ?? 40, clientDeadlineMs: 3 * maxTimeout + 1000, slackMs: 500, ...(opts.faults ? { faults: opts.faults } : {}) };
  try {
    for (const b of backends.values()) await b.start();
    const lab = await runSide(labSide(plan), plan, backends, run);
    const app = await runSide(haproxySide(render.text), plan, backends, run);
    const result = compare(plan, lab, app, render.warnings);
    return { ...base, ...result, unexplained: result.differences.filter((d) => !d.explainedBy).length, durationMs: Math.round(performance.now() - started) };
  } finally {
    for (const b of backends.values()) await b.close();
  }
}
