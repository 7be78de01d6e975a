// Operate from the window against a command-driven vendor box: the ServerIron ADX test box (an SSH
// CLI on loopback). Each member as the box has it (`show server real`: health, admin, sessions),
// a drain confirmed with the keyboard that the box has at once in its running config and never
// saves, Ready putting it back, and the refreshes going over the one login.
import { expect, test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { startAdxBox, type AdxBox } from '../helpers/command-boxes/adx-box';

const CONFIG = [
  'server real web1 192.0.2.11', ' port http', '!',
  'server real web2 192.0.2.12', ' port http', '!',
  'server virtual vip1 192.0.2.100', ' port http', ' bind http web1 http web2 http', '!', '',
].join('\n');
const WEB1 = 'web/web1:80';
const WEB2 = 'web/web2:80';

let box: AdxBox;
let file = '';

/** The box's host key as the workspace pins it (`ssh-keygen -l` style). */
const pinOf = (knownHostsLine: string) =>
  `SHA256:${createHash('sha256').update(Buffer.from(knownHostsLine.split(' ')[2]!, 'base64')).digest('base64').replace(/=+$/, '')}`;
const shows = () => box.received.filter((c) => c === 'show server real').length;

test.beforeAll(async () => {
  box = await startAdxBox({ host: '127.0.43.1', config: CONFIG, userMode: true, pageLines: 8 });
  const dir = mkdtempSync(join(dataDir(), 'operate-vendor-'));
  file = join(dir, 'operate-adx.yaml');
  writeFileSync(file, [
    'lbdesk: 1', 'name: operate-adx',
    'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }',
    'groups:', '  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: 80 }, { server: web2, port: 80 }] }',
    'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
    'appliances:',
    `  - { name: adx1, host: ${box.host}, port: ${box.port}, user: admin, auth: key, keyFile: ${box.keyFile}, driver: adx, hostKey: "${pinOf(box.knownHostsLine)}" }`,
    '',
  ].join('\n'));
});
test.afterAll(async () => { await box?.stop(); });
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: the ADX box's members live; drain confirmed with the keyboard, on the box at once and never saved; ready again`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height });
    box.sessions.clear();
    box.health.clear();
    box.sessions.set('web1:http', 3);
    box.health.set('web2:http', 'FAL');
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(file, 'operate-adx');
    const logins = box.logins();

    await page.keyboard.press('Control+9');
    await expect(page.getByTestId('nav-operate')).toHaveAttribute('aria-current', 'page');
    const web1 = page.locator(`tr[data-member="${WEB1}"]`);
    const web2 = page.locator(`tr[data-member="${WEB2}"]`);
    // As the box has them: web1 up, ready, its 3 connections; web2 failing its check.
    await expect(web1.getByTestId('health')).toHaveText('up', { timeout: 20_000 });
    await expect(web1.getByTestId('admin')).toHaveText('ready');
    await expect(web1.getByTestId('sessions')).toHaveText('3');
    await expect(web1).toContainText('port http ACT (active), server Active');
    await expect(web2.getByTestId('health')).toHaveText('down');
    await expect(web2.getByTestId('admin')).toHaveText('ready');
    await expect(web2.getByTestId('sessions')).toHaveText('0');
    await expect(page.getByTestId('operate-via')).toContainText('adx CLI (show server real)');
    await expect(page.getByTestId('operate-error')).toHaveCount(0);
    const { sw, cw } = await page.locator('html').evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
    expect(sw).toBeLessThanOrEqual(cw);
    await app.screenshot(`operate-adx-${width}`);

    // With the keyboard: the row's Drain, Enter; the dialog says what happens to the 3 open connections.
    await page.getByRole('button', { name: `Drain ${WEB1}` }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Drain on adx1' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('confirm-what')).toContainText('The 3 open connections go on until their clients close them');
    expect(box.running()).toBe(CONFIG);
    await expect(dialog.getByTestId('confirm-change')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(web1.getByTestId('admin')).toHaveText('drain', { timeout: 15_000 });
    await expect(page.getByTestId('operate-note')).toContainText(`${WEB1} is drained on adx1`);
    // The box: web1's port disabled in the running config, web2 as it was, nothing saved.
    expect(box.running()).toBe(CONFIG.replace('server real web1 192.0.2.11\n port http\n', 'server real web1 192.0.2.11\n port http\n port http disable\n'));
    expect(box.saved()).toBe(CONFIG);
    expect(box.showReal()).toMatch(/Name: web1 [^\n]*\n(?:[^\n]*\n){3}\s+http\s+DIS /);
    await expect(web2.getByTestId('admin')).toHaveText('ready');

    // The clients end theirs: the count falls in the window, from the 3 it was drained with.
    box.sessions.set('web1:http', 1);
    await expect(web1.getByTestId('sessions')).toHaveText('1 ↓ of 3', { timeout: 10_000 });
    if (width === 1024) {
      const ready = page.getByRole('button', { name: `Ready ${WEB1}` });
      const [r, table] = [await ready.boundingBox(), await page.getByTestId('operate-members').locator('xpath=..').boundingBox()];
      expect(r!.x + r!.width).toBeLessThanOrEqual(table!.x + table!.width);
      await expect(page.getByTestId('bulk-drain')).toBeInViewport();
    }

    // Ready, with the keyboard: the port enabled again; the running config is the saved one.
    await page.getByRole('button', { name: `Ready ${WEB1}` }).focus();
    await page.keyboard.press('Enter');
    const back = page.getByRole('dialog', { name: 'Ready on adx1' });
    await expect(back.getByTestId('confirm-change')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(web1.getByTestId('admin')).toHaveText('ready', { timeout: 15_000 });
    await expect(web1.getByTestId('health')).toHaveText('up');
    expect(box.running()).toBe(CONFIG);
    expect(box.saved()).toBe(CONFIG);
    expect(box.received).not.toContain('write memory');

    // Refreshes go on over the same login: two more looks, no new login.
    const seen = shows();
    await expect.poll(shows, { timeout: 10_000 }).toBeGreaterThanOrEqual(seen + 2);
    expect(box.logins() - logins).toBe(1);
    app.expectNoErrors();
  });
}
