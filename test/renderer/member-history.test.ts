// A member's detail reads the page's one history of it (the lab store's): one lab.member frame
// per check result reaches the page, transitions included; only a window that looked at a lab
// already running asks the lab for the checks from before, once per member.
import { afterEach, describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../shared/api/contract';
import { mountWith, until, withRealLab } from '../helpers/renderer/mount';
import { httpMemberSite } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import MemberDetail from '../../renderer/src/lab/MemberDetail.vue';

describe('member history', () => {
  let site: Awaited<ReturnType<typeof httpMemberSite>>;
  afterEach(() => site.close());
  const t = withRealLab();

  /** The methods the page calls, from now on. */
  function calls(): string[] {
    const asked: string[] = [];
    const call = t.real.api.call;
    t.real.api.call = ((method, args) => (asked.push(method), call(method, args))) as typeof call;
    return asked;
  }

  it('a lab started here: one frame per result, the transition in it, and the detail asks main for nothing', async () => {
    site = await httpMemberSite(t.real.dataDir, { file: 'history.yaml', name: 'history-ui', member: '127.0.46.11' });
    const key = `g:web/w1:${site.port}`;
    const frames: { event: string; payload: unknown }[] = [];
    const off = t.real.services.events.subscribe((e) => void frames.push(e));
    await useWorkspace().open(site.file);
    const lab = useLab();
    const asked = calls();
    expect(await lab.start()).toBe(true);
    const w = mountWith(MemberDetail, t.real.api, t.pinia, { memberKey: key });
    await until(() => (lab.results.get(key)?.length ?? 0) >= 3, 8000, 'three checks of w1');
    off();

    const member = frames.filter((f) => f.event === 'lab.member').map((f) => f.payload as MemberEvent);
    const results = member.filter((e) => e.result).length;
    // Each result is one frame; the first one made the member available and says so in that frame.
    expect(member.filter((e) => !e.result)).toEqual([]);
    expect(member[0]!.change).toMatchObject({ key, from: 'unknown', to: 'available' });
    expect(frames.filter((f) => f.event === 'lab.event' && (f.payload as { type: string }).type === 'state')).toEqual([]);
    expect(results).toBeGreaterThanOrEqual(3);
    expect(lab.changes.filter((c) => c.key === key).map((c) => c.to)).toEqual(['available']);

    await until(() => w.findAll('[data-testid="check-log"] tbody tr').length >= 3, 3000, 'the detail lists the checks');
    expect(asked).not.toContain('lab.history');
    w.unmount();
  }, 30_000);

  it('a lab that ran before the window looked: its checks from before, asked once per member', async () => {
    site = await httpMemberSite(t.real.dataDir, { file: 'late.yaml', name: 'late-ui', member: '127.0.46.12' });
    const key = `g:web/w1:${site.port}`;
    // Started elsewhere (another window, serve --ui): four checks before this window looks.
    await t.real.api.call('lab.start', { path: site.file });
    for (let i = 0; i < 200 && t.real.services.lab.history(key).results.length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    const before = t.real.services.lab.history(key).results.map((r) => r.at);
    expect(before.length).toBeGreaterThanOrEqual(4);

    await useWorkspace().open(site.file);
    const lab = useLab();
    const asked = calls();
    await lab.refresh();
    // The session call brings each member's latest check only.
    expect(lab.results.get(key)!.length).toBeLessThan(before.length);
    const w = mountWith(MemberDetail, t.real.api, t.pinia, { memberKey: key });
    await until(() => before.every((at) => lab.results.get(key)!.some((r) => r.at === at)), 3000, 'the checks from before in the store');
    await until(() => w.findAll('[data-testid="check-log"] tbody tr').length >= before.length, 3000, 'the detail lists them');
    w.unmount();
    mountWith(MemberDetail, t.real.api, t.pinia, { memberKey: key }).unmount();
    expect(asked.filter((m) => m === 'lab.history')).toEqual(['lab.history']);
  }, 30_000);
});
