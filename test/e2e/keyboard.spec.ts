// The keyboard alone: a dialog keeps the focus however far Tab goes, and Escape closes it.
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';

test('Tab and Shift+Tab wrap inside the Open dialog; Escape closes it', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await page.keyboard.press('Control+o');
  const dialog = page.locator('dialog[open]');
  await expect(dialog).toBeVisible();
  const inside = () => dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement));
  const stops = await dialog.evaluate((d) => d.querySelectorAll('button, input, select, textarea, a[href], [tabindex]:not([tabindex="-1"])').length);
  for (let i = 0; i < stops + 2; i++) {
    await page.keyboard.press('Tab');
    expect(await inside(), `after Tab ${i + 1}`).toBe(true);
  }
  for (let i = 0; i < stops + 2; i++) {
    await page.keyboard.press('Shift+Tab');
    expect(await inside(), `after Shift+Tab ${i + 1}`).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  expect(app.errors).toEqual([]);
});

test('a dialog closed gives the focus back to what opened it; F1 says how to make a new workspace in a browser tab', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  const open = page.getByRole('button', { name: 'Open (Ctrl+O)' });
  await open.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('dialog[open]')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.locator('dialog[open]')).toHaveCount(0);
  await expect(open).toBeFocused();
  await page.keyboard.press('F1');
  await expect(page.locator('dialog[open]')).toContainText('New workspace… (a browser tab keeps Ctrl+N: use Alt+Shift+N or the header\'s + button)');
  await page.keyboard.press('Escape');
  expect(app.errors).toEqual([]);
});
