// The lab area: the local lab and one-off checks.
import { HealthChecker } from '../health';
import { secretHosts } from '../health/members';
import { BoundSecretStore } from '../secrets/bound';
import type { SecretStore } from '../secrets/types';
import type { AreaHandlers } from './dispatch';
import { Lab } from '../lab';
import { scenarioHandlers } from './lab-scenario';
import { parseFaultLine } from '../lab/faults';
import { loadSource } from '../workspace/source';
import { replayMember, TraceError, UnknownFailure, whatIf } from '../whatif';
import { ApiError } from '../../../shared/api/contract';
import type { CheckResult } from '../../../shared/api/types';

export function labHandlers(lab: Lab, secrets: SecretStore | BoundSecretStore): AreaHandlers<'lab'> {
  /** The workspace, with the hosts its checks send secrets to made known to a binding store. */
  const load = async (src: { path: string; text?: string }) => {
    const { workspace } = await loadSource(src);
    if (secrets instanceof BoundSecretStore) secrets.expect(secretHosts(workspace));
    return workspace;
  };
  return {
    ...scenarioHandlers(lab),
    'lab.start': async (src) => lab.start(await load(src), src.path),
    'lab.apply': async (src) => lab.start(await load(src), src.path),
    'lab.stop': async () => lab.stop(),
    'lab.status': async () => lab.status(),
    'lab.history': async ({ key }) => lab.history(key),
    'lab.session': async () => lab.session(),
    'lab.pairBox': async ({ pair, box, action }) => {
      try {
        return await lab.pairBox(pair, box, action);
      } catch (err) {
        throw new ApiError('refused', (err as Error).message);
      }
    },
    'lab.whatif': async ({ fail, ...src }) => {
      const { workspace } = await loadSource(src);
      try {
        return whatIf(workspace, fail);
      } catch (err) {
        if (err instanceof UnknownFailure) throw new ApiError('not-found', err.message);
        throw err;
      }
    },
    'lab.replay': async ({ member, history, historyName, timers, year, ...src }) => {
      const { workspace } = await loadSource(src);
      try {
        return replayMember(workspace, { member, text: history, file: historyName ?? 'history', timers: timers ?? {}, year: year ?? new Date().getUTCFullYear() });
      } catch (err) {
        if (err instanceof UnknownFailure) throw new ApiError('not-found', err.message);
        if (err instanceof TraceError) throw new ApiError('refused', err.message);
        throw err;
      }
    },
    'lab.fault': async ({ member, fault, value }) => {
      const parsed = parseFaultLine(fault === 'clear' ? ['clear', member] : ['fault', member, fault, ...(value !== undefined ? [value] : [])]);
      if (!parsed || 'error' in parsed) throw new ApiError('bad-args', parsed?.error ?? `"${fault}" is not a fault`);
      try {
        return await (parsed.op === 'fault' ? lab.fault(parsed.member, parsed.fault) : lab.clearFault(parsed.member));
      } catch (err) {
        throw new ApiError('refused', (err as Error).message);
      }
    },
    'check.run': async ({ group, ...src }) => {
      const workspace = await load(src);
      const checker = new HealthChecker({ secrets });
      try {
        const seen = new Map<string, CheckResult>();
        const out = await checker.checkOnce(workspace, group, { onResult: (key, r) => r.certificate && seen.set(key, r) });
        return out.map((m) => {
          const r = seen.get(m.key);
          return r?.certificate ? { ...m, certificate: r.certificate, checkedAt: r.at } : m;
        });
      } finally {
        await checker.stop();
      }
    },
  };
}
