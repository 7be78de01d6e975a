// compare's plan: --time-scale scales every timer both sides run, the defaults included (an
// imported site usually has no timers of its own).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSchema } from '../../../../shared/model/schema';
import { DEFAULT_TIMERS } from '../../../../shared/model/resolve';
import { importF5 } from '../../../../main/services/drivers/f5/import';
import { makePlan } from '../../../../main/services/compare/plan';
import { renderForAppliance } from '../../../../main/services/drivers';

const fixture = resolve(__dirname, '../../../fixtures/import/f5/corkscrew-devcloud01.conf');

describe('compare plan: time scale', () => {
  it('an imported F5 site with no timers of its own runs the defaults scaled, on both sides', async () => {
    const r = importF5(readFileSync(fixture, 'utf8'), fixture);
    const w = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab', host: '192.0.2.10', driver: 'haproxy' }] });
    expect(w.healthTimers).toBeUndefined();
    let port = 40_000;
    const plan = await makePlan(w, w.appliances[0]!, async () => port++, 0.05);
    const app1 = plan.services.find((s) => s.name === 'app1_t443_vs')!;
    // app1's pool has no monitor timers: every timer is a default, scaled.
    expect(app1.timers).toMatchObject({ interval: DEFAULT_TIMERS.interval * 0.05, retryInterval: DEFAULT_TIMERS.retryInterval * 0.05, timeout: DEFAULT_TIMERS.timeout * 0.05 });
    // app2's monitor sets interval and timeout; its retry interval is the default's, scaled.
    expect(plan.services.find((s) => s.name === 'app2_t443_vs')!.timers).toMatchObject({ interval: 250, timeout: 250, retryInterval: DEFAULT_TIMERS.retryInterval * 0.05 });
    // What HAProxy runs is what the lab runs.
    const text = renderForAppliance(plan.workspace, plan.appliance, { workspacePath: '/tmp/site.yaml' }).text;
    const backend = text.slice(text.indexOf('backend app1_t443_vs\n'));
    expect(backend).toMatch(/\n {4}server app1_Node1 \S+ weight 1 check inter 1500ms fastinter 500ms downinter 500ms /);
  });

  it('scale 1 leaves the workspace\'s timers as written', async () => {
    const w = workspaceSchema.parse({
      lbdesk: 1, name: 'plain', servers: [{ name: 'w1', address: '192.0.2.21' }],
      groups: [{ name: 'web', members: [{ server: 'w1', port: 8081 }] }],
      services: [{ name: 'web', address: '192.0.2.10', port: 80, group: 'web' }],
      appliances: [{ name: 'edge', host: '192.0.2.1', driver: 'haproxy' }],
    });
    let port = 40_000;
    const plan = await makePlan(w, w.appliances[0]!, async () => port++);
    expect(plan.workspace.healthTimers).toBeUndefined();
    expect(plan.services[0]!.timers).toMatchObject({ interval: DEFAULT_TIMERS.interval, retryInterval: DEFAULT_TIMERS.retryInterval });
  });
});
