import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab, KEEP_RESULTS } from '../../renderer/src/stores/lab';
import type { MemberStatus } from '../../shared/api/types';
import { freePort, labWorkspace } from '../helpers/renderer/workspace';

const member = (over: Partial<MemberStatus> = {}): MemberStatus => ({
  key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, check: 'http', layer: 7,
  state: 'available', score: 10, reason: 'HTTP/1.0 200', since: 1, consecutiveFailures: 0, consecutivePasses: 2, ...over,
});

describe('lab store', () => {
  let real: RealApi;
  beforeEach(async () => {
    real = realApi();
    storeContext(real.api);
    await useWorkspace().openDemo();
  });
  afterEach(async () => real.close());

  it('shows each member as the engine holds it; stats-only status keeps the members', async () => {
    const lab = useLab();
    const emit = real.services.events.send;
    emit('lab.status', { running: true, listening: [], members: [member({ rttMs: 4.2 })], notes: [] });
    await flushPromises();
    expect(lab.running).toBe(true);
    expect(lab.counts.available).toBe(1);
    // A failure while still up: the engine keeps the last passing RTT, and so does the page.
    const failed = { ok: false, reason: 'connect ECONNREFUSED', evidence: { errno: 'ECONNREFUSED' }, at: 2 };
    emit('lab.member', { member: member({ rttMs: 4.2, consecutiveFailures: 1, consecutivePasses: 0, score: 9 }), result: failed });
    await flushPromises();
    expect(lab.members.get('g:web/web1:8081')).toMatchObject({ state: 'available', rttMs: 4.2, consecutiveFailures: 1, score: 9 });
    const change = { key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, from: 'available' as const, to: 'unavailable' as const, score: 1, reason: 'connect ECONNREFUSED after 2 failures', at: 3 };
    emit('lab.member', { member: member({ state: 'unavailable', score: 1, consecutiveFailures: 2, consecutivePasses: 0, reason: change.reason }), result: { ...failed, at: 3 } });
    emit('lab.member', { member: member({ state: 'unavailable', score: 1, consecutiveFailures: 2, consecutivePasses: 0, reason: change.reason }), change });
    // The stats of the next second name no members: those shown stay as they are.
    emit('lab.status', { running: true, listening: [], notes: [] });
    await flushPromises();
    expect(lab.members.get('g:web/web1:8081')).toMatchObject({ state: 'unavailable', consecutiveFailures: 2, score: 1 });
    expect(lab.counts.unavailable).toBe(1);
    expect(lab.results.get('g:web/web1:8081')).toHaveLength(2);
    expect(lab.changes.at(-1)?.to).toBe('unavailable');
  });

  it('keeps a bounded window of results per member', async () => {
    const lab = useLab();
    for (let i = 0; i < KEEP_RESULTS + 15; i++) {
      real.services.events.send('lab.member', { member: member({ key: 'k' }), result: { ok: true, rttMs: i, reason: 'ok', evidence: {}, at: i } });
    }
    await flushPromises();
    const list = lab.results.get('k')!;
    expect(list).toHaveLength(KEEP_RESULTS);
    expect(list.at(-1)!.at).toBe(KEEP_RESULTS + 14);
  });

  it('knows when the workspace was edited after the lab started', async () => {
    const lab = useLab();
    const workspaceStore = useWorkspace();
    // Start for real: the lab engine listens on loopback, on a port nobody else uses.
    await workspaceStore.open(await labWorkspace(real.dataDir, { backendPort: await freePort(), vipPort: await freePort(), host: '127.0.0.63' }));
    const ok = await lab.start();
    expect(lab.message).toBe('');
    expect(ok).toBe(true);
    expect(lab.outOfDate).toBe(false);
    // A description changes nothing the lab does; a timer does.
    workspaceStore.set(['description'], 'edited');
    expect(lab.outOfDate).toBe(false);
    workspaceStore.set(['healthTimers', 'failAfter'], 3);
    expect(lab.outOfDate).toBe(true);
    expect(await lab.apply()).toBe(true);
    expect(lab.outOfDate).toBe(false);
    expect(await lab.stop()).toBe(true);
    expect(lab.running).toBe(false);
  });

  it('compares the workspace with what the lab runs: undoing back to it needs no apply', async () => {
    const lab = useLab();
    const workspaceStore = useWorkspace();
    await workspaceStore.open(await labWorkspace(real.dataDir, { backendPort: await freePort(), vipPort: await freePort(), host: '127.0.0.64' }));
    expect(await lab.start()).toBe(true);
    workspaceStore.set(['servers', 0, 'address'], '127.0.0.65');
    expect(lab.outOfDate).toBe(true);
    await workspaceStore.undo();
    expect(lab.outOfDate).toBe(false);
    // Typed away and back by hand: the same data again.
    workspaceStore.set(['healthTimers', 'failAfter'], 3);
    expect(lab.outOfDate).toBe(true);
    workspaceStore.set(['healthTimers', 'failAfter'], 2);
    expect(lab.outOfDate).toBe(false);
    expect(await lab.stop()).toBe(true);
  });

  it('knows about edits when the lab was started elsewhere (another window, serve --ui, a reload)', async () => {
    const workspaceStore = useWorkspace();
    const file = await labWorkspace(real.dataDir, { backendPort: await freePort(), vipPort: await freePort(), host: '127.0.0.66' });
    await workspaceStore.open(file);
    // Started by someone else on the file: this window only learns it from lab.status.
    const started = await real.api.call('lab.start', { path: file });
    expect(started.running).toBe(true);
    const lab = useLab();
    await lab.refresh();
    expect(lab.running).toBe(true);
    expect(lab.outOfDate).toBe(false);
    workspaceStore.set(['servers', 0, 'address'], '127.0.0.67');
    expect(lab.outOfDate).toBe(true);
    expect(await lab.apply()).toBe(true);
    expect(lab.outOfDate).toBe(false);
    expect(await lab.stop()).toBe(true);
    expect(lab.outOfDate).toBe(false);
  });

  it('says in a sentence why the lab could not start', async () => {
    const lab = useLab();
    const workspaceStore = useWorkspace();
    workspaceStore.set(['services', 0, 'port'], 'eighty');
    expect(await lab.start()).toBe(false);
    expect(lab.message).toMatch(/^Could not start the lab: .+\.$/);
    expect(lab.message).not.toMatch(/\n\s+at /);
  });
});
