// One start-up check per member, outside any schedule: what `lbdesk check` prints.
import type { CheckResult, MemberStatus } from '../../../shared/api/types';
import { seenAt } from '../../../shared/model/certificates';
import { targetOf, type MemberSpec } from './members';
import type { ProbeOutcome } from './probes';
import { applyResult, initialTracker } from './state';
import { fixedTracker, statusOf } from './status';

export async function checkMembers(
  specs: MemberSpec[],
  probe: (spec: MemberSpec) => Promise<ProbeOutcome>,
  now: () => number,
  concurrency = 256,
  onResult?: (spec: MemberSpec, result: CheckResult) => void,
): Promise<MemberStatus[]> {
  const out: MemberStatus[] = new Array(specs.length);
  // One check at a time per backend server (seed 002): members sharing one run in turn.
  const byTarget = new Map<string, number[]>();
  specs.forEach((spec, i) => {
    const t = targetOf(spec);
    const list = byTarget.get(t);
    if (list) list.push(i);
    else byTarget.set(t, [i]);
  });
  const queues = [...byTarget.values()];
  let next = 0;
  const one = async (i: number) => {
    const spec = specs[i]!;
    const fixed = fixedTracker(spec, now());
    if (fixed) {
      out[i] = statusOf(spec, fixed);
      return;
    }
    const at = now();
    const o = await probe(spec);
    const result: CheckResult = { ok: o.ok, reason: o.reason, evidence: o.evidence, at, ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}), ...(o.degraded ? { degraded: true } : {}), ...(o.certificate ? { certificate: seenAt(o.certificate, at) } : {}) };
    onResult?.(spec, result);
    const step = applyResult(initialTracker(at), result, spec.timers, spec.settings, now());
    // A failed check's response time (a 404's, say) is still worth showing here.
    out[i] = { ...statusOf(spec, step.tracker), ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}) };
  };
  const worker = async () => {
    while (next < queues.length) {
      for (const i of queues[next++]!) await one(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queues.length) }, worker));
  return out;
}
