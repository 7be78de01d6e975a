// Local push/pull history: bounded per appliance, the newest kept.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_KEEP, listHistory, readHistory, recordHistory } from '../../../../main/services/sync/history';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('history', () => {
  it(`keeps the newest ${HISTORY_KEEP} entries of an appliance, each with its bytes`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < HISTORY_KEEP + 5; i++) {
      const e = await recordHistory(dir, { appliance: 'lb1', kind: 'push', data: Buffer.from(`config ${i}\n`), target: 'root@127.0.0.1:22', configPath: '/etc/haproxy/haproxy.cfg' });
      ids.push(e.id);
    }
    const kept = await listHistory(dir, 'lb1');
    expect(kept).toHaveLength(HISTORY_KEEP);
    // The oldest go (ids of one millisecond sort by hash, so compare by time, not by position).
    const dropped = ids.filter((id) => !kept.some((e) => e.id === id));
    expect(dropped).toHaveLength(5);
    expect(Math.max(...dropped.map((id) => Number(id.slice(0, 18).replace(/\D/g, ''))))).toBeLessThanOrEqual(Math.min(...kept.map((e) => Number(e.id.slice(0, 18).replace(/\D/g, '')))));
    expect(kept.some((e) => e.id === ids.at(-1))).toBe(true);
    // Their stored configs went with them: only the kept entries' files are left.
    const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(cfg|json)$/.test(f));
    expect(files).toHaveLength(HISTORY_KEEP * 2);
    expect((await readHistory(dir, 'lb1', ids.at(-1)!)).data.toString()).toBe(`config ${HISTORY_KEEP + 4}\n`);
  });
});
