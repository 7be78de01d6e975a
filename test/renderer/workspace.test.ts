import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { settled, storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';

describe('workspace store', () => {
  let real: RealApi;
  beforeEach(() => {
    real = realApi();
    storeContext(real.api);
  });
  afterEach(async () => real.close());

  it('clearing the last timer removes healthTimers itself, not leaving healthTimers: {}', async () => {
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.openDemo()).toBe(true);
    workspaceStore.set(['servers', 0, 'healthTimers', 'interval'], '5s');
    await settled();
    workspaceStore.set(['servers', 0, 'healthTimers', 'interval'], undefined);
    await settled();
    expect(workspaceStore.get(['servers', 0, 'healthTimers'])).toBeUndefined();
    expect(await workspaceStore.text()).not.toMatch(/healthTimers: \{\}/);
    // A mapping whose emptiness means something else is left alone by this rule.
    workspaceStore.set(['servers', 0, 'description'], 'x');
    workspaceStore.set(['servers', 0, 'description'], undefined);
    await settled();
    expect(workspaceStore.get(['servers', 0, 'name'])).toBeDefined();
  });

  it('opens the demo, edits keep comments through save, and reopening shows the edit', async () => {
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.openDemo()).toBe(true);
    expect(workspaceStore.name).toBe('lab-site-a');
    expect(workspaceStore.dirty).toBe(false);

    workspaceStore.set(['targetSets', 0, 'servers', 0, 'weight'], 250);
    expect(workspaceStore.get(['targetSets', 0, 'servers', 0, 'weight'])).toBe(250);
    expect(workspaceStore.dirty).toBe(true);
    // While the edit is on its way to the engine it is still unsaved (the marker went off, and an
    // e2e Save that waited for it read the file before the write).
    const sending = workspaceStore.settle();
    expect(workspaceStore.dirty).toBe(true);
    await sending;
    expect(workspaceStore.dirty).toBe(true);
    expect(await workspaceStore.save()).toBe(true);
    expect(workspaceStore.dirty).toBe(false);

    const text = await readFile(workspaceStore.path, 'utf8');
    expect(text).toContain('weight: 250 }   # weight 0-65535 (default 100)');
    expect(text).toContain('# IPFE target sets: one public address spread over application servers');
    expect(await workspaceStore.open(workspaceStore.path)).toBe(true);
    expect(workspaceStore.get(['targetSets', 0, 'servers', 0, 'weight'])).toBe(250);
  });

  it('a call runs on the file as saved, or with the text on screen while it has unsaved edits', async () => {
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.openDemo()).toBe(true);
    expect(await workspaceStore.source()).toEqual({ path: workspaceStore.path });
    workspaceStore.set(['targetSets', 0, 'servers', 0, 'weight'], 251);
    // The edit is in the text even before it reached the engine.
    const src = await workspaceStore.source();
    expect(src.path).toBe(workspaceStore.path);
    expect(src.text).toContain('weight: 251');
    expect(await workspaceStore.save()).toBe(true);
    expect(await workspaceStore.source()).toEqual({ path: workspaceStore.path });
  });

  it('validates as you type with the shared rules, per field', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    workspaceStore.set(['targetSets', 0, 'servers', 1, 'weight'], 70000);
    await settled();
    const msgs = workspaceStore.problemsAt('targetSets.1.servers.1.weight');
    expect(msgs).toEqual([]);
    const here = workspaceStore.problemsAt('targetSets.0.servers.1.weight');
    expect(here).toHaveLength(1);
    expect(here[0]!.message).toMatch(/0 to 65535/);
    expect(here[0]!.line).toBeGreaterThan(1);
    expect(workspaceStore.byItem.get('targetSets.0')?.errors).toBe(1);
    workspaceStore.set(['targetSets', 0, 'servers', 1, 'weight'], 300);
    await settled();
    expect(workspaceStore.errors).toEqual([]);
  });

  it('undo and redo every edit; typing in one field is one step; undo back to the saved text is clean', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    const path = ['servers', 0, 'address'];
    for (const v of ['1', '12', '127.0.0.9']) workspaceStore.set(path, v);
    workspaceStore.set(['name'], 'site-b');
    await settled();
    expect(workspaceStore.canUndo).toBe(true);
    await workspaceStore.undo();
    expect(workspaceStore.get(['name'])).toBe('lab-site-a');
    expect(workspaceStore.get(path)).toBe('127.0.0.9');
    await workspaceStore.undo();
    expect(workspaceStore.get(path)).toBe('127.0.0.21');
    expect(workspaceStore.dirty).toBe(false);
    expect(workspaceStore.canUndo).toBe(false);
    await workspaceStore.redo();
    expect(workspaceStore.get(path)).toBe('127.0.0.9');
    expect(workspaceStore.dirty).toBe(true);
    await workspaceStore.redo();
    expect(workspaceStore.get(['name'])).toBe('site-b');
    expect(workspaceStore.canRedo).toBe(false);
  });

  it('adds and removes list items, and undo restores a removed item with its comment', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    const before = await workspaceStore.text();
    const at = workspaceStore.insert(['servers'], { name: 'web3', address: '127.0.0.23' });
    expect(at).toBe(4);
    workspaceStore.remove(['servers'], 3);
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(4);
    await settled();
    expect(await workspaceStore.text()).not.toContain('kept in the config, out of service');
    await workspaceStore.undo();
    await workspaceStore.undo();
    expect(await workspaceStore.text()).toBe(before);
  });

  it('renames a server and every member that names it, in one undo step', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    workspaceStore.rename('server', 0, 'web-one');
    await settled();
    expect(workspaceStore.get(['groups', 0, 'members', 0, 'server'])).toBe('web-one');
    expect(workspaceStore.errors).toEqual([]);
    await workspaceStore.undo();
    expect(workspaceStore.get(['groups', 0, 'members', 0, 'server'])).toBe('web1');
    expect(workspaceStore.get(['servers', 0, 'name'])).toBe('web1');
  });

  it('normalises Fm + Fc to 100 on save, as an undoable step', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    workspaceStore.set(['targetSets', 0, 'leastLoad', 'mpsFactor'], 30);
    await workspaceStore.save();
    expect(workspaceStore.get(['targetSets', 0, 'leastLoad'])).toMatchObject({ mpsFactor: 38, connectionFactor: 62 });
    expect(workspaceStore.notice).toMatch(/normalised/);
    const text = await readFile(workspaceStore.path, 'utf8');
    expect(text).toMatch(/mpsFactor: 38 +# Fm/);
    expect(workspaceStore.lastSavedAt).toBeDefined();
    // That save's notice and time belong to that file: another one opens without them.
    const other = join(real.dataDir, 'site-b.yaml');
    await writeFile(other, text.replace(/^name: .*$/m, 'name: site-b'));
    expect(await workspaceStore.open(other)).toBe(true);
    expect(workspaceStore.name).toBe('site-b');
    expect(workspaceStore.notice).toBe('');
    expect(workspaceStore.lastSavedAt).toBeUndefined();
  });

  it('a push the appliance would refuse is a problem like the others, found after edits pause', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    // Serving everything, the demo's HAProxy would get the UDP service and target set 1 (least-load): no push.
    workspaceStore.set(['appliances', 0, 'include'], undefined);
    await settled();
    const p = await vi.waitFor(() => {
      const found = workspaceStore.errors.find((e) => e.path === 'appliances[0].driver');
      if (!found) throw new Error('no push problem yet');
      return found;
    }, { timeout: 5000, interval: 20 });
    expect(p?.message).toBe("a push to lab-haproxy would be refused: service dns-vip: HAProxy does not load-balance UDP; target set 1: HAProxy has no IPFE least-load (it needs load reports from the servers); use algorithm hash");
    expect(workspaceStore.byItem.get('appliances.0')?.errors).toBe(1);
    // Undone: gone again.
    await workspaceStore.undo();
    await settled();
    await vi.waitFor(() => expect(workspaceStore.errors).toEqual([]), { timeout: 5000, interval: 20 });
  });

  it('reports a file changed on disk, and a save over it as a conflict in words', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    // The clock must move on: a write within 1 ms of what was read counts as the same file.
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(workspaceStore.path, (await readFile(workspaceStore.path, 'utf8')).replace('lab-site-a', 'other'));
    workspaceStore.set(['description'], 'mine');
    expect(await workspaceStore.save()).toBe(false);
    expect(workspaceStore.conflict).toMatch(/changed on disk/);
    expect(workspaceStore.conflict).not.toMatch(/\n|at .*\.ts/);
    expect(await workspaceStore.overwrite()).toBe(true);
    expect(await readFile(workspaceStore.path, 'utf8')).toContain('description: mine');
  });

  it('follows a file changed on disk when nothing is unsaved, and merges with what is', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    const write = async (text: string) => {
      await writeFile(workspaceStore.path, text);
      // What main does after its own writes (and the host-key pinning): tell every window.
      const { mtimeMs } = await import('node:fs').then((fs) => fs.promises.stat(workspaceStore.path));
      real.services.events.send('workspace.changed', { path: workspaceStore.path, mtimeMs });
    };
    const text = await readFile(workspaceStore.path, 'utf8');
    // The clock must move on between writes: within 1 ms counts as the same file.
    await new Promise((r) => setTimeout(r, 20));
    await write(text.replace('name: lab-site-a', 'name: renamed-elsewhere'));
    await vi.waitFor(() => expect(workspaceStore.name).toBe('renamed-elsewhere'), { timeout: 2000, interval: 10 });
    expect(workspaceStore.notice).toMatch(/reloaded/);
    workspaceStore.set(['description'], 'unsaved edit');
    await new Promise((r) => setTimeout(r, 20));
    await write(text);
    // Another line than the edit: merged with it, the edit kept and still unsaved.
    await vi.waitFor(() => expect(workspaceStore.name).toBe('lab-site-a'), { timeout: 2000, interval: 10 });
    expect(workspaceStore.get(['description'])).toBe('unsaved edit');
    expect(workspaceStore.dirty).toBe(true);
  });

  it('shows a file with YAML errors read-only, with the problem at its line', async () => {
    const workspaceStore = useWorkspace();
    const file = join(real.dataDir, 'broken.yaml');
    await writeFile(file, 'lbdesk: 1\nname: x\nservers: [\n');
    expect(await workspaceStore.open(file)).toBe(true);
    expect(workspaceStore.broken).toBe(true);
    expect(workspaceStore.errors[0]!.line).toBeGreaterThan(0);
    workspaceStore.set(['name'], 'y');
    expect(workspaceStore.message).toMatch(/syntax errors/);
  });

  it('says in one sentence when a file cannot be opened', async () => {
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.open(join(real.dataDir, 'missing.yaml'))).toBe(false);
    expect(workspaceStore.message).toMatch(/^Could not open .*missing\.yaml: .+\.$/);
  });
});
