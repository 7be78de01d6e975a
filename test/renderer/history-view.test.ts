// History of a lab that was started before this window looked (another window, `lbdesk serve --ui`,
// a page reload): what the lab saw so far is loaded, and its notices are listed with the events.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appendFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Pinia } from 'pinia';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, storeContext } from '../helpers/renderer/mount';
import { freePort, labWorkspace } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import HistoryView from '../../renderer/src/views/HistoryView.vue';

describe('History of a lab started elsewhere', () => {
  let real: RealApi;
  let pinia: Pinia;
  beforeEach(() => {
    real = realApi();
    pinia = storeContext(real.api);
  });
  afterEach(async () => real.close());

  it('loads the state changes so far and lists the lab notices under Engine events', async () => {
    const file = await labWorkspace(real.dataDir, { backendPort: await freePort('127.0.0.68'), vipPort: await freePort('127.0.0.68'), host: '127.0.0.68' });
    // A target set on a documentation address: validated, never bound; the lab leaves it out and says so.
    await appendFile(file, 'targetSets:\n  - { number: 1, address: 192.0.2.10, ports: [3868], servers: [{ address: 192.0.2.11 }] }\n');
    await real.api.call('lab.start', { path: file });
    // Nothing listens on the backend port: the member's first result is a change to unavailable.
    const key = (await real.api.call('lab.status', {})).members[0]!.key;
    await vi.waitFor(async () => expect((await real.api.call('lab.history', { key })).changes.length).toBeGreaterThan(0), { timeout: 5000, interval: 20 });

    const asked: string[] = [];
    const call = real.api.call;
    real.api.call = ((method, args) => {
      asked.push(method);
      return call(method, args);
    }) as typeof call;
    await useWorkspace().open(file);
    const lab = useLab();
    await lab.refresh();
    expect(lab.changes.length).toBeGreaterThan(0);
    expect(lab.changes[0]!.key).toBe(key);
    expect(lab.results.get(key)?.length).toBeGreaterThan(0);
    // One call for the whole session, not one per member (10,000 calls on a big site).
    expect(asked.filter((m) => m === 'lab.history')).toEqual([]);
    expect(asked.filter((m) => m === 'lab.session')).toEqual(['lab.session']);

    const w = mountWith(HistoryView, real.api, pinia);
    expect(w.find('[data-testid="lab-events"]').text()).toContain('b1');
    expect(w.text()).not.toContain('Start the lab (F5)');
    expect(w.find('[data-testid="lab-notes"]').text()).toMatch(/target set 1 \(192\.0\.2\.10\) is not on a loopback address/);
    expect(w.find('[data-testid="history-lab-file"]').exists()).toBe(false);
    // Another workspace on screen: the changes are said to be the lab file's, not this one's.
    await useWorkspace().openDemo();
    await vi.waitFor(() => expect(w.find('[data-testid="history-lab-file"]').text()).toBe(`· lab file ${basename(file)}`));
    w.unmount();
    await lab.stop();
  });

  it('an engine notice that names its target set is not prefixed with it twice', async () => {
    await useWorkspace().openDemo();
    const lab = useLab();
    real.services.events.send('lab.event', { ts: new Date().toISOString(), type: 'notice', targetSet: 1, message: 'target set 1: TCP is forwarded; SCTP is kept in the config but not forwarded locally' });
    real.services.events.send('lab.event', { ts: new Date().toISOString(), type: 'notice', targetSet: 2, message: 'not forwarded: heartbeat port busy' });
    await vi.waitFor(() => expect(lab.events).toHaveLength(2));
    const w = mountWith(HistoryView, real.api, pinia);
    const text = w.find('[data-testid="engine-events"]').text();
    expect(text).toContain('target set 1: TCP is forwarded');
    expect(text).not.toContain('target set 1: target set 1');
    expect(text).toContain('target set 2: not forwarded: heartbeat port busy');
    w.unmount();
  });
});
