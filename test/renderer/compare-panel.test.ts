// The Compare panel runs the real compare (the lab and HAProxy on loopback) on the demo
// workspace through the typed API, and shows the side-by-side result.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import ComparePanel from '../../renderer/src/appliance/ComparePanel.vue';
import { HAPROXY_CANDIDATES } from '../../main/services/compare/sides';
import { mountWith, withDemo } from '../helpers/renderer/mount';
import { skipBecause } from '../helpers/skip';

const noHaproxy = HAPROXY_CANDIDATES.some((p) => existsSync(p)) ? '' : ' (skipped: haproxy is not installed)';

describe.skipIf(skipBecause(noHaproxy, 'Compare panel'))(`Compare panel${noHaproxy}`, () => {
  const t = withDemo();

  it('compares the demo with lab-haproxy and lists members, faults and explained differences', async () => {
    const w = mountWith(ComparePanel, t.real.api, t.pinia);
    await flushPromises();
    await w.find('[data-testid="compare-button"]').trigger('click');
    expect(w.find('[data-testid="compare-button"]').text()).toBe('Comparing…');
    const until = Date.now() + 80_000;
    while (!w.find('[data-testid="compare-summary"]').exists() && !w.find('[role="alert"]').exists() && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      await flushPromises();
    }
    expect(w.find('[role="alert"]').exists() ? w.find('[role="alert"]').text() : '').toBe('');
    expect(w.find('[data-testid="compare-summary"]').text()).toMatch(/, 0 unexplained, in /);
    expect(w.findAll('[data-testid="compare-member"]').map((r) => r.findAll('td')[1]!.text())).toEqual(['web1', 'web2']);
    expect(w.text()).toContain('Not compared: ldap-vip');
    expect(w.findAll('[data-testid="compare-difference"]').every((d) => d.text().startsWith('Explained'))).toBe(true);
    w.unmount();
  }, 100_000);
});
