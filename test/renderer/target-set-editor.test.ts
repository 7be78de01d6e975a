import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import { mountWith, settled, withDemo } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import TargetSetEditor from '../../renderer/src/editors/TargetSetEditor.vue';

describe('TargetSetEditor', () => {
  const t = withDemo();
  let w: VueWrapper;
  beforeEach(() => {
    w = mountWith(TargetSetEditor, t.real.api, t.pinia, { index: 0 });
  });
  afterEach(() => w.unmount());

  const field = (key: string) => w.find(`[data-field="${key}"]`);

  it('shows every IPFE field with a label', () => {
    for (const label of ['TS number', 'Address (TSA)', 'Protocols', 'Delete age (s)', 'Active IPFE', 'Secondary address', 'MPS factor (Fm)', 'Connection factor (Fc)', 'Allowed deviation (%)', 'Distribution threshold (D)']) {
      expect(w.text()).toContain(label);
    }
    // Every text control is labelled (by <label for>, or aria-label in the server table).
    for (const input of w.findAll('input[type="text"]')) {
      const id = input.attributes('id');
      const labelled = input.attributes('aria-label') || (id && w.find(`label[for="${id}"]`).exists());
      expect(labelled, `input ${id} has a label`).toBeTruthy();
    }
  });

  it('says how a set without a check of its own is checked, and its timers\' precedence', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['targetSets', 0, 'healthCheck'], undefined);
    await settled();
    expect(w.text()).toContain('No health check of its own: lbdesk checks the servers with TCP Layer 4 on the set\'s first port');
    expect(w.text()).not.toContain('not checked by lbdesk');
    // Its timers still apply (to that default check), with the target set's own precedence.
    expect(w.text()).toContain('Applies to every server of this target set (its servers have no timers of their own). Precedence: target set › global › built-in default (Px).');
    expect(w.text()).toContain('After a failure, and while down. 100ms–24h, default 10s.');
  });

  it('puts the validation message next to the field as you type, and clears it', async () => {
    const input = field('targetSets.0.servers.1.weight').find('input');
    await input.setValue('70000');
    await settled();
    const msg = field('targetSets.0.servers.1.weight').find('[data-testid="field-message"]');
    expect(msg.text()).toMatch(/integer from 0 to 65535/);
    expect(input.attributes('aria-invalid')).toBe('true');
    await input.setValue('300');
    await settled();
    expect(field('targetSets.0.servers.1.weight').find('[data-testid="field-message"]').exists()).toBe(false);
  });

  it('shows the problems of single ports under the Ports field and marks it invalid', async () => {
    const ports = () => field('targetSets.0.ports');
    const input = ports().find('input');
    const cases: [string, RegExp][] = [
      ['3868, 70000', /70000 \(entry 2\): .*65535/],
      ['3868, 3868', /3868 \(entry 2\): .*listed twice/],
      ['abc', /"abc" \(entry 1\): /],
    ];
    for (const [text, message] of cases) {
      await input.setValue(text);
      await settled();
      expect(useWorkspace().problems.some((p) => p.key.startsWith('targetSets.0.ports.')), text).toBe(true);
      expect(ports().find('[data-testid="field-message"]').text(), text).toMatch(message);
      expect(input.attributes('aria-invalid'), text).toBe('true');
    }
    await input.setValue('3868, 3869');
    await settled();
    expect(ports().find('[data-testid="field-message"]').exists()).toBe(false);
    expect(input.attributes('aria-invalid')).toBe('false');
  });

  it('shows the selection share each weight gives', async () => {
    const shares = () => w.findAll('[data-testid="selection-share"]').map((s) => s.text());
    expect(shares()).toEqual(['25 %', '75 %']);
    await field('targetSets.0.servers.0.weight').find('input').setValue('300');
    expect(shares()).toEqual(['50 %', '50 %']);
  });

  it('shows the mate of the active IPFE and follows a change', async () => {
    expect(w.find('[data-testid="ipfe-mate"]').text()).toContain('Standby: A2');
    const b1 = field('targetSets.0.activeIpfe').findAll('input[type="radio"]').find((r) => r.attributes('value') === 'B1')!;
    await b1.setValue(true);
    expect(useWorkspace().get(['targetSets', 0, 'activeIpfe'])).toBe('B1');
    expect(w.find('[data-testid="ipfe-mate"]').text()).toContain('Standby: B2');
  });

  it('tells what Fm and Fc become on save', async () => {
    await field('targetSets.0.leastLoad.mpsFactor').find('input').setValue('30');
    expect(w.find('[data-testid="normalised"]').text()).toContain('Fm 38 / Fc 62');
    await field('targetSets.0.leastLoad.connectionFactor').find('input').setValue('70');
    expect(w.find('[data-testid="normalised"]').text()).toContain('Fm 30 + Fc 70 = 100');
  });

  it('removing an optional value removes the key, and undo brings it back', async () => {
    const workspaceStore = useWorkspace();
    await field('targetSets.0.deleteAge').find('input').setValue('');
    expect(workspaceStore.get(['targetSets', 0, 'deleteAge'])).toBeUndefined();
    await settled();
    expect(await workspaceStore.text()).not.toContain('deleteAge: 600');
    await workspaceStore.undo();
    expect((field('targetSets.0.deleteAge').find('input').element as HTMLInputElement).value).toBe('600');
  });
});
