// "Run scenario…" in the window: a scenario file beside the workspace, played on the real lab
// (through the real API) by serve's runner, each step and PASS line shown as it happens, then the summary.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mountWith, until, withRealLab } from '../helpers/renderer/mount';
import { httpMemberSite } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import ScenarioRun from '../../renderer/src/lab/ScenarioRun.vue';

describe('scenario run', () => {
  let site: Awaited<ReturnType<typeof httpMemberSite>>;
  // After hooks run last-registered first: the backend closes after the lab has stopped.
  afterEach(() => site.close());
  const t = withRealLab();

  it('lists the scenario files beside the workspace, runs one, shows each step, each PASS line and the summary', async () => {
    site = await httpMemberSite(t.real.dataDir, { file: 'site.yaml', name: 'scenario-ui', member: '127.0.47.11', vip: '127.0.47.10' });
    const { file } = site;
    await writeFile(join(t.real.dataDir, 'proof.yaml'), [
      '- at: 0s fault web/w1 refuse',
      '- expect: web/w1 unavailable within 8s',
      '- at: 8s clear web/w1',
      '- expect: web/w1 available within 8s',
      '',
    ].join('\n'));
    // Beside it but not a scenario: not offered.
    await writeFile(join(t.real.dataDir, 'notes.yaml'), 'just: a map\n');
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const w = mountWith(ScenarioRun, t.real.api, t.pinia);
    await w.find('[data-testid="scenario-toggle"]').trigger('click');
    await until(() => w.findAll('[data-testid="scenario-pick"] option').length > 0, 3000, 'the scenario files');
    expect(w.findAll('[data-testid="scenario-pick"] option').map((o) => o.text())).toEqual(['proof.yaml (4 steps)']);

    await w.find('button[data-action="run-scenario"]').trigger('click');
    await until(() => w.find('button[data-action="stop-scenario"]').exists(), 3000, 'the stop button while it runs');
    const lines = () => w.findAll('[data-testid="scenario-line"]');
    await until(() => lines().some((l) => l.text().includes('fault web/w1 refuse')), 12_000, 'the fault step shown');
    await until(() => lines().some((l) => l.attributes('data-kind') === 'pass' && l.text().includes('PASS web/w1 unavailable within 8000 ms')), 12_000, 'the first PASS line');
    await until(() => lines().some((l) => l.attributes('data-kind') === 'summary'), 20_000, 'the summary');
    const texts = lines().map((l) => l.text());
    // In the order they happened: the fault, its PASS, the clear (at 8 s), its PASS, the summary.
    const at = (s: string) => texts.findIndex((t) => t.includes(s));
    const order = ['fault web/w1 refuse', 'PASS web/w1 unavailable', 'clear web/w1', 'PASS web/w1 available within 8000 ms', 'expected transitions passed'].map(at);
    expect(order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]!)), texts.join('\n')).toBe(true);
    expect(texts.filter((t) => t.includes('FAIL'))).toEqual([]);
    expect(texts.at(-1)).toContain('2 of 2 expected transitions passed');
    await until(() => w.find('button[data-action="run-scenario"]').exists(), 3000, 'Run again once done');
    w.unmount();
  }, 60_000);

  it('stops a scenario that runs', async () => {
    site = await httpMemberSite(t.real.dataDir, { file: 'site.yaml', name: 'scenario-stop', member: '127.0.47.21' });
    const { file } = site;
    await writeFile(join(t.real.dataDir, 'long.yml'), '- at: 60s fault web/w1 refuse\n- expect: web/w1 unavailable within 8s\n');
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const w = mountWith(ScenarioRun, t.real.api, t.pinia);
    await w.find('[data-testid="scenario-toggle"]').trigger('click');
    await until(() => w.findAll('[data-testid="scenario-pick"] option').length === 1, 3000, 'the scenario file');
    await w.find('button[data-action="run-scenario"]').trigger('click');
    await until(() => w.find('button[data-action="stop-scenario"]').exists(), 3000, 'the stop button');
    await w.find('button[data-action="stop-scenario"]').trigger('click');
    await until(() => w.find('button[data-action="run-scenario"]').exists(), 5000, 'stopped');
    const last = w.findAll('[data-testid="scenario-line"]').at(-1)!;
    expect(last.attributes('data-kind')).toBe('summary');
    expect(last.text()).toContain('stopped before the end, 0 of 0 expected transitions passed so far');
    expect(lab.status?.faults ?? []).toEqual([]);
    w.unmount();
  }, 30_000);
});
