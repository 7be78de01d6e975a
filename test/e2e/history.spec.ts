// The diff view and push history against a real sshd on loopback, at both window sizes: the diff
// keeps the whole width, folds unchanged sections, marks changed words, never shows the header's
// hash as a change; a history row opens its version, diffs it against now and restores it.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { LbdeskPage } from './pages/lbdesk';
import { startPushSite, type PushSite } from './pages/push-site';
import { haveSshd, noSshd } from '../helpers/sshd';

let site: PushSite | undefined;

test.skip(!haveSshd, noSshd);
test.beforeAll(async () => {
  site = await startPushSite('history-e2e', '127.0.8.84', '127.0.8.85');
});
test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

async function pushNow(page: Page): Promise<void> {
  await page.getByLabel('Commit-confirmed within').setChecked(false);
  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('push-report')).toContainText(/Applied|Unchanged/, { timeout: 20_000 });
}

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: diff full width; history opened, diffed${width === 1440 ? ' and restored' : ''}`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(site!.workspaceFile, 'history-e2e');
    await page.keyboard.press('Control+6');
    await app.diff();
    if (!(await page.getByTestId('no-change').isVisible())) await pushNow(page);
    const first = readFileSync(site!.live, 'utf8');

    // An edit that changes one word of one server line.
    await page.keyboard.press('Control+2');
    await app.input('servers.0.address').fill(width === 1440 ? '127.0.0.22' : '127.0.0.23');
    await page.keyboard.press('Control+6');
    await app.diff();
    const diff = page.getByTestId('diff');
    await expect(page.getByTestId('diff-added')).toHaveText('+1');
    await expect(page.getByTestId('diff-removed')).toHaveText('−1');
    // The header's hash is named once above the diff, never a changed line.
    await expect(page.getByTestId('diff-hash')).toContainText('workspace hash');
    await expect(diff.locator('.dl.add, .dl.del')).not.toContainText(['# lbdesk:']);
    // Only the changed section is open; the others are folded to their names.
    const sections = diff.getByTestId('diff-section');
    expect(await sections.count()).toBeGreaterThan(1);
    await expect(diff.locator('[data-testid="diff-section"][aria-expanded="true"]')).toHaveCount(1);
    await expect(diff.locator('[data-testid="diff-section"][aria-expanded="true"]')).toContainText('backend');
    // The changed word is marked, not the whole line.
    await expect(diff.locator('.dl.add .w')).toHaveText(width === 1440 ? '127.0.0.22:8081' : '127.0.0.23:8081');
    // Full width: the diff takes the width of the section, not a column beside the history.
    const main = (await page.locator('.master').boundingBox())!;
    const box = (await diff.boundingBox())!;
    expect(box.width).toBeGreaterThan(main.width - 40);
    // Side by side: the old line left, the new one right, each with its word marked.
    await page.getByTestId('diff-split').click();
    // The layout switch keeps each word on one line, also beside a long file name at 1024.
    expect((await page.getByTestId('diff-split').boundingBox())!.height).toBeLessThan(24);
    await expect(diff.locator('.pair .half.del .w')).toHaveText(/127\.0\.0\.2[12]:8081/);
    await expect(diff.locator('.pair .half.add .w')).toHaveCount(1);
    await app.screenshot(`diff-split-${width}`);
    await page.getByTestId('diff-unified').click();
    await app.screenshot(`diff-unified-${width}`);
    if (width === 1024) {
      // The small window: the version view's diff has the whole width too (the restore flow is the 1440 run's).
      await page.getByTestId('tab-history').click();
      await page.getByTestId('push-history').locator('tbody tr').first().click();
      await expect(page.getByTestId('version-view').getByTestId('diff-added')).toHaveText('+1');
      expect((await page.getByTestId('version-view').getByTestId('diff').boundingBox())!.width).toBeGreaterThan(main.width - 40);
      await app.screenshot('history-version-1024');
      app.expectNoErrors();
      return;
    }
    await pushNow(page);

    // History: the first version opens, diffs against the workspace now, and is restored.
    await page.getByTestId('tab-history').click();
    const rows = page.getByTestId('push-history').locator('tbody tr');
    await expect(rows.first()).toBeVisible();
    const hash = (await import('node:crypto')).createHash('sha256').update(first).digest('hex').slice(0, 12);
    await rows.filter({ hasText: hash }).first().click();
    const version = page.getByTestId('version-view');
    await expect(version).toContainText(hash);
    await expect(version.getByTestId('diff-added')).toHaveText('+1');
    await expect(version.locator('.dl.add .w')).toHaveText(/127\.0\.0\.2[12]:8081/);
    await page.getByTestId('version-against').selectOption({ label: 'running on e2e-sshd now' });
    await expect(version).toContainText('running on e2e-sshd now → this version');
    await expect(version.getByTestId('diff-removed')).toHaveText('−1');
    await app.screenshot('history-version-1440');
    await page.getByLabel('Commit-confirmed within').setChecked(true);
    await page.getByTestId('version-restore').click();
    await page.getByTestId('version-restore-go').click();
    await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 20_000 });
    expect(readFileSync(site!.live, 'utf8')).toBe(first);
    await page.getByTestId('confirm-button').click();
    await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
    await expect(page.getByTestId('push-history').locator('tbody tr').first()).toContainText('restore');

    // The History section's rows open the same version view.
    await page.keyboard.press('Control+8');
    await page.getByTestId('history-pushes').locator('tbody tr').filter({ hasText: hash }).first().click();
    await expect(page.getByTestId('version-view')).toContainText(hash);
    app.expectNoErrors();
  });
}
