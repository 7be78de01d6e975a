// Exploit regression: a big bad workspace must not freeze browser mode. Through the real
// WebSocket host, the page validates 4 MB of bad servers and keeps calling app.info meanwhile:
// the validation ends in bounded time, stopped at its cap, and every other call is answered
// while it runs (before, the host's event loop stopped for the whole validation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiProblem } from '../../../shared/api/contract';
import { badServers } from '../../fixtures/workspaces/generate';
import { tempDir } from '../../helpers/app-ipc';
import { openPage, type PageSession } from '../../helpers/host-client';

let tmp: ReturnType<typeof tempDir>;
let page: PageSession;

beforeAll(async () => {
  tmp = tempDir('validate-load');
  page = await openPage(tmp.dir);
});
afterAll(async () => {
  await page?.close();
  tmp.cleanup();
});

describe('a big validate from the page', () => {
  it('ends in bounded time, stopped at its cap, while other calls are answered', async () => {
    const path = join(tmp.dir, 'big.yaml');
    writeFileSync(path, badServers(4));
    const started = Date.now();
    let pending = true;
    const validated = page.call('workspace.validate', { path }).finally(() => (pending = false));
    const latencies: number[] = [];
    while (pending) {
      const sent = Date.now();
      const info = await page.call('app.info');
      expect(info.ok).toBe(true);
      if (pending) latencies.push(Date.now() - sent);
      else break;
    }
    const reply = await validated;
    const took = Date.now() - started;
    // Generous: the speed itself is measured by bench/workspace.ts.
    expect(took).toBeLessThan(120_000);
    expect(reply.ok).toBe(true);
    const problems = (reply as { result: ApiProblem[] }).result;
    expect(problems).toHaveLength(1001);
    expect(problems[1000]!.message).toBe('… and more problems (checking stopped after 1000)');
    // Answered all along: no single call waited for a large part of the validation.
    expect(latencies.length).toBeGreaterThan(2);
    expect(Math.max(...latencies)).toBeLessThan(Math.max(took / 3, 200));
  }, 180_000);

  it('is refused by the lab the same way: start on a big bad file or text, every other call answered meanwhile', async () => {
    const path = join(tmp.dir, 'big-lab.yaml');
    const text = badServers(4);
    writeFileSync(path, text);
    for (const args of [{ path }, { path, text }]) {
      const started = Date.now();
      let pending = true;
      const start = page.call('lab.start', args).finally(() => (pending = false));
      const latencies: number[] = [];
      while (pending) {
        const sent = Date.now();
        expect((await page.call('app.info')).ok).toBe(true);
        if (pending) latencies.push(Date.now() - sent);
      }
      const reply = await start;
      const took = Date.now() - started;
      expect(reply).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringMatching(/^the workspace has errors: .*big-lab\.yaml:\d+:\d+: /) } });
      expect(latencies.length).toBeGreaterThan(2);
      expect(Math.max(...latencies)).toBeLessThan(Math.max(took / 3, 200));
    }
  }, 240_000);
});
