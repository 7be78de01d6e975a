// One time format and the Overview's column names, at both window sizes: local HH:MM:SS on
// screen with the ISO instant in the tooltip, and headers that explain score and connections.
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';

test.afterEach(async ({ page }) => {
  await new LbdeskPage(page).stopLab().catch(() => undefined);
});

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: Overview column headers; check times as HH:MM:SS with ISO tooltips`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const cols = page.getByTestId('overview-columns');
    await expect(cols).toBeVisible();
    await expect(cols.getByText('Score', { exact: true })).toBeVisible();
    await expect(cols.getByText('Conn.', { exact: true })).toBeVisible();
    await expect(cols.getByText('Conn.', { exact: true })).toHaveAttribute('title', 'Connections open now / since the lab started');
    // Header and rows line up: the score header sits over the members' scores.
    const head = await cols.locator('.c-score').boundingBox();
    const cell = await page.locator('.row-member .c-score').first().boundingBox();
    expect(Math.abs(head!.x - cell!.x)).toBeLessThan(2);

    await app.startLab();
    const member = page.locator('[data-member]').first();
    await member.click();
    const log = page.getByTestId('check-log');
    const first = log.locator('td.t').first();
    await expect(first).toHaveText(/^\d{2}:\d{2}:\d{2}$/, { timeout: 15_000 });
    await expect(first).toHaveAttribute('title', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await app.screenshot(`times-overview-${width}`);
    app.expectNoErrors();
  });
}
