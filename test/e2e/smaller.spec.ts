// Smaller things of issue 30: a paste's problems are links to their line (selected in the text
// box, by click or keyboard) and the bad rows are marked in the preview.
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';

test('Paste…: a problem selects its line in the text; the bad row is marked', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await page.keyboard.press('Control+2');
  await page.getByTestId('paste-servers').click();
  const dialog = page.getByRole('dialog', { name: 'Add many servers' });
  const text = dialog.getByTestId('paste-text');
  const lines = ['web7, 127.0.0.27, 8081', 'web8, 127.0.0.300, 8081', 'web9, 127.0.0.29, 8081'];
  await text.fill(lines.join('\n'));
  const issue = dialog.getByTestId('paste-issue');
  await expect(issue).toHaveText('line 2, address');
  await expect(dialog.getByTestId('paste-preview').locator('tr[data-bad]')).toHaveCount(1);
  await expect(dialog.getByTestId('paste-preview').locator('tr[data-bad]')).toContainText('web8');

  await issue.click();
  await expect(text).toBeFocused();
  const selected = () => text.evaluate((t) => { const a = t as unknown as { value: string; selectionStart: number; selectionEnd: number }; return a.value.slice(a.selectionStart, a.selectionEnd); });
  expect(await selected()).toBe(lines[1]);

  // The keyboard: the problem is a button in the tab order.
  await text.evaluate((t) => (t as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(0, 0));
  await issue.focus();
  await page.keyboard.press('Enter');
  await expect(text).toBeFocused();
  expect(await selected()).toBe(lines[1]);
  await app.screenshot('paste-issue-selected');
  await page.keyboard.press('Escape');
  app.expectNoErrors();
});

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a sticky VIP says so beside the shares its weights promise`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    // The service's editor: beside the promised shares, offline as well as in the lab.
    await page.keyboard.press('Control+4');
    await page.getByRole('grid', { name: 'Virtual services' }).getByRole('gridcell', { name: 'web-vip', exact: true }).click();
    await expect(page.getByTestId('share-persistence')).toContainText('Client-IP persistence (300s): each client address stays on one member');
    await page.getByTestId('share-persistence').scrollIntoViewIfNeeded();
    await expect(page.getByTestId('share-persistence')).toBeInViewport();
    await page.getByRole('grid', { name: 'Virtual services' }).getByRole('gridcell', { name: 'ldap-vip', exact: true }).click();
    await expect(page.getByTestId('share-persistence')).toHaveCount(0);
    await app.screenshot(`sticky-${width}`);
    app.expectNoErrors();
  });
}

test('Paste… in Real servers preselects the group selected in Server groups (and in Server groups, that group)', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await page.keyboard.press('Control+3');
  const grid = page.getByRole('grid', { name: 'Server groups' });
  const second = grid.getByRole('row').nth(2);
  const name = (await second.getByRole('gridcell').first().innerText()).trim();
  await second.getByRole('gridcell').first().click();
  const target = page.getByRole('dialog', { name: 'Add many servers' }).getByTestId('paste-target');
  await page.getByTestId('paste-servers').click();
  await expect(target.locator('option:checked')).toHaveText(`Real servers and group ${name}`);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+2');
  await page.getByTestId('paste-servers').click();
  await expect(target.locator('option:checked')).toHaveText(`Real servers and group ${name}`);
  // Still the user's choice: servers only is one keystroke away.
  await target.selectOption({ label: 'Real servers only' });
  await expect(target.locator('option:checked')).toHaveText('Real servers only');
  await page.keyboard.press('Escape');
  app.expectNoErrors();
});
