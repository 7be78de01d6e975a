// A silent appliance (TCP accepts, no SSH banner ever): "Comparing…" names the host, counts the
// seconds and can be cancelled; a previous push's steps to another appliance go; the end says the
// timeout and that TCP connected. The keyboard path: focus lands on what Diff, Push and Confirm
// gave, never on the page; F5 in a browser tab is the browser's.
import { expect, test } from '@playwright/test';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { startPushSite, type PushSite } from './pages/push-site';
import { freePort, haveSshd, noSshd } from '../helpers/sshd';

const SILENT = '127.0.8.111';
let site: PushSite | undefined;
let silent: Server | undefined;
const held: Socket[] = [];

test.skip(!haveSshd, noSshd);
test.beforeAll(async () => {
  site = await startPushSite('silent-e2e', '127.0.8.110', '127.0.8.112');
  const port = await freePort(SILENT);
  silent = createServer((c) => held.push(c));
  await new Promise<void>((r) => silent!.listen(port, SILENT, () => r()));
  appendFileSync(site.workspaceFile, [
    '  - name: silent',
    `    host: ${SILENT}`,
    `    port: ${port}`,
    '    user: root',
    '    auth: key',
    `    keyFile: ${site.sshd.userKey.path}`,
    '    driver: haproxy',
    `    configPath: ${join(site.dir, 'silent.cfg')}`,
    '',
  ].join('\n'));
  // The window's own ~/.ssh/config (browser mode runs with HOME in its data folder): a short
  // ConnectTimeout for the silent box only, as a field engineer would set it.
  mkdirSync(join(dataDir(), 'home', '.ssh'), { recursive: true });
  appendFileSync(join(dataDir(), 'home', '.ssh', 'config'), `\nHost ${SILENT}\n  ConnectTimeout 3\n`);
});
test.afterAll(async () => {
  held.forEach((c) => c.destroy());
  await new Promise((r) => silent?.close(r));
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: Diff, Push and Confirm by keyboard; a silent appliance is named, timed, cancelled and explained`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(site!.workspaceFile, 'silent-e2e');
    await page.keyboard.press('Control+6');
    await page.getByTestId('appliance-select').selectOption('e2e-sshd');

    // Diff by keyboard: the answer (or the host key question, then the answer) takes the focus.
    await page.getByTestId('diff-button').focus();
    await page.keyboard.press('Enter');
    const key = page.getByTestId('host-key-accept');
    const diff = page.getByTestId('diff').or(page.getByTestId('no-change'));
    await expect(key.or(diff).first()).toBeVisible({ timeout: 20_000 });
    if (await key.isVisible()) await key.click();
    await expect(diff.first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('diff-panel')).toBeFocused();

    if (width === 1440) {
      // Push and Confirm by keyboard: Confirm has the focus while it counts, the report after.
      await page.getByLabel('Commit-confirmed within').setChecked(true);
      await page.getByTestId('push-button').focus();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 30_000 });
      await expect(page.getByTestId('confirm-button')).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
      await expect(page.getByTestId('confirm-message').or(page.getByTestId('push-report')).first()).toBeFocused();
      await expect(page.getByTestId('push-progress')).toBeVisible();
    }

    // The silent box: host and seconds shown, Cancel focused; the last push's steps to the other box gone.
    await page.getByTestId('appliance-select').selectOption('silent');
    await page.getByTestId('diff-button').focus();
    await page.keyboard.press('Enter');
    const comparing = page.getByTestId('comparing');
    await expect(comparing).toContainText(`Comparing with silent at root@${SILENT}:`);
    await expect(page.getByTestId('comparing-elapsed')).toHaveText(/^[1-9]\d* s$/, { timeout: 5_000 });
    await expect(page.getByTestId('push-progress')).toHaveCount(0);
    await expect(page.getByTestId('push-report')).toHaveCount(0);
    await expect(page.getByTestId('diff-cancel')).toBeFocused();
    await expect(page.getByTestId('diff-cancel')).toBeInViewport();
    await app.screenshot(`silent-comparing-${width}`);
    await page.keyboard.press('Enter');
    await expect(comparing).toBeHidden();
    await expect(page.getByTestId('diff-error')).toContainText('cancelled after TCP connected, before the SSH handshake finished');
    await expect(page.getByTestId('diff-error')).toBeFocused();

    // Left to run out: the timeout, and that TCP connected (so the network is not the problem).
    await page.getByTestId('diff-button').click();
    await expect(comparing).toBeVisible();
    await expect(page.getByTestId('diff-error')).toContainText('TCP connected, but no SSH handshake within 3 s', { timeout: 20_000 });
    app.expectNoErrors();
  });
}

test('F5 in a browser tab is the browser\'s reload, not the lab; Alt+L is the lab\'s key here', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await expect(app.labState).toHaveText(/off/);
  // A key lbdesk takes is prevented (the browser's action never runs); F5 is left to the browser.
  await page.locator('body').evaluate((body) => body.ownerDocument.defaultView?.addEventListener('keydown', (e: { key: string; defaultPrevented: boolean }) => {
    if (e.key === 'F5') body.setAttribute('data-f5', String(e.defaultPrevented));
  }));
  await page.keyboard.press('F5');
  await expect(page.locator('body')).toHaveAttribute('data-f5', 'false');
  await expect(app.labState).toHaveText(/off/);
  await expect(page.getByTestId('lab-toggle')).toHaveAttribute('title', 'Start the lab on this workspace (Alt+L)');
  await page.keyboard.press('F1');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help.getByRole('row').filter({ hasText: 'Start or stop the lab' })).toContainText('Alt+L');
  await expect(help.getByRole('row').filter({ hasText: 'Start or stop the lab' })).not.toContainText('F5');
  await page.keyboard.press('Escape');
  app.expectNoErrors();
});
