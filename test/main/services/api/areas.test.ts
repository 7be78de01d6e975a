// The handler table is assembled from one object per area of the contract, each typed as exactly
// that area's methods: a missing handler, a stray one or a missing area does not compile
// (`npm run typecheck` checks the @ts-expect-error lines below), and the table holds every method.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AREA_NAMES, areas, METHOD_NAMES } from '../../../../shared/api/contract';
import { dispatch, handlerTable, type AreaHandlers, type AreaTable } from '../../../../main/services/api/dispatch';
import { browserShell } from '../../../../main/services/api/shell';
import { createAppServices } from '../../../../main/services/api/wiring';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { ROOT } from '../../../helpers/cli';

const secrets: AreaHandlers<'secrets'> = {
  'secrets.set': () => ({ kept: 'memory' }),
  'secrets.has': () => true,
  'secrets.delete': () => undefined,
};

describe('handlers per area', () => {
  it('files every contract method under exactly one area', () => {
    const filed = AREA_NAMES.flatMap((a) => Object.keys(areas[a]));
    expect(new Set(filed).size).toBe(filed.length);
    expect([...filed].sort()).toEqual([...METHOD_NAMES].sort());
  });

  it('assembles a table with a function for every method, and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-areas-'));
    try {
      const { handlers } = createAppServices({ shell: browserShell(), dataDir: dir, resourcesDir: ROOT, secrets: new MemorySecretStore() });
      expect(Object.keys(handlers).sort()).toEqual([...METHOD_NAMES].sort());
      for (const m of METHOD_NAMES) expect(typeof handlers[m]).toBe('function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes from each area only the methods the contract files under it', async () => {
    const table = Object.fromEntries(AREA_NAMES.map((a) => [a, Object.fromEntries(Object.keys(areas[a]).map((m) => [m, () => `${a}:${m}`]))])) as unknown as AreaTable;
    // A handler filed under the wrong area is not taken from there.
    const handlers = handlerTable({ ...table, secrets: { ...secrets, 'app.info': () => 'stray' } as AreaHandlers<'secrets'> });
    expect(Object.keys(handlers).sort()).toEqual([...METHOD_NAMES].sort());
    expect(await dispatch(handlers, 'app.info', {})).toEqual({ ok: true, result: 'app:app.info' });
    expect(await dispatch(handlers, 'secrets.has', { name: 'x' })).toEqual({ ok: true, result: true });
    // A table cast past the types is refused when it is put together, not on the first call.
    const { lab: _lab, ...noLab } = table;
    expect(() => handlerTable(noLab as AreaTable)).toThrow(/the lab area has no handler for /);
  });

  it('refuses at compile time a missing handler, a stray one and a missing area', () => {
    // @ts-expect-error secrets.delete is missing
    const missing: AreaHandlers<'secrets'> = { 'secrets.set': () => undefined, 'secrets.has': () => true };
    // @ts-expect-error lab.start belongs to the lab area, not to secrets
    const stray: AreaHandlers<'secrets'> = { ...secrets, 'lab.start': () => undefined };
    // @ts-expect-error every area is required
    const partial = (): AreaTable => ({ secrets });
    expect([missing, stray, partial]).toHaveLength(3);
  });
});
