// Workspace files at both window sizes: New on the header (and Alt+Shift+N in a browser tab), a
// path field that takes absolute and relative paths with clear errors, the lab saying which file
// it runs and offering the switch, and "Apply edits" only for edits the lab runs.
import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir, demoPath } from './pages/env';

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: new workspace by path; the lab names its file and offers the switch`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const dir = mkdtempSync(join(dataDir(), 'files-'));

    // A folder that does not exist is said before anything is written.
    await page.getByTestId('new-workspace').click();
    const dialog = page.getByRole('dialog', { name: 'New workspace' });
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('save-name').fill(join(dir, 'missing', 'site-b.yaml'));
    await expect(dialog.getByTestId('save-where')).toHaveText(`Creates ${join(dir, 'missing', 'site-b.yaml')}`);
    await dialog.getByTestId('save-submit').click();
    await expect(dialog.getByTestId('save-where')).toHaveText(`There is no folder ${join(dir, 'missing')}: create it first, or choose another folder.`);
    // An absolute path is taken as it is, not glued onto the folder shown.
    await dialog.getByTestId('save-name').fill(join(dir, 'site-b.yaml'));
    await app.screenshot(`files-new-${width}`);
    await dialog.getByTestId('save-submit').click();
    await expect(app.name).toHaveText('site-b');
    expect(existsSync(join(dir, 'site-b.yaml'))).toBe(true);

    // Relative to the folder shown (the open file's), from the keyboard.
    await page.keyboard.press('Alt+Shift+N');
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('save-name').fill('sub/../site-c');
    await expect(dialog.getByTestId('save-where')).toHaveText(`Creates ${join(dir, 'site-c.yaml')}`);
    await dialog.getByTestId('save-name').press('Enter');
    await expect(app.name).toHaveText('site-c');

    // The lab on the demo, then another file opened: said, with the switch and the way back.
    await app.open(demoPath(), 'lab-site-a');
    await app.startLab();
    await expect(page.getByTestId('status-lab')).toContainText('Lab (lab-site-a.yaml)');
    // Edits the lab does not run (the site's description) do not ask to apply; a server's address does.
    await page.keyboard.press('Control+1');
    await page.locator('div.side').getByLabel('Description', { exact: true }).fill('edited, not run');
    await expect(page.getByRole('button', { name: 'Apply edits', exact: true })).toHaveCount(0);
    await page.keyboard.press('Control+2');
    await app.input('servers.0.address').fill('127.0.0.29');
    await expect(page.getByRole('button', { name: 'Apply edits', exact: true })).toBeVisible();
    await page.keyboard.press('Control+z');
    await expect(page.getByRole('button', { name: 'Apply edits', exact: true })).toHaveCount(0);

    await app.open(join(dir, 'site-b.yaml'), 'site-b');
    const banner = page.getByTestId('lab-other-file');
    await expect(banner).toContainText('The lab runs lab-site-a.yaml, not site-b.yaml');
    await expect(app.labState).toHaveText('Lab runs lab-site-a.yaml');
    await expect(page.getByTestId('status-lab')).toHaveText('Lab runs lab-site-a.yaml, not this file');
    await app.screenshot(`files-lab-other-${width}`);
    await banner.getByRole('button', { name: 'Open lab-site-a.yaml' }).click();
    await expect(app.name).toHaveText('lab-site-a');
    await expect(banner).toHaveCount(0);
    app.expectNoErrors();
  });
}
