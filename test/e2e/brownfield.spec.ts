// A site lbdesk did not build (a hand-written haproxy.cfg in a real HAProxy master-worker behind a
// real sshd, imported with manage: sections): every view of "the file after a push" is the box's
// own file with lbdesk's sections rendered onto it; a push of one weight changes one line; the
// change report made right after it has that line; History says "confirmed" and lists the box's
// original, which compares and restores byte for byte.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { LbdeskPage } from './pages/lbdesk';
import { noBrownfield, startBrownfieldSite, type BrownfieldSite } from './pages/brownfield-site';
import { haveSshd, noSshd } from '../helpers/sshd';

let site: BrownfieldSite | undefined;

test.skip(!haveSshd || !!noBrownfield, noSshd || `missing: ${noBrownfield}`);
test.beforeAll(async () => {
  site = await startBrownfieldSite('brownfield-e2e', ['127.0.8.100', '127.0.8.101', '127.0.8.102', '127.0.8.103']);
});
test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

test('1440×900: preview, push, report and history of a brownfield box show the box\'s own file', async ({ page }) => {
  test.setTimeout(120_000);
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'brownfield-e2e');
  await page.keyboard.press('Control+6');
  await app.diff();
  await expect(page.getByTestId('no-change')).toBeVisible();

  // Preview config: the box's file with lbdesk's sections on it, never a whole-file render.
  await page.getByRole('button', { name: 'Preview config' }).click();
  const modal = page.getByRole('dialog', { name: 'Config for box' });
  await expect(modal).toBeVisible({ timeout: 20_000 });
  await expect(modal).toContainText(/as root@127\.0\.8\.100:\d+ holds it now, with this workspace's sections rendered onto it/);
  const text = modal.getByTestId('config-text');
  for (const kept of ['userlist admins', 'listen stats', 'ssl crt', 'use_backend api if is_api', 'balance first', '\tdefault_backend web']) await expect(text).toContainText(kept);
  await expect(text).not.toContainText('overwritten by the next push');
  await expect(text).not.toContainText('stats-e2e-secret');
  await app.screenshot('brownfield-preview-1440');
  await page.keyboard.press('Escape');
  await expect(modal).toBeHidden();

  // One weight, pushed commit-confirmed and confirmed: one line changes on the box.
  await page.keyboard.press('Control+3');
  await page.getByRole('grid', { name: 'Server groups' }).getByRole('gridcell', { name: 'web', exact: true }).click();
  await page.locator('[data-field$=".members.1.weight"] input').fill('3');
  await page.keyboard.press('Control+6');
  await app.diff();
  await expect(page.getByTestId('diff-added')).toHaveText('+1');
  await expect(page.getByTestId('diff-removed')).toHaveText('−1');
  await page.getByLabel('Commit-confirmed within').setChecked(true);
  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
  const pushed = readFileSync(site!.live, 'utf8');
  expect(pushed).toBe(site!.original.replace(/(server web-b \S+ weight) 1/, '$1 3'));
  await expect(page.getByTestId('no-change')).toBeVisible({ timeout: 20_000 });

  // The change report right after it: nothing to push now, and the line the push changed.
  await page.getByTestId('change-report').click();
  const report = page.getByRole('dialog', { name: 'Change report' });
  await expect(report.getByTestId('report-appliances')).toContainText('no change: the appliance runs this workspace', { timeout: 20_000 });
  await expect(report.getByTestId('report-appliances')).toContainText('the last push from here (confirmed) changed 1 line added, 1 removed');
  const md = await report.getByTestId('report-markdown').innerText();
  expect(md).toMatch(/^-\tserver web-b \S+ weight 1 /m);
  expect(md).toMatch(/^\+\tserver web-b \S+ weight 3 /m);
  expect(md).not.toContain('stats-e2e-secret');
  await report.getByRole('button', { name: 'Close' }).last().click();

  // History: the push says confirmed; the box's original is listed; against the workspace now
  // the push is no change and the original is the one weight, not a whole-file render.
  await page.getByTestId('tab-history').click();
  const rows = page.getByTestId('push-history').locator('tbody tr');
  await expect(rows.first()).toContainText('confirmed');
  await expect(rows.first()).not.toContainText('applied');
  const original = rows.filter({ hasText: 'original' });
  await expect(original).toHaveCount(1);
  await rows.first().click();
  const version = page.getByTestId('version-view');
  await expect(version.getByTestId('diff-added')).toHaveText('+0', { timeout: 20_000 });
  await expect(version.getByTestId('diff-removed')).toHaveText('−0');
  await version.getByTestId('version-back').click();
  await original.click();
  await expect(version.getByTestId('diff-added')).toHaveText('+1', { timeout: 20_000 });
  await expect(version.getByTestId('diff-removed')).toHaveText('−1');
  await app.screenshot('brownfield-original-1440');

  // Restored, it is the site team's file again, byte for byte (not rendered onto again).
  await page.getByTestId('version-restore').click();
  await page.getByTestId('version-restore-go').click();
  await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
  expect(readFileSync(site!.live, 'utf8')).toBe(site!.original);
  app.expectNoErrors();
});

test('1024×700: Preview config of a brownfield box is its own file, the subtitle whole', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'brownfield-e2e');
  await page.keyboard.press('Control+6');
  await page.getByRole('button', { name: 'Preview config' }).focus();
  await page.keyboard.press('Enter');
  const key = page.getByTestId('host-key-accept');
  const modal = page.getByRole('dialog', { name: 'Config for box' });
  await expect(key.or(modal).first()).toBeVisible({ timeout: 20_000 });
  if (await key.isVisible()) await key.click();
  await expect(modal.getByTestId('config-text')).toContainText('userlist admins', { timeout: 20_000 });
  await expect(modal.getByTestId('config-text')).not.toContainText('overwritten by the next push');
  await app.screenshot('brownfield-preview-1024');
  await page.keyboard.press('Escape');
  await expect(modal).toBeHidden();
  app.expectNoErrors();
});
