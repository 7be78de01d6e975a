// One start-up check per member, outside any schedule: what `lbdesk check` prints.
import type { CheckResult, MemberStatus } from '../../../shared/api/types';
import type { MemberSpec } from './members';
import type { ProbeOutcome } from './probes';
import { applyResult, initialTracker } from './state';
import { fixedTracker, statusOf } from './status';

export async function checkMembers(
  specs: MemberSpec[],
  probe: (spec: MemberSpec) => Promise<ProbeOutcome>,
  now: () => number,
  concurrency = 256,
): Promise<MemberStatus[]> {
  const out: MemberStatus[] = new Array(specs.length);
  let next = 0;
  const worker = async () => {
    while (next < specs.length) {
      const i = next++;
      const spec = specs[i]!;
      const fixed = fixedTracker(spec, now());
      if (fixed) {
        out[i] = statusOf(spec, fixed);
        continue;
      }
      const at = now();
      const o = await probe(spec);
      const result: CheckResult = { ok: o.ok, reason: o.reason, evidence: o.evidence, at, ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}) };
      const step = applyResult(initialTracker(at), result, spec.timers, spec.settings, now());
      // A failed check's response time (a 404's, say) is still worth showing here.
      out[i] = { ...statusOf(spec, step.tracker), ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, specs.length) }, worker));
  return out;
}
