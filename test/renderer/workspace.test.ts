import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realApi, type RealApi } from './helpers/api';
import { settled, storeContext } from './helpers/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';

describe('workspace store', () => {
  let real: RealApi;
  beforeEach(() => {
    real = realApi();
    storeContext(real.api);
  });
  afterEach(async () => real.close());

  it('clearing the last timer removes healthTimers itself, not leaving healthTimers: {}', async () => {
    const ws = useWorkspace();
    expect(await ws.openDemo()).toBe(true);
    ws.set(['servers', 0, 'healthTimers', 'interval'], '5s');
    await settled();
    ws.set(['servers', 0, 'healthTimers', 'interval'], undefined);
    await settled();
    expect(ws.get(['servers', 0, 'healthTimers'])).toBeUndefined();
    expect(await ws.text()).not.toMatch(/healthTimers: \{\}/);
    // A mapping whose emptiness means something else is left alone by this rule.
    ws.set(['servers', 0, 'description'], 'x');
    ws.set(['servers', 0, 'description'], undefined);
    await settled();
    expect(ws.get(['servers', 0, 'name'])).toBeDefined();
  });

  it('opens the demo, edits keep comments through save, and reopening shows the edit', async () => {
    const ws = useWorkspace();
    expect(await ws.openDemo()).toBe(true);
    expect(ws.name).toBe('lab-site-a');
    expect(ws.dirty).toBe(false);

    ws.set(['targetSets', 0, 'servers', 0, 'weight'], 250);
    expect(ws.get(['targetSets', 0, 'servers', 0, 'weight'])).toBe(250);
    expect(ws.dirty).toBe(true);
    // While the edit is on its way to the engine it is still unsaved (the marker went off, and an
    // e2e Save that waited for it read the file before the write).
    const sending = ws.settle();
    expect(ws.dirty).toBe(true);
    await sending;
    expect(ws.dirty).toBe(true);
    expect(await ws.save()).toBe(true);
    expect(ws.dirty).toBe(false);

    const text = await readFile(ws.path, 'utf8');
    expect(text).toContain('weight: 250 }   # weight 0-65535 (default 100)');
    expect(text).toContain('# IPFE target sets: one public address spread over application servers');
    expect(await ws.open(ws.path)).toBe(true);
    expect(ws.get(['targetSets', 0, 'servers', 0, 'weight'])).toBe(250);
  });

  it('validates as you type with the shared rules, per field', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    ws.set(['targetSets', 0, 'servers', 1, 'weight'], 70000);
    await settled();
    const msgs = ws.problemsAt('targetSets.1.servers.1.weight');
    expect(msgs).toEqual([]);
    const here = ws.problemsAt('targetSets.0.servers.1.weight');
    expect(here).toHaveLength(1);
    expect(here[0]!.message).toMatch(/0 to 65535/);
    expect(here[0]!.line).toBeGreaterThan(1);
    expect(ws.byItem.get('targetSets.0')?.errors).toBe(1);
    ws.set(['targetSets', 0, 'servers', 1, 'weight'], 300);
    await settled();
    expect(ws.errors).toEqual([]);
  });

  it('undo and redo every edit; typing in one field is one step; undo back to the saved text is clean', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    const path = ['servers', 0, 'address'];
    for (const v of ['1', '12', '127.0.0.9']) ws.set(path, v);
    ws.set(['name'], 'site-b');
    await settled();
    expect(ws.canUndo).toBe(true);
    await ws.undo();
    expect(ws.get(['name'])).toBe('lab-site-a');
    expect(ws.get(path)).toBe('127.0.0.9');
    await ws.undo();
    expect(ws.get(path)).toBe('127.0.0.21');
    expect(ws.dirty).toBe(false);
    expect(ws.canUndo).toBe(false);
    await ws.redo();
    expect(ws.get(path)).toBe('127.0.0.9');
    expect(ws.dirty).toBe(true);
    await ws.redo();
    expect(ws.get(['name'])).toBe('site-b');
    expect(ws.canRedo).toBe(false);
  });

  it('adds and removes list items, and undo restores a removed item with its comment', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    const before = await ws.text();
    const at = ws.insert(['servers'], { name: 'web3', address: '127.0.0.23' });
    expect(at).toBe(4);
    ws.remove(['servers'], 3);
    expect((ws.raw.servers as unknown[]).length).toBe(4);
    await settled();
    expect(await ws.text()).not.toContain('kept in the config, out of service');
    await ws.undo();
    await ws.undo();
    expect(await ws.text()).toBe(before);
  });

  it('renames a server and every member that names it, in one undo step', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    ws.rename('server', 0, 'web-one');
    await settled();
    expect(ws.get(['groups', 0, 'members', 0, 'server'])).toBe('web-one');
    expect(ws.errors).toEqual([]);
    await ws.undo();
    expect(ws.get(['groups', 0, 'members', 0, 'server'])).toBe('web1');
    expect(ws.get(['servers', 0, 'name'])).toBe('web1');
  });

  it('normalises Fm + Fc to 100 on save, as an undoable step', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    ws.set(['targetSets', 0, 'leastLoad', 'mpsFactor'], 30);
    await ws.save();
    expect(ws.get(['targetSets', 0, 'leastLoad'])).toMatchObject({ mpsFactor: 38, connectionFactor: 62 });
    expect(ws.notice).toMatch(/normalised/);
    const text = await readFile(ws.path, 'utf8');
    expect(text).toMatch(/mpsFactor: 38 +# Fm/);
    expect(ws.lastSavedAt).toBeDefined();
    // That save's notice and time belong to that file: another one opens without them.
    const other = join(real.dataDir, 'site-b.yaml');
    await writeFile(other, text.replace(/^name: .*$/m, 'name: site-b'));
    expect(await ws.open(other)).toBe(true);
    expect(ws.name).toBe('site-b');
    expect(ws.notice).toBe('');
    expect(ws.lastSavedAt).toBeUndefined();
  });

  it('a push the appliance would refuse is a problem like the others, found after edits pause', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    // Serving everything, the demo's HAProxy would get the UDP service and target set 1 (least-load): no push.
    ws.set(['appliances', 0, 'include'], undefined);
    await settled();
    const p = await vi.waitFor(() => {
      const found = ws.errors.find((e) => e.path === 'appliances[0].driver');
      if (!found) throw new Error('no push problem yet');
      return found;
    }, { timeout: 5000, interval: 20 });
    expect(p?.message).toBe("a push to lab-haproxy would be refused: service dns-vip: HAProxy does not load-balance UDP; target set 1: HAProxy has no IPFE least-load (it needs load reports from the servers); use algorithm hash");
    expect(ws.byItem.get('appliances.0')?.errors).toBe(1);
    // Undone: gone again.
    await ws.undo();
    await settled();
    await vi.waitFor(() => expect(ws.errors).toEqual([]), { timeout: 5000, interval: 20 });
  });

  it('reports a file changed on disk, and a save over it as a conflict in words', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    // The clock must move on: a write within 1 ms of what was read counts as the same file.
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(ws.path, (await readFile(ws.path, 'utf8')).replace('lab-site-a', 'other'));
    ws.set(['description'], 'mine');
    expect(await ws.save()).toBe(false);
    expect(ws.conflict).toMatch(/changed on disk/);
    expect(ws.conflict).not.toMatch(/\n|at .*\.ts/);
    expect(await ws.overwrite()).toBe(true);
    expect(await readFile(ws.path, 'utf8')).toContain('description: mine');
  });

  it('follows a file changed on disk when nothing is unsaved, and asks when something is', async () => {
    const ws = useWorkspace();
    await ws.openDemo();
    const write = async (text: string) => {
      await writeFile(ws.path, text);
      // What main does after its own writes (and the host-key pinning): tell every window.
      const { mtimeMs } = await import('node:fs').then((fs) => fs.promises.stat(ws.path));
      real.services.events.emit('workspace.changed', { path: ws.path, mtimeMs });
    };
    const text = await readFile(ws.path, 'utf8');
    // The clock must move on between writes: within 1 ms counts as the same file.
    await new Promise((r) => setTimeout(r, 20));
    await write(text.replace('name: lab-site-a', 'name: renamed-elsewhere'));
    await vi.waitFor(() => expect(ws.name).toBe('renamed-elsewhere'), { timeout: 2000, interval: 10 });
    expect(ws.notice).toMatch(/reloaded/);
    ws.set(['description'], 'unsaved edit');
    await new Promise((r) => setTimeout(r, 20));
    await write(text);
    await vi.waitFor(() => expect(ws.externalChange).toBeDefined(), { timeout: 2000, interval: 10 });
    expect(ws.get(['description'])).toBe('unsaved edit');
  });

  it('shows a file with YAML errors read-only, with the problem at its line', async () => {
    const ws = useWorkspace();
    const file = join(real.dataDir, 'broken.yaml');
    await writeFile(file, 'lbdesk: 1\nname: x\nservers: [\n');
    expect(await ws.open(file)).toBe(true);
    expect(ws.broken).toBe(true);
    expect(ws.errors[0]!.line).toBeGreaterThan(0);
    ws.set(['name'], 'y');
    expect(ws.message).toMatch(/syntax errors/);
  });

  it('says in one sentence when a file cannot be opened', async () => {
    const ws = useWorkspace();
    expect(await ws.open(join(real.dataDir, 'missing.yaml'))).toBe(false);
    expect(ws.message).toMatch(/^Could not open .*missing\.yaml: .+\.$/);
  });
});
