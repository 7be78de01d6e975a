// Issue 30 item 13: the diff is read, not squeezed. At 1024 side by side a changed word at the end
// of a long line is reached by scrolling, never cut; at 1440 the last push's report and steps
// leave the diff most of the panel.
import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { startPushSite, type PushSite } from './pages/push-site';
import { haveSshd, noSshd } from '../helpers/sshd';

let site: PushSite | undefined;
test.skip(!haveSshd, noSshd);
test.beforeAll(async () => {
  site = await startPushSite('diff-room', '127.0.8.94', '127.0.8.95');
});
test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

/** The box holds what the workspace renders, but its long server line ends differently (a colleague's edit). */
function boxEditedAtLineEnd(): void {
  const cli = join(__dirname, '../../bin/lbdesk.cjs');
  const text = execFileSync(process.execPath, [cli, 'render', site!.workspaceFile, '--appliance', 'e2e-sshd'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  expect(text).toMatch(/on-error fastinter$/m);
  writeFileSync(site!.live, text.replace(/on-error fastinter$/m, 'on-error mark-down'));
}

/** Every changed word the diff marks is whole inside its line's box, and scrolled to, inside the diff's viewport. */
async function changedWordsReachable(page: Page): Promise<number> {
  const words = page.getByTestId('diff').locator('.w');
  await expect(words.first()).toBeVisible();
  const n = await words.count();
  for (let i = 0; i < n; i++) {
    const w = words.nth(i);
    await w.scrollIntoViewIfNeeded();
    const r = await w.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const clip = [el.closest('.half'), el.closest('.dl'), el.closest('.dbody')].flatMap((x) => (x ? [x.getBoundingClientRect()] : []));
      return { text: el.textContent, cut: clip.some((c) => box.left < c.left - 0.5 || box.right > c.right + 0.5) };
    });
    expect(r.cut, `changed word "${r.text}" is cut`).toBe(false);
  }
  return n;
}

test('1024×700, side by side: the changed words at the end of a 146-character line are scrolled to, not cut', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  boxEditedAtLineEnd();
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'diff-room');
  await page.keyboard.press('Control+6');
  await app.diff();
  await page.getByTestId('diff-split').click();
  await expect(page.getByTestId('diff')).toHaveClass(/split/);
  const n = await changedWordsReachable(page);
  expect(n).toBeGreaterThanOrEqual(2);
  await app.screenshot('diff-room-1024-split');
  // Unified as well: the same words, one line each.
  await page.getByTestId('diff-unified').click();
  await changedWordsReachable(page);
  app.expectNoErrors();
});

test('1440×900, after a push with its steps and report: the diff keeps most of the panel and long lines scroll', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  boxEditedAtLineEnd();
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'diff-room');
  await page.keyboard.press('Control+6');
  await app.diff();
  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('push-report')).toContainText('Applied', { timeout: 15_000 });
  await expect(page.getByTestId('no-change')).toBeVisible({ timeout: 15_000 });
  const steps = await page.getByTestId('push-progress').locator('li').count();
  expect(steps).toBeGreaterThanOrEqual(8);
  // The box changes again: the new diff shows with the last push's report and steps still there.
  boxEditedAtLineEnd();
  await page.getByTestId('diff-button').click();
  await expect(page.getByTestId('diff')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('push-report')).toBeVisible();
  await page.getByTestId('diff-split').click();
  const room = async () => {
    const panel = (await page.locator('section.push').boundingBox())!.height;
    const body = page.getByTestId('diff').locator('.dbody');
    const diff = (await body.boundingBox())!.height;
    return { panel, diff, lines: Math.floor((await body.evaluate((el) => el.clientHeight)) / 20) };
  };
  const closed = await room();
  expect(closed.diff, `diff ${closed.diff}px of a ${closed.panel}px push panel`).toBeGreaterThanOrEqual(closed.panel * 0.6);
  expect(closed.lines).toBeGreaterThanOrEqual(13);
  // The steps opened (keyboard: the summary is a button) scroll in their own few lines.
  await page.getByTestId('push-progress').locator('summary').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('push-progress')).toHaveAttribute('open', '');
  const open = await room();
  expect(open.diff, `diff ${open.diff}px of a ${open.panel}px push panel with ${steps} steps open`).toBeGreaterThanOrEqual(open.panel * 0.45);
  expect(open.lines).toBeGreaterThanOrEqual(10);
  test.info().annotations.push({ type: 'room', description: `panel ${closed.panel}px: diff ${closed.diff}px (${closed.lines} lines), steps open ${open.diff}px (${open.lines} lines)` });
  await changedWordsReachable(page);
  await app.screenshot('diff-room-1440-after-push');
  app.expectNoErrors();
});
