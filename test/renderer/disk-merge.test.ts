// A colleague saves the open workspace while edits here are unsaved: the store merges what does not
// conflict (comments kept byte for byte), holds conflicts for a choice, and the chosen text is
// what a save writes. The real services in-process, a real file, the event main sends.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { settled, storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';

const SITE = [
  '# site c: kept in git, reviewed by the team',
  'lbdesk: 1',
  'name: site-c',
  '',
  'servers:                       # rack 4',
  '  - name: web1',
  '    address: 192.0.2.11        # primary',
  '  - name: web2',
  '    address: 192.0.2.12',
  '  - name: web3',
  '    address: 192.0.2.13        # spare',
  '',
].join('\n');

describe('merging with the file on disk', () => {
  let real: RealApi;
  let file: string;
  beforeEach(async () => {
    real = realApi();
    storeContext(real.api);
    file = join(real.dataDir, 'site-c.yaml');
    await writeFile(file, SITE);
  });
  afterEach(async () => real.close());

  /** A colleague's save, and the event main's watch sends for it. */
  async function theirs(text: string): Promise<void> {
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(file, text);
    real.services.events.send('workspace.changed', { path: file, mtimeMs: (await stat(file)).mtimeMs });
  }

  it('another server edited on disk: merged with mine, comments kept, nothing asked; the save writes both', async () => {
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.open(file)).toBe(true);
    workspaceStore.set(['servers', 0, 'address'], '192.0.2.21');
    await settled();
    await theirs(SITE.replace('    address: 192.0.2.13        # spare', '    address: 192.0.2.33        # spare, moved'));
    await vi.waitFor(() => expect(workspaceStore.lastMerge).toBeDefined(), { timeout: 3000, interval: 10 });
    expect(workspaceStore.merge).toBeUndefined();
    expect(workspaceStore.lastMerge!.said).toMatch(/1 change from there merged with your unsaved edits, no conflicts/);
    expect(workspaceStore.lastMerge!.where.filter(Boolean)).toEqual(['server web1 address', 'server web3 address']);
    expect(workspaceStore.get(['servers', 2, 'address'])).toBe('192.0.2.33');
    expect(workspaceStore.dirty).toBe(true);
    expect(await workspaceStore.save()).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(
      SITE.replace('192.0.2.11        # primary', '192.0.2.21        # primary').replace('    address: 192.0.2.13        # spare', '    address: 192.0.2.33        # spare, moved'),
    );
    // The merge is one undo step over mine.
    expect(workspaceStore.undoLabel).toBe('merge the file on disk');
  });

  it('the same field edited on both sides: held with both values; theirs chosen is what is saved', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.open(file);
    workspaceStore.set(['servers', 1, 'address'], '192.0.2.42');
    workspaceStore.set(['name'], 'site-c-mine');
    await settled();
    await theirs(SITE.replace('    address: 192.0.2.12', '    address: 192.0.2.52    # theirs'));
    await vi.waitFor(() => expect(workspaceStore.merge).toBeDefined(), { timeout: 3000, interval: 10 });
    const m = workspaceStore.merge!;
    expect(m.result.conflicts).toBe(1);
    const c = m.result.chunks.find((x) => x.kind === 'conflict')!;
    expect(c).toMatchObject({ mine: ['    address: 192.0.2.42'], theirs: ['    address: 192.0.2.52    # theirs'] });
    expect(m.where[m.result.chunks.indexOf(c)]).toBe('server web2 address');
    expect(m.lost.dropped).toEqual(['    address: 192.0.2.52    # theirs']);
    // Nothing changes until every conflict is chosen.
    expect(await workspaceStore.applyMerge()).toBe(false);
    expect(workspaceStore.get(['servers', 1, 'address'])).toBe('192.0.2.42');
    workspaceStore.choose(0, 'theirs');
    expect(await workspaceStore.applyMerge()).toBe(true);
    expect(workspaceStore.merge).toBeUndefined();
    expect(workspaceStore.get(['servers', 1, 'address'])).toBe('192.0.2.52');
    expect(workspaceStore.name).toBe('site-c-mine');
    expect(await workspaceStore.save()).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(SITE.replace('name: site-c', 'name: site-c-mine').replace('    address: 192.0.2.12', '    address: 192.0.2.52    # theirs'));
  });

  it('edits typed while the conflict waits are kept; one that moves the conflict asks again', async () => {
    const workspaceStore = useWorkspace();
    await workspaceStore.open(file);
    workspaceStore.set(['servers', 1, 'address'], '192.0.2.42');
    await settled();
    await theirs(SITE.replace('    address: 192.0.2.12', '    address: 192.0.2.52'));
    await vi.waitFor(() => expect(workspaceStore.merge).toBeDefined(), { timeout: 3000, interval: 10 });
    workspaceStore.choose(0, 'mine');
    workspaceStore.set(['servers', 1, 'address'], '192.0.2.43');
    expect(await workspaceStore.applyMerge()).toBe(false);
    expect(workspaceStore.message).toMatch(/choose again/);
    workspaceStore.set(['servers', 0, 'name'], 'web1a');
    workspaceStore.choose(0, 'mine');
    expect(await workspaceStore.applyMerge()).toBe(true);
    expect(workspaceStore.get(['servers', 1, 'address'])).toBe('192.0.2.43');
    expect(workspaceStore.get(['servers', 0, 'name'])).toBe('web1a');
    expect(workspaceStore.lastMerge!.said).toMatch(/0 of its changes taken, 1 of your conflicting edit kept over theirs/);
  });
});
