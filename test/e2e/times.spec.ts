// One time format and the Overview's column names, at both window sizes: local HH:MM:SS on
// screen with the ISO instant in the tooltip, and headers that explain score and connections.
import { expect, test } from '@playwright/test';
import { connect } from 'node:net';
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

test.describe('in a time zone far from UTC', () => {
  test.use({ timezoneId: 'Asia/Kathmandu' });

  test('History shows engine events and state changes in local time, the ISO instant in the tooltip', async ({ page }) => {
    const app = new LbdeskPage(page);
    await app.goto();
    await app.startLab();
    // ldap-vip forwards only to dir1, which the demo leaves down: a connection is refused, an engine event.
    await expect.poll(async () => {
      await new Promise<void>((done) => {
        const s = connect({ host: '127.0.0.10', port: 1389 }, () => s.end());
        s.on('close', () => done()).on('error', () => done()).setTimeout(2000, () => s.destroy());
      });
      await page.keyboard.press('Control+8');
      return page.getByTestId('engine-events').locator('.t').count();
    }, { timeout: 15_000 }).toBeGreaterThan(0);
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Kathmandu', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    for (const list of ['engine-events', 'lab-events']) {
      const t = page.getByTestId(list).locator('.t').first();
      const iso = (await t.getAttribute('title')) ?? '';
      expect(iso, list).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      await expect(t, list).toHaveText(local.format(new Date(iso)));
    }
    app.expectNoErrors();
  });
});
