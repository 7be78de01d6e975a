// Appliances: push to a real sshd on loopback — the host key question with its SHA256
// fingerprint, the diff first, the push with progress, commit-confirmed with Confirm, the report.
import { expect, test } from '@playwright/test';
import { readFileSync, existsSync } from 'node:fs';
import { LbdeskPage } from './pages/lbdesk';
import { startPushSite, type PushSite } from './pages/push-site';
import { haveSshd, noSshd, type Sshd } from '../helpers/sshd';

let site: PushSite | undefined;
let sshd: Sshd | undefined;
let workspaceFile = '';
let live = '';
const VIP = '127.0.8.75';

test.skip(!haveSshd, noSshd);

test.beforeAll(async () => {
  site = await startPushSite('push-e2e', '127.0.8.74', VIP);
  ({ sshd, workspaceFile, live } = site);
});

test.afterAll(async () => {
  await site?.stop();
});

test('push to a loopback sshd: host key, diff, push, confirm, report', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(workspaceFile, 'push-e2e');
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('appliance-select')).toHaveValue('e2e-sshd');

  await page.getByTestId('diff-button').click();
  const hostKey = page.getByTestId('host-key-dialog');
  await expect(hostKey).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('fingerprint')).toHaveText(sshd!.hostKey.fingerprint);
  await app.screenshot('push-host-key');
  await page.getByTestId('host-key-accept').click();

  const diff = page.getByTestId('diff');
  await expect(diff).toBeVisible({ timeout: 15_000 });
  await expect(diff).toContainText('web-vip');
  // The accepted key is pinned in the workspace (hostKey), as the workspace example says; that
  // edit changes nothing pushed, so the diff is not out of date for it.
  await expect(page.getByLabel('Pinned host key', { exact: true })).toHaveValue(sshd!.hostKey.fingerprint);
  await expect(page.getByTestId('diff-stale')).toHaveCount(0);
  await app.screenshot('push-diff');

  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('push-progress')).toBeVisible();
  await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
  await expect(page.getByTestId('push-report')).toContainText('Applied');
  await expect(page.getByTestId('push-report')).not.toContainText('waiting for Confirm');
  await app.screenshot('push-report');
  await page.getByTestId('tab-history').click();
  await expect(page.getByTestId('push-history').locator('tbody tr').first()).toContainText('confirmed');
  await page.getByTestId('tab-diff').click();

  expect(existsSync(live)).toBe(true);
  expect(readFileSync(live, 'utf8')).toMatch(new RegExp(`${VIP.replace(/\./g, '\\.')}:\\d+`));

  // The diff on screen follows the push by itself: nothing left to change.
  await expect(page.getByTestId('no-change')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('diff-stale')).toHaveCount(0);
  // An edit makes it out of date: said, and Push waits for a fresh one.
  await page.keyboard.press('Control+1');
  await page.getByLabel('Description', { exact: true }).fill('edited after the push');
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('diff-stale')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('push-button')).toBeDisabled();
  await page.getByTestId('diff-button').click();
  await expect(page.getByTestId('diff-stale')).toHaveCount(0, { timeout: 15_000 });

  // The change report asks the same appliance: nothing to push, the last push confirmed and the
  // file it left is the one the workspace renders now.
  await page.getByTestId('change-report').click();
  const report = page.getByRole('dialog', { name: 'Change report' });
  await expect(report.getByTestId('report-appliances')).toContainText('no change: the appliance runs this workspace', { timeout: 20_000 });
  const md = await report.getByTestId('report-markdown').innerText();
  expect(md).toMatch(/\| \*\*Last push from here\*\* \| \d{4}-\d\d-\d\dT[\d:]+Z, applied, confirmed [\d:TZ-]+, sha256 `[0-9a-f]{16}` — the file the workspace renders now \|/);
  expect(md).toContain(`| **Running now** | \``);
  await report.getByRole('button', { name: 'Close' }).last().click();
  app.expectNoErrors();
});

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());
