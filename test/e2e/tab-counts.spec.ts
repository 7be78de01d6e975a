// Issue 30 item 12: the first weight and Push are a few keystrokes from the top of the window —
// skip links to the editor and to Push, one Tab stop for the sections — at 1440 and 1024.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';
import { startPushSite, type PushSite } from './pages/push-site';
import { haveSshd, noSshd } from '../helpers/sshd';

/** Presses `key` until `target` has the focus; how many presses it took (fails past `max`). */
async function pressUntil(page: Page, key: string, target: Locator, max: number): Promise<number> {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press(key);
    if ((await target.count()) && (await target.evaluate((el) => el === el.ownerDocument.activeElement))) return n;
  }
  throw new Error(`${key} ${max} times never reached the target`);
}

/** A fresh window on `section` (its Ctrl+digit), the focus at the top of the page. */
async function fresh(app: LbdeskPage, key: string): Promise<void> {
  await app.page.reload();
  await expect(app.name).not.toHaveText(/^(Opening…|lbdesk)$/);
  await app.page.keyboard.press(key);
}

for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
  test.describe(`${size.width}×${size.height}`, () => {
    test.use({ viewport: size });

    test('the first member weight: Tab, Tab, Enter to the group editor, then a few Tabs; the sections are one Tab stop', async ({ page }) => {
      const app = new LbdeskPage(page);
      await app.goto();
      const weight = page.getByLabel('Member 1 weight', { exact: true });

      await fresh(app, 'Control+3');
      await expect(weight).toBeVisible();
      const tabs = await pressUntil(page, 'Tab', weight, 60);
      // Was 41 (42 at 1024, where the editor scrolls): nine section buttons each a stop. Now the
      // shown section is the one stop (and one more skip link).
      expect(tabs).toBeLessThanOrEqual(size.width === 1440 ? 34 : 35);

      await fresh(app, 'Control+3');
      await pressUntil(page, 'Tab', page.getByTestId('skip-editor'), 3);
      await expect(page.getByTestId('skip-editor')).toBeInViewport();
      await page.keyboard.press('Enter');
      await expect(page.getByRole('complementary', { name: 'group editor' }).locator(':focus')).toHaveCount(1);
      const inEditor = await pressUntil(page, 'Tab', weight, 10);
      const total = 2 + 1 + inEditor;
      expect(total, `Tab ×2, Enter, Tab ×${inEditor}`).toBeLessThanOrEqual(10);
      test.info().annotations.push({ type: 'keystrokes', description: `${size.width}: first weight ${tabs} Tabs, or ${total} keys by the skip link` });

      // The sections by arrows from their one stop.
      await page.getByTestId('nav-groups').focus();
      await page.keyboard.press('ArrowDown');
      await expect(page.getByTestId('nav-services')).toBeFocused();
      await page.keyboard.press('End');
      await expect(page.getByTestId('nav-operate')).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await expect(page.getByTestId('nav-overview')).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('nav-overview')).toHaveAttribute('aria-current', 'page');
      app.expectNoErrors();
    });

    test('Push: Tab ×3, Enter shows the diff, and Push is a few keys on', async ({ page }) => {
      test.skip(!haveSshd, noSshd);
      let site: PushSite | undefined;
      try {
        site = await startPushSite(`tabs-${size.width}`, '127.0.8.96', '127.0.8.97');
        const app = new LbdeskPage(page);
        await app.goto();
        await app.open(site.workspaceFile, `tabs-${size.width}`);
        // The host key pinned once and saved, as a user who pushed here before.
        await page.keyboard.press('Control+6');
        await app.diff();
        await app.save();

        await fresh(app, 'Control+6');
        const skip = page.getByTestId('skip-push');
        await pressUntil(page, 'Tab', skip, 3);
        await expect(skip).toHaveText('Skip to Push');
        await page.keyboard.press('Enter');
        // No diff yet: Push waits for one, so the link lands on Show diff.
        await expect(page.getByTestId('diff-button')).toBeFocused();
        await page.keyboard.press('Enter');
        await expect(page.getByTestId('diff')).toBeVisible({ timeout: 20_000 });
        const push = page.getByTestId('push-button');
        await expect(push).toBeEnabled();
        const back = await pressUntil(page, 'Shift+Tab', push, 6);
        const total = 3 + 1 + 1 + back;
        expect(total, `Tab ×3, Enter, Enter, Shift+Tab ×${back}`).toBeLessThanOrEqual(9);
        // Or with the diff on screen, the skip link goes to Push itself.
        await skip.focus();
        await page.keyboard.press('Enter');
        await expect(push).toBeFocused();
        test.info().annotations.push({ type: 'keystrokes', description: `${size.width}: Push in ${total} keys` });
        app.expectNoErrors();
      } finally {
        await new LbdeskPage(page).reopenDemo();
        await site?.stop();
      }
    });
  });
}
