// The keyring store talks to secret-tool over stdin: a secret-tool that exits without reading
// (a locked keyring, a crash) is a failed store, said in words — never an EPIPE that crashes the
// process (the real secret-tool here is a shell script that exits at once).
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyringSecretStore } from '../../../../main/services/secrets/keyring';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-keyring-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('KeyringSecretStore', () => {
  it('a secret-tool that exits without reading its input: a KeyringError, no crash', async () => {
    const tool = join(dir, 'secret-tool');
    writeFileSync(tool, '#!/bin/sh\necho "secret-tool: Cannot create an item in a locked collection" >&2\nexit 1\n');
    chmodSync(tool, 0o755);
    const store = new KeyringSecretStore({ command: tool });
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => crashes.push(e);
    process.on('uncaughtException', onCrash);
    try {
      // Big enough that the write cannot fit in the pipe before the script has exited.
      for (let i = 0; i < 5; i++) {
        await expect(store.set('named/big', 'x'.repeat(1 << 20))).rejects.toThrow(/keyring store of "named\/big" failed: secret-tool: Cannot create an item in a locked collection/);
      }
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      process.off('uncaughtException', onCrash);
    }
    expect(crashes).toEqual([]);
  });
});
