import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, type VueWrapper } from '@vue/test-utils';
import type { Pinia } from 'pinia';
import { readFileSync, writeFileSync } from 'node:fs';
import { useApp } from '../../renderer/src/stores/app';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, settled, storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useNav } from '../../renderer/src/stores/nav';
import { usePrefs } from '../../renderer/src/stores/prefs';
import App from '../../renderer/src/App.vue';

const key = (k: string, mods: Partial<KeyboardEventInit> = {}, code?: string) =>
  window.dispatchEvent(new KeyboardEvent('keydown', { key: k, code, bubbles: true, cancelable: true, ...mods }));

describe('App', () => {
  let real: RealApi;
  let pinia: Pinia;
  let w: VueWrapper;
  beforeEach(async () => {
    real = realApi();
    pinia = storeContext(real.api);
    w = mountWith(App, real.api, pinia);
    await vi.waitFor(() => expect(useWorkspace().loaded).toBe(true), { timeout: 5000, interval: 10 });
    await flushPromises();
  });
  afterEach(async () => {
    w.unmount();
    await real.close();
  });

  it('Reload from disk with unsaved edits asks to discard them, never to save over the change on disk', async () => {
    const workspaceStore = useWorkspace();

    workspaceStore.set(['name'], 'mine');
    await settled();
    writeFileSync(workspaceStore.path, readFileSync(workspaceStore.path, 'utf8').replace(/^name: .*$/m, 'name: theirs'));
    const app = useApp();
    const done = app.reload();
    await flushPromises();
    const dialog = w.find('dialog');
    expect(dialog.text()).toContain('Reload from disk?');
    expect(w.find('[data-testid="choice-save"]').exists()).toBe(false);
    // The safe answer has the focus.
    expect(document.activeElement).toBe(w.find('[data-testid="choice-cancel"]').element);
    await w.find('[data-testid="choice-reload"]').trigger('click');
    expect(await done).toBe(true);
    await settled();
    expect(workspaceStore.name).toBe('theirs');
    expect(workspaceStore.dirty).toBe(false);
  });

  it('Add member (and a target set\'s Add server) puts the focus on the new row', async () => {
    const addIn = async (digit: string, list: 'groups' | 'targetSets', button: string, field: string) => {
      key(digit, { ctrlKey: true }, `Digit${digit}`);
      await flushPromises();
      useNav().select(list, 0);
      await flushPromises();
      await w.find(`[data-testid="${button}"]`).trigger('click');
      await flushPromises();
      await vi.waitFor(() => expect(document.activeElement).toBe(w.find(`[data-field="${field}"] input`).element));
    };
    await addIn('3', 'groups', 'add-member', 'groups.0.members.2.server');
    await addIn('5', 'targetSets', 'add-target-server', 'targetSets.0.servers.2.address');
  });

  it('with the lab off, a member says so once, not also "not checked yet" (Check now may have checked it)', async () => {
    const nav = useNav();
    nav.go('overview');
    nav.member = 'g:web/web2:8081';
    await flushPromises();
    const why = w.find('[data-testid="why"]').text();
    expect(why).toContain('The lab is not running: start it to check this member live, or Check now for one result.');
    expect(why).not.toContain('not been checked yet');
  });

  it('with the lab running on older edits, the member\'s timers are said to be the edited ones', async () => {
    const nav = useNav();
    const workspaceStore = useWorkspace();
    nav.go('overview');
    nav.member = 'g:web/web2:8081';
    real.services.events.send('lab.status', { running: true, path: workspaceStore.path, listening: [], members: [], notes: [] });
    await flushPromises();
    expect(w.find('[data-testid="timers-not-applied"]').exists()).toBe(false);
    workspaceStore.set(['healthTimers', 'interval'], '6s');
    await settled();
    expect(w.find('[data-testid="timers-not-applied"]').text()).toBe('As edited: the lab runs the timers it started with until you apply the edits.');
  });

  it("a member's Edit member and Edit server put the focus in that row's field", async () => {
    const nav = useNav();
    const press = async (label: string, field: string) => {
      nav.go('overview');
      nav.member = 'g:web/web2:8081';
      await flushPromises();
      const button = w.findAll('button').find((b) => b.text() === label)!;
      await button.trigger('click');
      await flushPromises();
      await vi.waitFor(() => expect(document.activeElement, label).toBe(w.find(`[data-field="${field}"] input`).element));
    };
    await press('Edit member', 'groups.0.members.1.server');
    await press('Edit server', 'servers.1.address');
  });

  it('opens the demo workspace on first start and shows its name', () => {
    expect(w.find('[data-testid="workspace-name"]').text()).toBe('lab-site-a');
    expect(w.find('[data-testid="topology"]').text()).toContain('web-vip');
    expect(w.text()).toContain('unknown');
  });

  it('switches sections with Ctrl+1..8 and adds and undoes with the keyboard', async () => {
    const nav = useNav();
    const workspaceStore = useWorkspace();
    key('2', { ctrlKey: true }, 'Digit2');
    await flushPromises();
    expect(nav.section).toBe('servers');
    expect(w.find('main').attributes('aria-label')).toBe('Real servers');
    key('n', { altKey: true }, 'KeyN');
    await flushPromises();
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(5);
    expect(w.find('[data-testid="dirty"]').exists()).toBe(true);
    // The new server's address has the focus: type it at once.
    await vi.waitFor(() => expect(document.activeElement).toBe(w.find('[data-field="servers.4.address"] input').element));
    key('z', { ctrlKey: true }, 'KeyZ');
    await settled();
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(4);
    expect(w.find('[data-testid="dirty"]').exists()).toBe(false);
    key('7', { ctrlKey: true }, 'Digit7');
    await flushPromises();
    expect(nav.section).toBe('problems');
  });

  it('jumps from a problem to its field and focuses it', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['services', 1, 'port'], 99999);
    await settled();
    expect(w.find('[data-testid="problem-count"]').text()).toBe('1');
    key('F8', {}, 'F8');
    await flushPromises();
    expect(useNav().section).toBe('services');
    const field = w.find('[data-field="services.1.port"]');
    expect(field.exists()).toBe(true);
    await vi.waitFor(() => expect(document.activeElement).toBe(field.find('input').element));
    expect(field.text()).toMatch(/port number from 1 to 65535/);
  });

  it('Alt+Delete on a server a group refers to asks first, naming the group; the undo tooltip names the server', async () => {
    const nav = useNav();
    const workspaceStore = useWorkspace();
    key('2', { ctrlKey: true }, 'Digit2');
    await flushPromises();
    nav.select('servers', 0);
    await flushPromises();
    key('Delete', { altKey: true }, 'Delete');
    await flushPromises();
    const dialog = w.find('dialog');
    expect(dialog.exists()).toBe(true);
    expect(dialog.text()).toContain('Remove server web1?');
    expect(dialog.text()).toMatch(/group web refers to it/);
    // The safe answer has the focus: Enter keeps the server.
    expect(document.activeElement).toBe(w.find('[data-testid="choice-cancel"]').element);
    await w.find('[data-testid="choice-cancel"]').trigger('click');
    await flushPromises();
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(4);
    key('Delete', { altKey: true }, 'Delete');
    await flushPromises();
    await w.find('[data-testid="choice-remove"]').trigger('click');
    await settled();
    expect((workspaceStore.raw.servers as { name: string }[]).map((s) => s.name)).toEqual(['web2', 'dir1', 'dns1']);
    expect(w.find('button[aria-label="Undo (Ctrl+Z)"]').attributes('title')).toBe('Undo remove server web1 (Ctrl+Z)');
    key('z', { ctrlKey: true }, 'KeyZ');
    await settled();
    expect((workspaceStore.raw.servers as { name: string }[])[0]!.name).toBe('web1');
    // A server nobody refers to goes at once.
    workspaceStore.insert(['servers'], { name: 'spare', address: '127.0.0.99' });
    nav.select('servers', 4);
    await flushPromises();
    key('Delete', { altKey: true }, 'Delete');
    await flushPromises();
    expect(w.find('dialog').exists()).toBe(false);
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(4);
  });

  it('toggles the theme and keeps the choice', async () => {
    const prefs = usePrefs();
    await w.find('[data-testid="theme-toggle"]').trigger('click');
    expect(prefs.theme).not.toBe('system');
    expect(document.documentElement.getAttribute('data-theme')).toBe(prefs.theme);
    expect(localStorage.getItem('lbdesk.prefs')).toContain(prefs.theme);
    await w.find('[data-testid="theme-toggle"]').trigger('click');
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
  });
});

