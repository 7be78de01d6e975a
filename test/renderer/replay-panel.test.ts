// Replay in a member's detail on the demo: the lab's recorded checks of web2 (own timers: interval
// 5s, retryInterval 10s, failAfter 2) replayed with failAfter 1 — by hand: passes at 0 and 5 s,
// failures at 10 and 20 s; recorded, out when the second failure decides (20 s + 1 ms, 10 s after
// the failure began); replayed, at the first (1 ms after).
import { describe, expect, it, vi } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { mountWith, withDemo } from '../helpers/renderer/mount';
import ReplayPanel from '../../renderer/src/lab/ReplayPanel.vue';
import type { CheckResult } from '../../shared/api/types';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const results: CheckResult[] = [0, 5, 10, 20].map((s) => ({ at: T0 + s * 1000, ok: s < 10, reason: s < 10 ? 'HTTP/1.0 200' : 'connect ECONNREFUSED', rttMs: 1, evidence: {} }));


describe('replay panel', () => {
  const t = withDemo();

  it('replays the recorded checks under the timers typed, beside the member\'s own', async () => {
    const w = mountWith(ReplayPanel, t.real.api, t.pinia, { memberKey: 'g:web/web2:8081', results, changes: [] });
    await w.find('[data-timer="failAfter"]').setValue('1');
    await w.find('[data-testid="replay-run"]').trigger('click');
    await vi.waitFor(async () => {
      await flushPromises();
      expect(w.find('[data-testid="replay-table"]').exists()).toBe(true);
    }, 10_000);
    const rows = w.findAll('[data-testid="replay-table"] tbody tr').map((r) => r.findAll('td').map((c) => c.text()));
    expect(rows).toEqual([
      ['Checks', '4', '4'],
      ['In service while failing', '10 s', '1 ms'],
      ['Out while passing', '0 ms', '0 ms'],
      ['Taken out after', '10 s', '1 ms'],
      ['State changes', '2', '2'],
    ]);
    w.unmount();
  });

  it('a timer out of range is said in one sentence', async () => {
    const w = mountWith(ReplayPanel, t.real.api, t.pinia, { memberKey: 'g:web/web2:8081', results, changes: [] });
    await w.find('[data-timer="interval"]').setValue('5ms');
    await w.find('[data-testid="replay-run"]').trigger('click');
    await vi.waitFor(async () => {
      await flushPromises();
      expect(w.find('[role="alert"]').exists()).toBe(true);
    }, 10_000);
    expect(w.find('[role="alert"]').text()).toBe('Could not replay the checks: lab.replay: timers.interval: must be between 100ms and 24h.');
    w.unmount();
  });
});
