// Fleet push: several appliances (distinct config paths) behind one real sshd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PushProgress, PushReport } from '../../../../shared/api/sync';
import { haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { pushFleet } from '../../../../main/services/sync';
import { makeAppliance, testOptions, type TestAppliance } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping fleet tests: /usr/sbin/sshd is not installed');

describe.skipIf(skipBecause(noSshd, 'fleet push'))('fleet push', () => {
  let sshd: Sshd;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lbdesk-fleet-'));
    sshd = await startSshd({ host: '127.0.8.4' });
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  function fleet(prefix: string, n: number): TestAppliance[] {
    return Array.from({ length: n }, (_, i) => {
      const app = makeAppliance(sshd, `${prefix}-${i + 1}`, root);
      writeFileSync(app.live, `ok old ${i + 1}\n`);
      return app;
    });
  }

  it('pushes with bounded concurrency and reports every host exactly', async () => {
    const apps = fleet('lb', 6);
    const opts = testOptions(sshd, root);
    const events: PushProgress[] = [];
    const reports: PushReport[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const items = apps.map((a, i) => ({ target: a.target, text: i === 3 ? 'broken\n' : `ok new ${i + 1}\n` }));
    items.push({ target: makeAppliance(sshd, 'lb-norender', root).target, refused: 'service web-vip: cannot be rendered' } as never);
    const r = await pushFleet(items, {
      ...opts,
      concurrency: 3,
      onProgress: (e) => {
        events.push(e);
        if (e.step === 'connect' && e.status === 'start') maxInFlight = Math.max(maxInFlight, ++inFlight);
      },
      onReport: (rep) => { reports.push(rep); if (rep.steps.length) inFlight--; },
    });
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(r.reports.map((x) => [x.appliance, x.outcome])).toEqual([
      ['lb-1', 'applied'], ['lb-2', 'applied'], ['lb-3', 'applied'], ['lb-4', 'refused'], ['lb-5', 'applied'], ['lb-6', 'applied'], ['lb-norender', 'refused'],
    ]);
    expect(r.reports[3]!.reason).toMatch(/validation failed/);
    expect(r.reports[6]!.reason).toBe('service web-vip: cannot be rendered');
    expect(r.counts).toMatchObject({ applied: 5, refused: 2, skipped: 0 });
    expect(reports).toHaveLength(7);
    expect(apps.map((a) => a.read())).toEqual(['ok new 1\n', 'ok new 2\n', 'ok new 3\n', 'ok old 4\n', 'ok new 5\n', 'ok new 6\n']);
    for (const a of apps) expect(events.some((e) => e.appliance === a.name && e.step === 'upload' && e.status === 'ok')).toBe(true);

    const again = await pushFleet(apps.map((a, i) => ({ target: a.target, text: i === 3 ? 'ok old 4\n' : `ok new ${i + 1}\n` })), opts);
    expect(again.counts).toMatchObject({ unchanged: 6 });
  });

  it('stops after a failed canary and leaves the rest untouched', async () => {
    const apps = fleet('canary', 4);
    const items = apps.map((a, i) => ({ target: a.target, text: i === 0 ? 'ok\nfailreload\n' : `ok new ${i + 1}\n` }));
    const r = await pushFleet(items, { ...testOptions(sshd, root), canary: 1 });
    expect(r.reports.map((x) => x.outcome)).toEqual(['rolled-back', 'skipped', 'skipped', 'skipped']);
    expect(r.stopped).toMatch(/canary canary-1 rolled-back/);
    expect(r.reports[1]!.reason).toMatch(/not attempted: canary canary-1/);
    expect(apps.map((a) => a.read())).toEqual(['ok old 1\n', 'ok old 2\n', 'ok old 3\n', 'ok old 4\n']);
  });

  it('stops starting new pushes at the failure threshold', async () => {
    const apps = fleet('limit', 5);
    const items = apps.map((a, i) => ({ target: a.target, text: i < 2 ? 'broken\n' : `ok new ${i + 1}\n` }));
    const r = await pushFleet(items, { ...testOptions(sshd, root), concurrency: 1, maxFailures: 2 });
    expect(r.reports.map((x) => x.outcome)).toEqual(['refused', 'refused', 'skipped', 'skipped', 'skipped']);
    expect(r.stopped).toMatch(/2 failure\(s\) reached the limit of 2/);
    expect(apps.every((a, i) => a.read() === `ok old ${i + 1}\n`)).toBe(true);
  });
});