describe('new workspace', () => {
  let real: RealApi;
  let pinia: Pinia;
  let w: VueWrapper;
  beforeEach(async () => {
    real = realApi();
    pinia = storeContext(real.api);
    w = mountWith(App, real.api, pinia);
    await vi.waitFor(() => expect(useWorkspace().loaded).toBe(true), { timeout: 5000, interval: 10 });
  });
  afterEach(async () => {
    w.unmount();
    await real.close();
  });

  it('creates a valid empty workspace where the user says, and opens it', async () => {
    const { useApp } = await import('../../renderer/src/stores/app');
    const app = useApp();
    const done = app.newWorkspace();
    for (let i = 0; i < 20 && !app.fileDialog; i++) await flushPromises();
    expect(app.fileDialog?.mode).toBe('saveAs');
    expect(app.fileDialog?.suggested).toBe('new-site.yaml');
    app.fileDialog!.resolve(`${real.dataDir}/branch office.yaml`);
    expect(await done).toBe(true);
    const workspaceStore = useWorkspace();
    expect(workspaceStore.name).toBe('branch-office');
    await settled();
    expect(workspaceStore.errors).toEqual([]);
    workspaceStore.insert(['servers'], { name: 'web1', address: '127.0.0.21' });
    expect(await workspaceStore.save()).toBe(true);
    expect(await workspaceStore.text()).toMatch(/servers:\n\s+- name: web1\n\s+address: 127\.0\.0\.21/);
  });
});
