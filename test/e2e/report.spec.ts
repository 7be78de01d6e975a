// The change report in one click, at both window sizes: the header's button asks the demo's
// appliance (it cannot be asked here: said so), writes HTML and Markdown beside the workspace with
// the text on screen and the running lab, and offline makes it again without asking.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';

test.afterEach(async ({ page }) => {
  await new LbdeskPage(page).reopenDemo().catch(() => undefined);
});

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: Change report from the header: files written, appliance row, unsaved edits and the lab in it`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await app.startLab();
    // An unsaved edit: the report is of the text on screen, and says so.
    await page.keyboard.press('Control+1');
    await page.locator('div.side').getByLabel('Description', { exact: true }).fill(`report at ${width}`);
    await expect(page.getByTestId('dirty')).toBeVisible();

    await page.getByTestId('change-report').click();
    const dialog = page.getByRole('dialog', { name: 'Change report' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('report-summary')).toHaveText('lab-site-a: valid', { timeout: 30_000 });
    await expect(dialog.getByTestId('report-appliances').getByRole('row', { name: /lab-haproxy/ })).toContainText('could not be asked');
    const [htmlPath, mdPath] = (await dialog.getByTestId('report-paths').locator('li').allTextContents()).map((s) => s.trim());
    expect(htmlPath).toMatch(/\/reports\/lab-site-a-change-\d{8}-\d{6}Z(-\d+)?\.html$/);
    const md = readFileSync(mdPath!, 'utf8');
    expect(md).toContain('with unsaved edits');
    expect(md).toMatch(/\| \*\*Lab\*\* \| running this workspace/);
    expect(md).toContain('| **Why not asked** |');
    await expect(dialog.getByTestId('report-markdown')).toHaveText(md.trimEnd(), { useInnerText: true });
    expect(readFileSync(htmlPath!, 'utf8')).toContain('<title>Change report: lab-site-a</title>');
    // In a browser tab the files can be downloaded too.
    const download = page.waitForEvent('download');
    await dialog.getByRole('link', { name: 'Download HTML' }).click();
    expect((await download).suggestedFilename()).toBe(htmlPath!.split('/').pop());
    await app.screenshot(`report-${width}`);

    await dialog.getByLabel('Offline (do not contact the appliances)').check();
    await dialog.getByTestId('report-again').click();
    await expect(dialog.getByTestId('report-appliances')).toContainText('not asked (offline report)');
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await expect(dialog).toBeHidden();
    app.expectNoErrors();
  });
}
