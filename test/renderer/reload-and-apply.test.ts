// A browser reload (or a second tab) comes back to the workspace the user was working on, not
// the one the app started with; and applying another file than the one the lab runs asks first.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { storeContext } from '../helpers/renderer/mount';
import { useApp } from '../../renderer/src/stores/app';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';

describe('reload and apply', () => {
  let real: RealApi;
  beforeEach(() => {
    // As `serve seed.yaml --ui`: the host names the file to start on.
    real = realApi({ startFile: 'seed.yaml' });
    writeFileSync(join(real.dataDir, 'seed.yaml'), 'lbdesk: 1\nname: seed\n');
    sessionStorage.clear();
  });
  afterEach(async () => real.close());

  it('a reload reopens the file this tab had open', async () => {
    const site = join(real.dataDir, 'site.yaml');
    writeFileSync(site, 'lbdesk: 1\nname: site\n');
    storeContext(real.api);
    await useApp().init();
    expect(useWorkspace().path).toBe(join(real.dataDir, 'seed.yaml'));
    expect(await useApp().open(site)).toBe(true);
    await flushPromises();
    // The page reloads: new stores, same tab.
    storeContext(real.api);
    await useApp().init();
    expect(useWorkspace().path).toBe(site);
  });

  it('applying a workspace other than the one the lab runs asks first; cancel changes nothing', async () => {
    storeContext(real.api);
    const app = useApp();
    await app.init();
    const lab = useLab();
    const calls: string[] = [];
    const call = real.api.call;
    real.api.call = (async (method: string, args: unknown) => {
      calls.push(method);
      return (call as (m: string, a: unknown) => Promise<unknown>)(method, args);
    }) as typeof real.api.call;
    lab.setStatus({ running: true, path: '/elsewhere/other.yaml', listening: [], members: [], notes: [] });
    expect(lab.runsOther).toBe(true);
    const applied = app.applyToLab();
    await flushPromises();
    expect(app.question?.title).toBe('Run this workspace instead?');
    expect(app.question?.text).toMatch(/^The lab runs other\.yaml\. Applying seed\.yaml closes its listeners and runs this workspace instead\.$/);
    app.question!.resolve('cancel');
    expect(await applied).toBe(false);
    expect(calls).not.toContain('lab.apply');
  });
});
