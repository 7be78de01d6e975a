// `lab.whatif` through the contract's handler table, as the window calls it (unsaved text too).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { callDirect } from '../../../../main/services/api/dispatch';
import { browserShell } from '../../../../main/services/api/shell';
import { createAppServices } from '../../../../main/services/api/wiring';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { ROOT } from '../../../helpers/cli';

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

describe('lab.replay', () => {
  // The demo's web2 has interval 5s (its own), retryInterval 10s, failAfter 2: checks at 0 5 pass, 10 20 fail.
  const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
  const history = JSON.stringify({ results: [0, 5, 10, 20].map((s) => ({ at: T0 + s * 1000, ok: s < 10, reason: s < 10 ? 'HTTP/1.0 200' : 'connect ECONNREFUSED', rttMs: 1, evidence: {} })) });

  it('replays the window\'s history text under the timers given, the member\'s own beside them', async () => {
    const r = await callDirect(handlers, 'lab.replay', { path: DEMO, member: 'web/web2', history, timers: { retryInterval: '2s' as never, failAfter: 1 } });
    expect(r.recorded.timers).toEqual({ interval: 5000, retryInterval: 10_000, failAfter: 2, restoreAfter: 2, timeout: 5000 });
    expect(r.replayed.timers).toMatchObject({ interval: 5000, retryInterval: 2000, failAfter: 1 });
    // Recorded: out when the second failure decides (20s + its 1 ms); replayed: at the first (10s + 1 ms).
    expect(r.recorded.failures).toEqual([{ began: T0 + 10_000, detected: T0 + 20_001, afterMs: 10_001 }]);
    expect(r.replayed.failures).toEqual([{ began: T0 + 10_000, detected: T0 + 10_001, afterMs: 1 }]);
  });

  it('a history that is not one is refused, an unknown member is not-found', async () => {
    await expect(callDirect(handlers, 'lab.replay', { path: DEMO, member: 'web/web2', history: '{"results": 3}', historyName: 'pasted' }))
      .rejects.toMatchObject({ code: 'refused', message: 'pasted:1:1: expected the lab\'s history { "results": [...] } or an array of check results' });
    await expect(callDirect(handlers, 'lab.replay', { path: DEMO, member: 'web/web9', history })).rejects.toMatchObject({ code: 'not-found' });
  });
});

