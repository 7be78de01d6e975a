// Many servers at once, at both window sizes: Shift / Ctrl(Cmd) selection by mouse and keyboard
// in Real servers and in a group's members, a visible count, and bulk actions that are one undo
// step each.
import { expect, test, type Page } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';

const grid = (page: Page) => page.getByRole('grid', { name: 'Real servers' });
const row = (page: Page, name: string) => grid(page).getByRole('row').filter({ has: page.getByRole('gridcell', { name, exact: true }) });

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: select many servers and members; bulk actions undo in one step`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await page.keyboard.press('Control+2');
    const count = page.getByTestId('selection-count');
    const bar = page.getByTestId('bulk-bar');

    // Mouse: a click, Shift+click a range, Ctrl+click one more.
    await row(page, 'web1').click();
    await expect(bar).toBeHidden();
    await row(page, 'dir1').click({ modifiers: ['Shift'] });
    await expect(count).toHaveText('3 servers selected');
    await expect(grid(page).locator('[aria-selected="true"]')).toHaveCount(3);
    await row(page, 'web2').click({ modifiers: ['ControlOrMeta'] });
    await expect(count).toHaveText('2 servers selected');
    await row(page, 'dns1').click({ modifiers: ['ControlOrMeta'] });
    await expect(count).toHaveText('3 servers selected');
    await app.screenshot(`bulk-servers-${width}`);

    await page.getByTestId('bulk-disable').click();
    await expect(grid(page).getByTestId('state').filter({ hasText: 'disabled' })).toHaveCount(3);
    await page.keyboard.press('Control+z');
    // One step back: only dns1, disabled in the file, stays so.
    await expect(grid(page).getByTestId('state').filter({ hasText: 'disabled' })).toHaveCount(1);
    await page.keyboard.press('Control+Shift+z');
    await expect(grid(page).getByTestId('state').filter({ hasText: 'disabled' })).toHaveCount(3);
    await page.keyboard.press('Control+z');
    await expect(grid(page).getByTestId('state').filter({ hasText: 'disabled' })).toHaveCount(1);

    // Keyboard: Shift+arrows extend, Ctrl+A takes all, Esc goes back to one.
    await row(page, 'web1').click();
    await grid(page).focus();
    await page.keyboard.press('Shift+ArrowDown');
    await expect(count).toHaveText('2 servers selected');
    await page.keyboard.press('Control+a');
    await expect(count).toHaveText('4 servers selected');
    await page.keyboard.press('Escape');
    await expect(bar).toBeHidden();

    // A group's members: row numbers pick, weight by percent, out of range refused.
    await page.keyboard.press('Control+3');
    await page.getByRole('grid', { name: 'Server groups' }).getByRole('row').filter({ hasText: 'web' }).first().click();
    const picks = page.getByTestId('member-pick');
    await picks.nth(0).click();
    await expect(count).toHaveText('1 member selected');
    await picks.nth(0).press('Shift+ArrowDown');
    await expect(count).toHaveText('2 members selected');
    await page.getByTestId('bulk-weight').fill('+10%');
    await page.getByTestId('bulk-weight-set').click();
    await expect(app.input('groups.0.members.0.weight')).toHaveValue('110');
    await expect(app.input('groups.0.members.1.weight')).toHaveValue('220');
    await page.getByTestId('bulk-weight').fill('70000');
    await page.getByTestId('bulk-weight').press('Enter');
    await expect(page.getByTestId('bulk-error')).toHaveText('weight 70000 is out of range (0-65535)');
    await app.screenshot(`bulk-members-${width}`);
    await page.keyboard.press('Control+z');
    await expect(app.input('groups.0.members.0.weight')).toHaveValue('100');
    await expect(app.input('groups.0.members.1.weight')).toHaveValue('200');
    await page.getByTestId('bulk-drain').click();
    await expect(app.input('groups.0.members.1.weight')).toHaveValue('0');
    await page.keyboard.press('Control+z');
    await expect(app.input('groups.0.members.1.weight')).toHaveValue('200');
    await expect(app.dirty).toBeHidden();
    app.expectNoErrors();
  });
}
