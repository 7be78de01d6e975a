// Issue 30 item 2: in browser mode the window says where a password goes, and it is where it
// says: with a keyring (GNOME Keyring on a private D-Bus session) it survives a restart of the
// host; without one the page says memory only, and after a restart it is gone, as said.
import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { missingKeyringBins, startKeyring, type PrivateKeyring } from '../helpers/keyring';

const ROOT = resolve(__dirname, '../..');
const missing = missingKeyringBins();
let host: ChildProcess | undefined;
let keyring: PrivateKeyring | undefined;

async function stopHost(): Promise<void> {
  if (!host || host.exitCode !== null) return;
  const gone = new Promise((r) => host!.once('exit', r));
  host.kill('SIGTERM');
  await gone;
}
test.afterEach(async () => {
  await stopHost();
  keyring?.stop();
  keyring = undefined;
});

/** Browser mode on `file` (lbdesk demo FILE), its own data folder; the URL it prints. */
async function startHost(file: string, dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  host = spawn(process.execPath, [join(ROOT, 'out/cli/lbdesk.cjs'), 'demo', file, '--ui-port', '0', '--no-open'], {
    env: { ...env, LBDESK_DATA_DIR: join(dir, 'data') }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  host.stderr!.on('data', (d) => (out += d));
  return new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL in 30 s:\n${out}`)), 30_000);
    host!.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    host!.once('exit', (code) => fail(new Error(`lbdesk demo exited ${code}:\n${out}`)));
  });
}

async function passwordField(page: Page, url: string): Promise<void> {
  const app = new LbdeskPage(page);
  await page.goto(url);
  await expect(app.name).toHaveText('secrets');
  await page.keyboard.press('Control+6');
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
  // Before anything is stored, the window says where it would go.
  await expect(page.getByText('kept in the OS keyring where this machine has one, else in memory only until lbdesk stops')).toBeVisible();
  await expect(page.getByText('Kept in the OS keychain, never in the workspace file.')).toHaveCount(0);
}

function site(dir: string): string {
  const file = join(dir, 'site.yaml');
  writeFileSync(file, ['lbdesk: 1', 'name: secrets', 'appliances:', '  - { name: box, host: 192.0.2.7, user: admin, auth: password, driver: haproxy }', ''].join('\n'));
  return file;
}

test('with a keyring: "Stored in the keychain", and the host restarted still has it', async ({ page }) => {
  test.skip(missing.length > 0, `missing ${missing.join(', ')}`);
  const dir = mkdtempSync(join(dataDir(), 'secrets-kr-'));
  keyring = await startKeyring(join(dir, 'kr'));
  const env = { ...keyring.env, PATH: process.env.PATH };
  const file = site(dir);
  await passwordField(page, await startHost(file, dir, env));
  const field = page.getByLabel('Password', { exact: true });
  await expect(field).toHaveAttribute('placeholder', 'not stored yet');
  await field.fill('s3cret-on-the-box');
  await page.getByRole('button', { name: 'Store', exact: true }).click();
  await expect(page.getByTestId('password-kept')).toHaveText('Stored in the keychain.');
  await expect(field).toHaveAttribute('placeholder', 'stored — type to replace');

  await stopHost();
  await passwordField(page, await startHost(file, dir, env));
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('placeholder', 'stored — type to replace');
  new LbdeskPage(page).expectNoErrors();
});

test('without a keyring: the page says memory only, and after a restart it is gone as said', async ({ page }) => {
  const dir = mkdtempSync(join(dataDir(), 'secrets-mem-'));
  const env = { ...process.env, HOME: join(dir, 'home'), LBDESK_KEYRING: 'off' };
  const file = site(dir);
  await passwordField(page, await startHost(file, dir, env));
  await page.getByLabel('Password', { exact: true }).fill('s3cret-on-the-box');
  await page.getByRole('button', { name: 'Store', exact: true }).click();
  await expect(page.getByTestId('password-kept')).toContainText('Not stored in a keychain: kept in memory only');
  await stopHost();
  await passwordField(page, await startHost(file, dir, env));
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('placeholder', 'not stored yet');
});
