// A fault from the window: on a member of the running lab (the real lab behind the real API),
// shown on the member, taken off with one click.
import { afterEach, describe, expect, it } from 'vitest';
import { mountWith, until, withRealLab } from '../helpers/renderer/mount';
import { httpMemberSite } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import MemberDetail from '../../renderer/src/lab/MemberDetail.vue';

describe('member fault', () => {
  let site: Awaited<ReturnType<typeof httpMemberSite>>;
  // After hooks run last-registered first: the backend closes after the lab has stopped.
  afterEach(() => site.close());
  const t = withRealLab();

  it('applies a fault on a member of the running lab, shows it on the member, and clears it with one click', async () => {
    site = await httpMemberSite(t.real.dataDir, { file: 'faults.yaml', name: 'fault-ui', member: '127.0.43.11', vip: '127.0.43.10' });
    const { file, port } = site;
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const key = `g:web/w1:${port}`;
    const w = mountWith(MemberDetail, t.real.api, t.pinia, { memberKey: key });
    await until(() => lab.members.get(key)?.state === 'available', 8000, 'w1 available');
    await until(() => w.find('[data-testid="member-faults"]').exists(), 3000, 'the fault controls');
    expect(w.find('[data-testid="member-fault"]').exists()).toBe(false);
    // An HTTP member gets the TCP faults, not the UDP ones.
    const kinds = w.findAll('[data-testid="member-faults"] option').map((o) => o.attributes('value'));
    expect(kinds).toEqual(['delay', 'refuse', 'blackhole', 'reset-after', 'http-status', 'flap']);

    await w.find('[data-testid="member-faults"] select').setValue('http-status');
    expect((w.find('[data-testid="member-faults"] input').element as HTMLInputElement).value).toBe('503');
    await w.find('[data-testid="member-faults"] form').trigger('submit');
    await until(() => w.find('[data-testid="member-fault"]').exists(), 3000, 'the fault shown');
    expect(w.find('[data-testid="member-fault"]').text()).toBe('fault: http-status 503');
    await until(() => lab.members.get(key)?.state === 'unavailable', 8000, 'w1 taken out by the 503');

    await w.find('button[data-action="clear-fault"]').trigger('click');
    await until(() => !w.find('[data-testid="member-fault"]').exists(), 3000, 'the fault gone');
    await until(() => lab.members.get(key)?.state === 'available', 8000, 'w1 back');
    w.unmount();
  }, 30_000);
});
