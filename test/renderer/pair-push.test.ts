// The app's rolling pair push: the two boxes side by side. Here the standby's SSH port answers
// nothing (a real refused connect on loopback): the push stops there, the active box is never
// tried, and each box says what it runs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pinia } from 'pinia';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, settled, storeContext } from '../helpers/renderer/mount';
import { freePort } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { usePairPush } from '../../renderer/src/stores/pairs';
import PairPush from '../../renderer/src/appliance/PairPush.vue';

describe('pair push in the app', () => {
  let real: RealApi;
  let pinia: Pinia;
  beforeEach(() => {
    real = realApi();
    pinia = storeContext(real.api);
  });
  afterEach(async () => real.close());

  it('stops at the standby when it cannot be reached; the active box is not touched', async () => {
    const closed = await freePort('127.0.22.2');
    const file = join(real.dataDir, 'pair.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: pair-app',
      'servers: [{ name: a, address: 127.0.22.41 }]',
      'groups: [{ name: g, members: [{ server: a, port: 8080 }], healthCheck: { type: tcp } }]',
      'services: [{ name: vip, address: 127.0.22.10, port: 8080, group: g }]',
      'appliances:',
      '  - { name: h1, host: 127.0.22.1, port: 22, driver: haproxy }',
      `  - { name: h2, host: 127.0.22.2, port: ${closed}, driver: haproxy }`,
      'pairs:',
      '  - { name: edge, interface: lo, members: [{ appliance: h1 }, { appliance: h2 }], instances: [{ id: 61, master: h1, services: [vip] }] }',
      '',
    ].join('\n'));
    await useWorkspace().open(file);
    const w = mountWith(PairPush, real.api, pinia);
    await settled();
    // As for one appliance: what the boxes would do is seen before a push (a dry run of the pair at this revision).
    expect(w.find('[data-push-pair="edge"]').attributes('disabled')).toBeDefined();
    expect(w.find('[data-pair-gate="edge"]').text()).toMatch(/^Dry run first/);
    await w.find('input[type="checkbox"]').setValue(true);
    expect(w.find('[data-push-pair="edge"]').attributes('disabled')).toBeUndefined();
    await w.find('[data-push-pair="edge"]').trigger('click');
    await vi.waitFor(async () => {
      await settled();
      expect(w.find('[data-testid="pair-result"]').exists()).toBe(true);
    }, { timeout: 5000, interval: 20 });
    const result = w.find('[data-testid="pair-result"]');
    expect(result.text()).toMatch(/^refused: standby h2: h2 refused: .*; h1 was not touched/);
    const boxes = w.findAll('.box');
    expect(boxes.map((b) => b.attributes('data-box'))).toEqual(['h2', 'h1']);
    expect(w.find('[data-box="h2"]').text()).toContain('standby');
    expect(w.find('[data-box="h2"] [data-testid="holds"]').text()).toBe('runs its previous config (the new one was refused before going live)');
    expect(w.find('[data-box="h1"]').text()).toContain('not pushed');
    expect(w.find('[data-box="h1"] [data-testid="holds"]').text()).toBe('runs its previous config (untouched)');
    // The steps came through the store as they happened: the standby's, none of the active's.
    const steps = usePairPush().progress;
    expect(steps.length).toBeGreaterThan(0);
    expect(new Set(steps.map((p) => p.appliance))).toEqual(new Set(['h2']));
    // A dry run that did not pass opens no push.
    await w.find('input[type="checkbox"]').setValue(false);
    expect(w.find('[data-push-pair="edge"]').attributes('disabled')).toBeDefined();
    w.unmount();
  }, 30_000);
});
