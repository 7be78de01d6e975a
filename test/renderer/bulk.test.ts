// Many rows at once: the selection rules (Shift range, Ctrl toggle, Ctrl+A), and bulk actions on
// the real workspace store, each one undo step and one redo step.
import { describe, expect, it } from 'vitest';
import { all, inOrder, keep, pick, single } from '../../renderer/src/lib/selection';
import { membersBulk, parseWeightChange, serversBulk } from '../../renderer/src/lib/bulk';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { settled, withDemo } from '../helpers/renderer/mount';

describe('selection', () => {
  const order = [5, 3, 9, 1, 7]; // the order shown (sorted)
  it('picks one, toggles with Ctrl, takes the shown range from the anchor with Shift', () => {
    let s = pick(single<number>(undefined), order, 3);
    expect([...s.keys]).toEqual([3]);
    s = pick(s, order, 1, { shift: true });
    expect(inOrder(s, order)).toEqual([3, 9, 1]);
    s = pick(s, order, 5, { shift: true }); // the anchor stays at 3
    expect(inOrder(s, order)).toEqual([5, 3]);
    s = pick(s, order, 7, { toggle: true });
    expect(inOrder(s, order)).toEqual([5, 3, 7]);
    s = pick(s, order, 3, { toggle: true });
    expect(inOrder(s, order)).toEqual([5, 7]);
    s = pick(s, order, 1, { shift: true }); // Ctrl+click moved the anchor to 3
    expect(inOrder(s, order)).toEqual([3, 9, 1]);
    expect(pick(s, order, 9).keys).toEqual(new Set([9]));
  });
  it('Ctrl+A takes every row shown; rows gone drop out', () => {
    const s = all(single(9), order);
    expect(s.keys.size).toBe(5);
    expect(s.cursor).toBe(9);
    expect([...keep(s, (k) => k < 6).keys].sort()).toEqual([1, 3, 5]);
  });
});

describe('parseWeightChange', () => {
  it('reads a weight or a percentage and refuses the rest with the range', () => {
    expect(parseWeightChange('150')).toEqual({ mode: 'set', value: 150 });
    expect(parseWeightChange('+10%')).toEqual({ mode: 'percent', value: 10 });
    expect(parseWeightChange(' - 25 % ')).toEqual({ mode: 'percent', value: -25 });
    expect(parseWeightChange('70000')).toEqual({ error: 'weight 70000 is out of range (0-65535)' });
    expect(parseWeightChange('-5')).toEqual({ error: '"-5" is not a weight (0-65535) or a change like +10% or -25%' });
    expect(parseWeightChange('abc')).toHaveProperty('error');
  });
});

describe('bulk actions on the workspace', () => {
  withDemo();
  const servers = () => useWorkspace().raw.servers as Record<string, unknown>[];
  const members = (g: number) => (useWorkspace().raw.groups as { members: Record<string, unknown>[] }[])[g]!.members;

  it('disables and enables servers as one undo step and one redo step', async () => {
    const workspaceStore = useWorkspace();
    const r = serversBulk(workspaceStore.raw, [0, 1, 3], { kind: 'disable' });
    if ('error' in r) throw new Error(r.error);
    expect(r.label).toBe('disable 3 servers');
    expect(r.ops).toHaveLength(2); // dns1 is disabled already
    workspaceStore.transact(r.label, r.ops);
    await settled();
    expect(servers().map((s) => s.enabled)).toEqual([false, false, undefined, false]);
    expect(workspaceStore.undoLabel).toBe('disable 3 servers');
    await workspaceStore.undo();
    expect(servers().map((s) => s.enabled)).toEqual([undefined, undefined, undefined, false]);
    await workspaceStore.redo();
    expect(servers().map((s) => s.enabled)).toEqual([false, false, undefined, false]);
    const on = serversBulk(workspaceStore.raw, [0, 1, 2, 3], { kind: 'enable' });
    if ('error' in on) throw new Error(on.error);
    workspaceStore.transact(on.label, on.ops);
    await settled();
    // Enabled is the default: no `enabled: true` written.
    expect(servers().map((s) => s.enabled)).toEqual([undefined, undefined, undefined, undefined]);
    const text = await workspaceStore.text();
    expect(text.slice(text.indexOf('\nservers:'), text.indexOf('\ngroups:'))).not.toMatch(/enabled:/);
  });

  it('drains a server in every group it is in, and sets or changes member weights in one step', async () => {
    const workspaceStore = useWorkspace();
    const d = serversBulk(workspaceStore.raw, [0, 2], { kind: 'drain' });
    if ('error' in d) throw new Error(d.error);
    workspaceStore.transact(d.label, d.ops);
    await settled();
    expect(members(0).map((m) => m.weight)).toEqual([0, 200]);
    expect(members(1).map((m) => m.weight)).toEqual([0]); // dir1 had the default weight
    await workspaceStore.undo();
    expect(members(0).map((m) => m.weight)).toEqual([100, 200]);
    expect(members(1).map((m) => m.weight)).toEqual([undefined]);

    const up = membersBulk(workspaceStore.raw, 0, [0, 1], { kind: 'weight', change: { mode: 'percent', value: 25 } });
    if ('error' in up) throw new Error(up.error);
    expect(up.label).toBe('change weight +25 % on 2 members of group web');
    workspaceStore.transact(up.label, up.ops);
    await settled();
    expect(members(0).map((m) => m.weight)).toEqual([125, 250]);
    const set = membersBulk(workspaceStore.raw, 0, [0, 1], { kind: 'weight', change: { mode: 'set', value: 7 } });
    if ('error' in set) throw new Error(set.error);
    workspaceStore.transact(set.label, set.ops);
    await settled();
    expect(members(0).map((m) => m.weight)).toEqual([7, 7]);
    await workspaceStore.undo();
    expect(members(0).map((m) => m.weight)).toEqual([125, 250]);
    await workspaceStore.undo();
    expect(members(0).map((m) => m.weight)).toEqual([100, 200]);
    await workspaceStore.redo();
    expect(members(0).map((m) => m.weight)).toEqual([125, 250]);
  });

  it('refuses a change that leaves the range for any member, changing nothing', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['groups', 0, 'members', 1, 'weight'], 60000);
    await settled();
    const r = membersBulk(workspaceStore.raw, 0, [0, 1], { kind: 'weight', change: { mode: 'percent', value: 10 } });
    expect(r).toEqual({ error: 'web2 in group web: weight 60000 +10 % is 66000, outside 0-65535; nothing was changed' });
    expect(members(0).map((m) => m.weight)).toEqual([100, 60000]);
    workspaceStore.insert(['servers'], { name: 'loose', address: '127.0.0.99' });
    await settled();
    expect(serversBulk(workspaceStore.raw, [4], { kind: 'drain' })).toEqual({ error: 'this server is in no group: weights belong to group members' });
  });

  it('enables and disables the servers of picked members', async () => {
    const workspaceStore = useWorkspace();
    const r = membersBulk(workspaceStore.raw, 0, [1], { kind: 'disable' });
    if ('error' in r) throw new Error(r.error);
    expect(r.label).toBe('disable the servers of 1 member of group web');
    workspaceStore.transact(r.label, r.ops);
    await settled();
    expect(servers().map((s) => s.enabled)).toEqual([undefined, false, undefined, false]);
  });
});
