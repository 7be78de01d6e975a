import { expect, test } from '@playwright/test';

test('browser mode loads the demo workspace with no console errors', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(process.env.LBDESK_URL!);
  await expect(page.getByTestId('workspace-name')).toHaveText('lab-site-a');
  // The token leaves the address bar once the page holds it.
  expect(page.url()).not.toContain('token=');
  await page.screenshot({ path: 'test-results/screenshots/smoke.png', fullPage: true });
  expect(errors).toEqual([]);
});
