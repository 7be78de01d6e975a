// The import dialog offers every driver the contract says has an importer (the vendor dialects
// too): a published ADX running config imported into a new workspace through the dialog, its
// report listing imported, approximated and kept rows, at both window sizes.
import { expect, test } from '@playwright/test';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';

const FIXTURE = resolve(__dirname, '../fixtures/import/adx/brocade-vtm-translator.cfg');

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a new workspace from an ADX running config; the report has imported, approximated and kept rows`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const dir = mkdtempSync(join(dataDir(), 'import-adx-'));
    const config = join(dir, 'running.cfg');
    copyFileSync(FIXTURE, config);

    await page.getByTestId('import-new').click();
    const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
    const select = dialog.getByTestId('import-driver');
    await expect(select.locator('option')).toHaveText(['haproxy', 'keepalived', 'adx', 'a10', 'netscaler', 'f5', 'pingdirectory']);
    await dialog.getByTestId('import-config').fill(config);
    await select.selectOption('adx');
    await dialog.getByTestId('import-out').fill(join(dir, 'site.yaml'));
    await dialog.getByTestId('import-submit').click();

    await expect(dialog.getByTestId('import-summary')).toHaveText('2 servers, 1 group, 1 service; 3 imported, 1 approximated, 13 kept on the appliance');
    expect(existsSync(join(dir, 'site.yaml'))).toBe(true);
    await expect(dialog.getByRole('row').filter({ hasText: 'server real rs2' }).first()).toContainText('imported');
    await expect(dialog.getByRole('row').filter({ hasText: 'approximated' })).toHaveCount(1);
    await dialog.getByTestId('kind-kept').click();
    await expect(dialog.getByRole('row').filter({ hasText: 'kept' }).first()).toBeVisible();
    await app.screenshot(`import-adx-report-${width}`);
    await dialog.getByTestId('import-open').click();
    await expect(app.name).toHaveText('site');
    app.expectNoErrors();
  });
}
