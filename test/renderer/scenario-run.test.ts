// "Run scenario…" in the window: a scenario file beside the workspace, played on the real lab
// (through the real API) by serve's runner, each step and PASS line shown as it happens, then the summary.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realApi, type RealApi } from './helpers/api';
import { mountWith, storeContext, until } from './helpers/mount';
import { freePort } from './helpers/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import ScenarioRun from '../../renderer/src/lab/ScenarioRun.vue';
import type { Pinia } from 'pinia';

describe('scenario run', () => {
  let real: RealApi;
  let pinia: Pinia;
  let server: Server;
  beforeEach(async () => {
    real = realApi();
    pinia = storeContext(real.api);
  });
  afterEach(async () => {
    await useLab().stop();
    await real.close();
    await new Promise((r) => server.close(r));
  });

  it('lists the scenario files beside the workspace, runs one, shows each step, each PASS line and the summary', async () => {
    const port = await freePort('127.0.47.11');
    const vport = await freePort('127.0.47.10');
    server = createServer((req, res) => res.end('w1\n'));
    await new Promise<void>((r) => server.listen(port, '127.0.47.11', () => r()));
    const file = join(real.dataDir, 'site.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: scenario-ui',
      'healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }',
      'servers: [ { name: w1, address: 127.0.47.11 } ]',
      `groups: [ { name: web, members: [ { server: w1, port: ${port} } ], healthCheck: { type: http, http: { path: / } } } ]`,
      `services: [ { name: v, address: 127.0.47.10, port: ${vport}, group: web } ]`,
      '',
    ].join('\n'));
    await writeFile(join(real.dataDir, 'proof.yaml'), [
      '- at: 0s fault web/w1 refuse',
      '- expect: web/w1 unavailable within 8s',
      '- at: 8s clear web/w1',
      '- expect: web/w1 available within 8s',
      '',
    ].join('\n'));
    // Beside it but not a scenario: not offered.
    await writeFile(join(real.dataDir, 'notes.yaml'), 'just: a map\n');
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const w = mountWith(ScenarioRun, real.api, pinia);
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
    const port = await freePort('127.0.47.21');
    server = createServer((req, res) => res.end('w1\n'));
    await new Promise<void>((r) => server.listen(port, '127.0.47.21', () => r()));
    const file = join(real.dataDir, 'site.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: scenario-stop',
      'healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }',
      'servers: [ { name: w1, address: 127.0.47.21 } ]',
      `groups: [ { name: web, members: [ { server: w1, port: ${port} } ], healthCheck: { type: http, http: { path: / } } } ]`,
      '',
    ].join('\n'));
    await writeFile(join(real.dataDir, 'long.yml'), '- at: 60s fault web/w1 refuse\n- expect: web/w1 unavailable within 8s\n');
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const w = mountWith(ScenarioRun, real.api, pinia);
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
