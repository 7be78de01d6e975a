// Issue 30 item 14: the import report's kind badges are whole ("approximated", not "approximate…"),
// at both window sizes, and the summary counts in the singular where there is one.
import { expect, test } from '@playwright/test';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';

const FIXTURE = resolve(__dirname, '../fixtures/import/debian-tls.cfg');
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: every kind badge of the import report is whole`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const dir = mkdtempSync(join(dataDir(), 'badges-'));
    copyFileSync(FIXTURE, join(dir, 'haproxy.cfg'));
    await page.getByTestId('import-new').click();
    const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
    await dialog.getByTestId('import-config').fill(join(dir, 'haproxy.cfg'));
    await expect(dialog.getByTestId('import-driver')).toHaveValue('haproxy');
    await dialog.getByTestId('import-out').fill(join(dir, 'site.yaml'));
    await dialog.getByTestId('import-submit').click();
    await expect(dialog.getByTestId('import-summary')).toContainText('1 service;');
    const badges = dialog.getByRole('grid', { name: 'Import report' }).locator('.kind');
    await expect(badges.first()).toBeVisible();
    const seen = await badges.evaluateAll((els) => els.map((el) => {
      const cell = el.parentElement!;
      const b = el.getBoundingClientRect();
      const c = cell.getBoundingClientRect();
      return { text: el.textContent, whole: b.right <= c.right + 0.5 && cell.scrollWidth <= cell.clientWidth };
    }));
    expect(seen.map((s) => s.text)).toContain('approximated');
    expect(seen.filter((s) => !s.whole)).toEqual([]);
    await app.screenshot(`import-badges-${width}`);
    await page.keyboard.press('Escape');
    app.expectNoErrors();
  });
}
