// Browser mode (`serve --ui`): a secret the page sets is kept in the OS keyring where the machine
// has one, else the reply says plainly it is in memory only until the host stops (issue 27).
// The page drives the real host of a real `lbdesk serve --ui`; the keyring is GNOME Keyring on a
// private D-Bus session.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyringSecretStore } from '../../../main/services/secrets/keyring';
import { lbdeskArgs, ROOT } from '../../helpers/cli';
import { missingKeyringBins, startKeyring, type PrivateKeyring } from '../../helpers/keyring';
import { skipBecause } from '../../helpers/skip';
import { pageSocket, tempDir, type PageSocket } from '../../helpers/app-ipc';

const missing = missingKeyringBins();

/** `lbdesk serve WS --events --ui` with `env`; the page connected to the URL it prints. */
async function serveUi(dir: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; page: PageSocket }> {
  const file = join(dir, 'site.yaml');
  writeFileSync(file, 'lbdesk: 1\nname: secrets\n');
  const child = spawn(process.execPath, [...lbdeskArgs(), 'serve', file, '--events', '--ui'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, LBDESK_DATA_DIR: join(dir, 'data') } });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const url = await vi.waitFor(() => {
    const line = out.split('\n').find((l) => l.includes('"type":"ui"'));
    if (!line) throw new Error('no ui event yet');
    return (JSON.parse(line) as { url: string }).url;
  }, { timeout: 30_000, interval: 100 });
  return { child, page: await pageSocket(url) };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await gone;
}

describe.skipIf(skipBecause(missing.length > 0 && `missing ${missing.join(', ')}`, 'browser-mode secrets'))('secrets set from the page in browser mode', () => {
  let tmp: ReturnType<typeof tempDir>;
  let keyring: PrivateKeyring;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    tmp = tempDir('browser-secrets');
    keyring = await startKeyring(tmp.dir);
  });
  afterAll(async () => {
    for (const c of children) await stop(c);
    keyring?.stop();
    tmp?.cleanup();
  });

  it('go to the OS keyring where one answers, and the reply says so', async () => {
    const { child, page } = await serveUi(tmp.dir, keyring.env);
    children.push(child);
    const r = await page.call('secrets.set', { name: 'appliance/lb1/password', value: 'kept-in-keyring-9z' });
    expect(r).toMatchObject({ ok: true, result: { kept: 'keyring' } });
    expect(await new KeyringSecretStore({ env: keyring.env }).get('appliance/lb1/password')).toBe('kept-in-keyring-9z');
    page.close();
    await stop(child);
  });

  it('without a keyring: kept in memory only, and the reply says so in words the page shows', async () => {
    const { child, page } = await serveUi(tmp.dir, { ...keyring.env, LBDESK_KEYRING: 'off' });
    children.push(child);
    const r = await page.call('secrets.set', { name: 'appliance/lb2/password', value: 'memory-only-4q' });
    expect(r.ok).toBe(true);
    expect(r.result).toEqual({ kept: 'memory', note: expect.stringMatching(/^kept in memory only, until this lbdesk stops .*LBDESK_KEYRING=off/) });
    expect(await new KeyringSecretStore({ env: keyring.env }).get('appliance/lb2/password')).toBeUndefined();
    page.close();
    await stop(child);
  });
});
