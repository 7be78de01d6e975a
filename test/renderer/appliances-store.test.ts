import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useAppliances } from '../../renderer/src/stores/appliances';

describe('appliances store', () => {
  let real: RealApi;
  beforeEach(async () => {
    real = realApi();
    storeContext(real.api);
    await useWorkspace().openDemo();
  });
  afterEach(async () => real.close());

  it('selects the first appliance and follows renames', async () => {
    const apps = useAppliances();
    const workspaceStore = useWorkspace();
    expect(apps.names).toEqual(['lab-haproxy']);
    expect(apps.selected).toBe('lab-haproxy');
    workspaceStore.rename('appliance', 0, 'edge-1');
    await flushPromises();
    expect(apps.selected).toBe('edge-1');
  });

  it('stays on the appliance being renamed when it is not the first', async () => {
    const apps = useAppliances();
    const workspaceStore = useWorkspace();
    workspaceStore.insert(['appliances'], { name: 'appliance-2', host: '', port: 22, user: 'lbdesk', auth: 'agent', driver: 'haproxy' });
    await flushPromises();
    apps.selected = 'appliance-2';
    for (const name of ['z', 'ze', 'zeb']) {
      workspaceStore.rename('appliance', 1, name);
      await flushPromises();
      expect(apps.selected).toBe(name);
    }
    workspaceStore.endRename();
    expect(apps.names).toEqual(['lab-haproxy', 'zeb']);
    // Through an empty name, and through another appliance's name, it stays on the second one.
    for (const name of ['', 'l', 'lab-haproxy', 'lab-haproxy-2']) {
      workspaceStore.rename('appliance', 1, name);
      await flushPromises();
      expect(apps.selectedIndex).toBe(1);
    }
    workspaceStore.endRename();
    expect(apps.selected).toBe('lab-haproxy-2');
    expect(apps.names).toEqual(['lab-haproxy', 'lab-haproxy-2']);
  });

  it('queues host key questions and takes them off when answered', async () => {
    const apps = useAppliances();
    const prompt = { id: 'q1', host: '127.0.0.1', port: 2222, keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc', reason: 'unknown' as const };
    real.services.events.send('hostKey.prompt', prompt);
    real.services.events.send('hostKey.prompt', { ...prompt, id: 'q2' });
    await flushPromises();
    expect(apps.hostKeys.map((p) => p.id)).toEqual(['q1', 'q2']);
    await apps.answerHostKey('q1', true);
    expect(apps.hostKeys.map((p) => p.id)).toEqual(['q2']);
  });

  it('queues login questions (OTP) and takes them off when answered', async () => {
    const apps = useAppliances();
    const prompt = { id: 'k1', appliance: 'lab-haproxy', host: 'lbdesk@127.0.0.1:2222', name: 'Two-step', instructions: '', prompts: [{ prompt: 'Verification code: ', echo: true }] };
    real.services.events.send('ssh.prompt', prompt);
    await flushPromises();
    expect(apps.sshPrompts.map((p) => p.id)).toEqual(['k1']);
    await apps.answerSshPrompt('k1', ['123456']);
    expect(apps.sshPrompts).toEqual([]);
    // Nothing was waiting for k1 in main: said as one sentence, not thrown.
    expect(apps.pushError).toMatch(/^Could not answer the login question/);
  });

  it('reports a failed diff or push as one sentence', async () => {
    const apps = useAppliances();
    await apps.loadDiff();
    const r = await apps.push({ confirmWithinMs: 60_000 });
    for (const m of [apps.diffError, apps.pushError].filter(Boolean)) {
      expect(m).toMatch(/^Could not .+\.$/);
      expect(m).not.toMatch(/\n/);
    }
    if (!r) expect(apps.pushing).toBe(false);
  });

  it('a failed dry run does not say "push"; errors go when the appliance settings change', async () => {
    const apps = useAppliances();
    const workspaceStore = useWorkspace();
    await apps.loadDiff();
    expect(await apps.push({ dryRun: true })).toBeUndefined();
    expect(apps.pushError).toMatch(/^Could not try a dry run on lab-haproxy: /);
    expect(apps.diffError).not.toBe('');
    workspaceStore.set(['appliances', 0, 'auth'], 'password');
    await flushPromises();
    expect([apps.diffError, apps.pushError]).toEqual(['', '']);
  });

  it('the commit-confirmed window is 10 s to 24 h, said, and kept while the user moves around', async () => {
    const apps = useAppliances();
    expect([apps.useConfirm, apps.confirmSeconds, apps.windowError]).toEqual([true, 120, '']);
    for (const bad of [5, 100_000, 12.5, '']) {
      apps.confirmSeconds = bad;
      expect(apps.windowError, String(bad)).toBe('A whole number of seconds from 10 to 86400 (24 h).');
    }
    apps.useConfirm = false;
    expect(apps.windowError).toBe('');
    apps.useConfirm = true;
    apps.confirmSeconds = 15;
    expect(apps.windowError).toBe('');
    // The panel: Push stays off while a push waits for Confirm, or the window is wrong.
    const { mountWith } = await import('../helpers/renderer/mount');
    const PushPanel = (await import('../../renderer/src/appliance/PushPanel.vue')).default;
    const { getActivePinia } = await import('pinia');
    const w = mountWith(PushPanel, real.api, getActivePinia()!);
    apps.confirmBy = Date.now() + 60_000;
    await flushPromises();
    expect(w.find('[data-testid="push-button"]').attributes('disabled')).toBeDefined();
    expect(w.find('[data-testid="push-button"]').attributes('title')).toMatch(/waiting for Confirm/);
    apps.confirmBy = undefined;
    apps.confirmSeconds = 5;
    await flushPromises();
    expect(w.find('[data-testid="window-error"]').text()).toBe('Commit-confirmed window: A whole number of seconds from 10 to 86400 (24 h).');
    w.unmount();
    // Mounted again (the user came back): still 5, not 120.
    const again = mountWith(PushPanel, real.api, getActivePinia()!);
    expect((again.find('[data-testid="confirm-seconds"]').element as HTMLInputElement).value).toBe('5');
    again.unmount();
  });

  it('counts down a commit-confirmed window', async () => {
    const apps = useAppliances();
    apps.confirmBy = Date.now() + 5_000;
    await flushPromises();
    expect(apps.secondsLeft).toBeGreaterThanOrEqual(4);
    expect(apps.secondsLeft).toBeLessThanOrEqual(5);
    apps.confirmBy = undefined;
  });
});
