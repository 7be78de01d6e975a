// What-if in the window on the demo: pick what fails, the Overview highlights the services and
// target sets that lose capacity, struck through the failed members, with main's answer.
import { describe, expect, it, vi } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { mountWith, settled, withDemo } from '../helpers/renderer/mount';
import OverviewView from '../../renderer/src/views/OverviewView.vue';
import { useWhatIf } from '../../renderer/src/stores/whatif';
import { useWorkspace } from '../../renderer/src/stores/workspace';


describe('what-if on the Overview', () => {
  const t = withDemo();

  it('web1 fails: web-vip keeps one of two, web1 struck through; dir1 too: ldap-vip has none', async () => {
    const w = mountWith(OverviewView, t.real.api, t.pinia);
    await flushPromises();
    await w.find('[data-testid="whatif-toggle"]').trigger('click');
    const bar = () => w.find('[data-testid="whatif"]');
    expect(bar().exists()).toBe(true);
    expect(bar().findAll('datalist option').map((o) => o.attributes('value'))).toEqual(['web1', 'web2', 'dir1', 'dns1', 'web', 'directory', 'resolvers', 'lab-haproxy']);
    await bar().find('[data-testid="whatif-pick"]').setValue('web1');
    await bar().find('[data-testid="whatif-add"]').trigger('click');
    await vi.waitFor(async () => {
      await flushPromises();
      expect(w.find('[data-testid="whatif-summary"]').exists()).toBe(true);
    }, 10_000);
    const head = (pool: string) => w.find(`.row-head[data-pool="${pool}"]`);
    expect(head('svc:web-vip').classes()).toContain('wi-less');
    expect(head('svc:web-vip').find('[data-testid="whatif-tag"]').text()).toBe('what if: 1 of 2 left');
    expect(head('svc:web-vip').find('[data-testid="whatif-tag"]').attributes('title')).toBe('new connections: web/web2:8081 100 %');
    expect(head('svc:ldap-vip').classes()).not.toContain('wi-less');
    expect(head('svc:dns-vip').find('[data-testid="whatif-tag"]').text()).toBe('what if: no member, as without it');
    expect(w.find('[data-member="g:web/web1:8081"]').classes()).toContain('wi-failed');
    expect(w.find('[data-member="g:web/web2:8081"]').classes()).not.toContain('wi-failed');
    expect(w.find('[data-testid="whatif-summary"]').text()).toBe('No member left: dns-vip; 1 loses capacity.');

    await bar().find('[data-testid="whatif-pick"]').setValue('dir1');
    await bar().find('[data-testid="whatif-pick"]').trigger('keydown', { key: 'Enter' });
    await vi.waitFor(async () => {
      await flushPromises();
      expect(head('svc:ldap-vip').classes().includes('wi-none')).toBe(true);
    }, 10_000);
    expect(head('svc:ldap-vip').find('[data-testid="whatif-tag"]').text()).toBe('what if: no member left');
    expect(w.findAll('[data-testid="whatif-failing"]').map((c) => c.text().replace('×', ''))).toEqual(['web1', 'dir1']);

    // One chip removed: the answer follows; Close clears the highlight.
    await w.findAll('[data-testid="whatif-failing"]')[0]!.find('button').trigger('click');
    await vi.waitFor(async () => {
      await flushPromises();
      expect(!head('svc:web-vip').classes().includes('wi-less')).toBe(true);
    }, 10_000);
    await w.find('[data-testid="whatif-close"]').trigger('click');
    await flushPromises();
    expect(w.find('[data-testid="whatif"]').exists()).toBe(false);
    expect(w.findAll('.wi-none, .wi-less, .wi-failed')).toHaveLength(0);
    w.unmount();
  });

  it('answers for the text on screen, and an unknown name is said in one sentence', async () => {
    const workspaceStore = useWorkspace();
    const whatif = useWhatIf();
    // An unsaved edit: web2 gets weight 0, so web1 failing leaves web-vip with none.
    workspaceStore.set(['groups', 0, 'members', 1, 'weight'], 0);
    await settled();
    await whatif.add('web1');
    expect(whatif.byPool.get('svc:web-vip')).toMatchObject({ left: 0, before: 1, none: true });
    await whatif.add('web9');
    expect(whatif.result).toBeUndefined();
    expect(whatif.error).toMatch(/nothing named "web9" in the workspace .*\(did you mean "web1"\?\)/);
  });
});
