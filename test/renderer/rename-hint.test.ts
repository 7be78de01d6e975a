// After a rename, a reference left on the old name is pointed at the renamed item's new name —
// not at whichever other item is spelt most like the old name.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { settled, storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';

const SITE = [
  'lbdesk: 1',
  'name: site-e',
  'servers:',
  '  - { name: web-a, address: 192.0.2.11 }',
  '  - { name: web-b, address: 192.0.2.12 }',
  'groups:',
  '  - name: web',
  '    members:',
  '      - { server: web-a, port: 80 }',
  '      - { server: web-b, port: 80 }',
  'services:',
  '  - { name: www, address: 192.0.2.80, port: 80, group: web }',
  '',
].join('\n');

describe('"did you mean" after a rename', () => {
  let real: RealApi;
  beforeEach(() => {
    real = realApi();
    storeContext(real.api);
  });
  afterEach(async () => real.close());

  async function open(): Promise<ReturnType<typeof useWorkspace>> {
    const file = join(real.dataDir, 'site-e.yaml');
    await writeFile(file, SITE);
    const workspaceStore = useWorkspace();
    expect(await workspaceStore.open(file)).toBe(true);
    return workspaceStore;
  }
  /** Typing a name into the name field, one keystroke at a time, then leaving the field. */
  async function type(workspaceStore: ReturnType<typeof useWorkspace>, kind: 'server' | 'group', index: number, name: string): Promise<void> {
    for (let i = 1; i <= name.length; i++) workspaceStore.rename(kind, index, name.slice(0, i));
    workspaceStore.endRename();
    await settled();
  }
  const messageAt = (workspaceStore: ReturnType<typeof useWorkspace>, key: string) => workspaceStore.problemsAt(key).map((p) => p.message).join(' | ');

  it('a member left on a server’s old name is pointed at its new name, not at a namesake of the old one', async () => {
    const workspaceStore = await open();
    // web-a typed over with web-b (taken: its member waits on "web-a"), then on to app-1.
    workspaceStore.rename('server', 0, 'web-b');
    workspaceStore.endRename();
    await type(workspaceStore, 'server', 0, 'app-1');
    expect(workspaceStore.get(['servers', 0, 'name'])).toBe('app-1');
    expect(workspaceStore.get(['groups', 0, 'members', 0, 'server'])).toBe('web-a');
    expect(messageAt(workspaceStore, 'groups.0.members.0.server')).toBe('unknown server "web-a" (did you mean "app-1"? "web-a" was renamed to "app-1")');
    // The other web-b was never renamed: its member is fine, and nothing points at app-1 for it.
    expect(workspaceStore.problemsAt('groups.0.members.1.server')).toEqual([]);
  });

  it('a service left on a group’s old name is pointed at the group, after the reference was changed by hand', async () => {
    const workspaceStore = await open();
    // The service is moved off the group, the group renamed, the service put back on its old name.
    workspaceStore.set(['services', 0, 'group'], 'other');
    await type(workspaceStore, 'group', 0, 'frontend');
    workspaceStore.set(['services', 0, 'group'], 'web');
    await settled();
    expect(messageAt(workspaceStore, 'services.0.group')).toBe('unknown group "web" (did you mean "frontend"? "web" was renamed to "frontend")');
    // Renamed again: the suggestion follows to the latest name.
    await type(workspaceStore, 'group', 0, 'edge');
    expect(messageAt(workspaceStore, 'services.0.group')).toBe('unknown group "web" (did you mean "edge"? "web" was renamed to "edge")');
  });
});
