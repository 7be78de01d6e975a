// Renaming by typing and conflicting fields, as a user meets them in the editors: the rename moves
// only the edited item's references, and a clash shows under the field being edited.
import { describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import { mountWith, settled, withDemo } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import ServerEditor from '../../renderer/src/editors/ServerEditor.vue';
import ServiceEditor from '../../renderer/src/editors/ServiceEditor.vue';

/** Types like a user who selected the whole field: one input event per keystroke. */
async function type(w: VueWrapper, selector: string, text: string): Promise<void> {
  const input = w.find(selector);
  for (let i = 1; i <= text.length; i++) await input.setValue(text.slice(0, i));
  await settled();
}

describe('renaming by typing and conflicts', () => {
  const t = withDemo();

  it('typing dir1 → web1b passes through web1 without taking web1’s references', async () => {
    const workspaceStore = useWorkspace();
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 2 });
    await type(w, '[data-field="servers.2.name"] input', 'web1b');
    expect(workspaceStore.get(['servers', 2, 'name'])).toBe('web1b');
    expect(workspaceStore.get(['groups', 0, 'members', 0, 'server'])).toBe('web1');
    expect(workspaceStore.get(['groups', 1, 'members', 0, 'server'])).toBe('web1b');
    expect(workspaceStore.errors).toEqual([]);
    w.unmount();
  });

  it('web1 → web2 → web1 by typing leaves web2’s member alone', async () => {
    const workspaceStore = useWorkspace();
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 0 });
    const sel = '[data-field="servers.0.name"] input';
    await type(w, sel, 'web2');
    // The clash is shown under the field being typed in, and on the other server too.
    const field = w.find('[data-field="servers.0.name"]');
    expect(field.find('[data-testid="field-message"]').text()).toMatch(/duplicate server name "web2" \(also defined at server web2 \(no\. 2\)\)/i);
    expect(field.find('input').attributes('aria-invalid')).toBe('true');
    expect(workspaceStore.problemsAt('servers.1.name').map((p) => p.message).join()).toMatch(/servers\[0\]/);
    expect(workspaceStore.get(['groups', 0, 'members', 1, 'server'])).toBe('web2');
    await w.find(sel).setValue('web');
    await type(w, sel, 'web1');
    expect(workspaceStore.get(['groups', 0, 'members', 0, 'server'])).toBe('web1');
    expect(workspaceStore.get(['groups', 0, 'members', 1, 'server'])).toBe('web2');
    expect(workspaceStore.errors).toEqual([]);
    expect(workspaceStore.undoLabel).toBe('rename server web1');
    w.unmount();
  });

  it('a duplicate name shows under the field at once, before the whole file is re-validated', async () => {
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 0 });
    await w.find('[data-field="servers.0.name"] input').setValue('dir1');
    expect(useWorkspace().validating).toBe(true);
    expect(w.find('[data-field="servers.0.name"] [data-testid="field-message"]').text()).toMatch(/duplicate server name "dir1" \(also defined at server dir1 \(no\. 3\)\)/i);
    w.unmount();
  });

  it('a port that clashes shows under the port being edited', async () => {
    const workspaceStore = useWorkspace();
    const w = mountWith(ServiceEditor, t.real.api, t.pinia, { index: 0 });
    await type(w, '[data-field="services.0.port"] input', '1389');
    const field = w.find('[data-field="services.0.port"]');
    expect(field.find('[data-testid="field-message"]').text()).toMatch(/127\.0\.0\.10:1389\/tcp is also used by service ldap-vip/i);
    expect(field.find('input').attributes('aria-invalid')).toBe('true');
    expect(workspaceStore.problemsAt('services.1.port').map((p) => p.message).join()).toMatch(/service web-vip/);
    w.unmount();
  });
});
