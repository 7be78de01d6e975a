// `lab.whatif` through the contract's handler table, as the window calls it (unsaved text too).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { callDirect } from '../../../main/services/api/dispatch';
import { browserShell } from '../../../main/services/api/shell';
import { createAppServices } from '../../../main/services/api/wiring';
import { MemorySecretStore } from '../../../main/services/secrets/memory';
import { ROOT } from '../../helpers/cli';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-whatif-api-'));
const { handlers } = createAppServices({ shell: browserShell(), dataDir: dir, resourcesDir: ROOT, secrets: new MemorySecretStore() });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DEMO = resolve(ROOT, 'assets/demo/lab-site-a.yaml');

describe('lab.whatif', () => {
  it('answers for the file, and for the window\'s unsaved text', async () => {
    const onDisk = await callDirect(handlers, 'lab.whatif', { path: DEMO, fail: ['web2'] });
    expect(onDisk.pools.find((p) => p.name === 'web-vip')).toMatchObject({ left: 1, total: 2 });
    const text = readFileSync(DEMO, 'utf8').replace('{ server: web2, port: 8081, weight: 200 }', '{ server: web2, port: 8081, weight: 0 }');
    const unsaved = await callDirect(handlers, 'lab.whatif', { path: DEMO, text, fail: ['web1'] });
    expect(unsaved.pools.find((p) => p.name === 'web-vip')).toMatchObject({ left: 0, before: 1, none: true });
  });

  it('an unknown name is refused as not-found, with the closest name', async () => {
    await expect(callDirect(handlers, 'lab.whatif', { path: DEMO, fail: ['web3'] })).rejects.toMatchObject({ code: 'not-found', message: expect.stringContaining('(did you mean "web1"?)') });
  });
});
