// Contract handlers for the lab and one-off checks.
import { HealthEngine } from '../health';
import type { SecretStore } from '../secrets/types';
import type { Handlers } from '../api/dispatch';
import { Lab } from './index';
import { loadSource } from './source';

export function labHandlers(lab: Lab, secrets: SecretStore): Partial<Handlers> {
  return {
    'lab.start': async (src) => lab.start((await loadSource(src)).workspace, src.path),
    'lab.apply': async (src) => lab.start((await loadSource(src)).workspace, src.path),
    'lab.stop': async () => lab.stop(),
    'lab.status': async () => lab.status(),
    'lab.history': async ({ key }) => lab.history(key),
    'lab.session': async () => lab.session(),
    'check.run': async ({ group, ...src }) => {
      const { workspace } = await loadSource(src);
      const engine = new HealthEngine({ secrets });
      try {
        return await engine.checkOnce(workspace, group);
      } finally {
        await engine.stop();
      }
    },
  };
}
