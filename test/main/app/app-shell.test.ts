// What the desktop shell adds to the shared handlers: recent documents follow opened and
// saved workspaces, app.info carries the launch file (once) and the shell's warnings.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callDirect } from '../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir('hooks')));
afterEach(() => tmp.cleanup());

describe('the desktop shell behind the app area', () => {
  it('reports every opened, saved and demo workspace, and nothing refused', async () => {
    const opened: string[] = [];
    let launch: string | undefined = '/home/me/from-the-os.yaml';
    const { handlers } = appServices(join(tmp.dir, 'data'), {
      shell: {
        opened: (p) => opened.push(p),
        takeLaunchFile: () => {
          const f = launch;
          launch = undefined;
          return f;
        },
        warnings: () => ['secrets are kept for this session only'],
      },
    });
    const sites = join(tmp.dir, 'sites');
    mkdirSync(sites);
    writeFileSync(join(sites, 'a.yaml'), 'lbdesk: 1\n');
    await callDirect(handlers, 'workspace.read', { path: join(sites, 'a.yaml') });
    await callDirect(handlers, 'workspace.write', { path: join(sites, 'b.yml'), text: 'lbdesk: 1\n' });
    const demo = await callDirect(handlers, 'workspace.demo', {});
    await expect(callDirect(handlers, 'workspace.read', { path: '/etc/passwd' })).rejects.toThrow();
    expect(opened).toEqual([join(sites, 'a.yaml'), join(sites, 'b.yml'), demo.path]);

    const first = await callDirect(handlers, 'app.info', {});
    expect(first.startPath).toBe('/home/me/from-the-os.yaml');
    expect(first.warnings).toEqual(['secrets are kept for this session only']);
    const second = await callDirect(handlers, 'app.info', {});
    expect(second.startPath).toBe(demo.path); // the most recent workspace
    expect((await callDirect(handlers, 'workspace.recent', {}))[0]).toBe(demo.path);
  });

  it('adds no warnings field when there is nothing to warn about', async () => {
    const { handlers } = appServices(join(tmp.dir, 'data'));
    expect(await callDirect(handlers, 'app.info', {})).not.toHaveProperty('warnings');
  });
});
