// A filter that hides the selected row takes the editor off it (to the first row shown, or to
// none), in every list; rows picked for a bulk action that it hides are let go; Enter on a row
// goes into its editor.
import { expect, test, type Page } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';
import { demoPath } from './pages/env';

const editor = (page: Page, noun: string) => page.getByRole('complementary', { name: `${noun} editor` });
const nameField = (page: Page, noun: string) => editor(page, noun).getByRole('textbox', { name: 'Name', exact: true });

async function filterTo(page: Page, list: string, text: string): Promise<void> {
  await page.getByLabel(`Filter ${list}`).fill(text);
}

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a filter moves the editor off the row it hides, in every list`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    if ((await app.name.textContent()) !== 'lab-site-a') await app.open(demoPath(), 'lab-site-a');

    await page.keyboard.press('Control+2');
    await page.getByRole('grid', { name: 'Real servers' }).getByRole('row').filter({ hasText: 'web1' }).click();
    await expect(nameField(page, 'server')).toHaveValue('web1');
    await filterTo(page, 'real servers', 'web2');
    await expect(nameField(page, 'server')).toHaveValue('web2');
    await expect(page.getByRole('grid', { name: 'Real servers' }).locator('[aria-selected="true"]')).toHaveText(/web2/);
    await filterTo(page, 'real servers', 'no-such-server');
    await expect(editor(page, 'server')).toContainText('No server selected');
    await expect(page.getByTestId('remove')).toBeDisabled();
    await filterTo(page, 'real servers', '');

    // Rows picked for a bulk action that the filter hides are let go: Disable acts on what is shown.
    const grid = page.getByRole('grid', { name: 'Real servers' });
    await grid.getByRole('row').filter({ hasText: 'web1' }).click();
    await grid.focus();
    await page.keyboard.press('Control+a');
    await expect(page.getByTestId('bulk-bar')).toBeVisible();
    await filterTo(page, 'real servers', 'web');
    await expect(grid.locator('[aria-selected="true"]')).toHaveCount(2);
    await expect(page.getByTestId('selection-count')).toHaveText('2 servers selected');
    await filterTo(page, 'real servers', '');

    await page.keyboard.press('Control+3');
    await page.getByRole('grid', { name: 'Server groups' }).getByRole('row').filter({ hasText: 'directory' }).click();
    await expect(nameField(page, 'group')).toHaveValue('directory');
    await filterTo(page, 'server groups', 'resolvers');
    await expect(nameField(page, 'group')).toHaveValue('resolvers');

    await page.keyboard.press('Control+4');
    await page.getByRole('grid', { name: 'Virtual services' }).getByRole('row').filter({ hasText: 'web-vip' }).click();
    await expect(nameField(page, 'service')).toHaveValue('web-vip');
    await filterTo(page, 'virtual services', 'dns');
    await expect(nameField(page, 'service')).toHaveValue('dns-vip');

    await page.keyboard.press('Control+5');
    await expect(editor(page, 'target set')).not.toContainText('No target set selected');
    await filterTo(page, 'target sets', 'no-such-set');
    await expect(editor(page, 'target set')).toContainText('No target set selected');
    await app.screenshot(`filter-none-${width}`);
    app.expectNoErrors();
  });
}

test('Enter on a grid row goes into its editor, on its first field', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  if ((await app.name.textContent()) !== 'lab-site-a') await app.open(demoPath(), 'lab-site-a');
  await page.keyboard.press('Control+3');
  const grid = page.getByRole('grid', { name: 'Server groups' });
  await grid.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await expect(nameField(page, 'group')).toBeFocused();
  await expect(nameField(page, 'group')).toHaveValue('resolvers');
  app.expectNoErrors();
});
