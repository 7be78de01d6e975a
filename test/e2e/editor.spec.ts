// The offline editor: edit a target set and see validation next to the field, save and reload
// keeping comments, undo/redo, keyboard navigation, both themes.
import { expect, test } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { LbdeskPage } from './pages/lbdesk';
import { demoPath } from './pages/env';

let original = '';
test.beforeAll(() => {
  original = readFileSync(demoPath(), 'utf8');
});
test.afterAll(() => {
  // Leave the demo as the next spec expects it.
  writeFileSync(demoPath(), original);
});

test('edit a target set: the vendor range shows next to the field, and in Problems', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await expect(app.name).toHaveText('lab-site-a');
  await page.keyboard.press('Control+5');
  await expect(page.getByRole('main')).toHaveAttribute('aria-label', 'Target sets');

  const weight = 'targetSets.0.servers.1.weight';
  await app.input(weight).fill('70000');
  await expect(app.messages(weight)).toHaveText(/integer from 0 to 65535/);
  await expect(app.input(weight)).toHaveAttribute('aria-invalid', 'true');
  await expect(app.problemCount).toHaveText('1');
  await expect(app.dirty).toBeVisible();
  await app.messages(weight).scrollIntoViewIfNeeded();
  await app.screenshot('editor-target-set-invalid');

  // The problem list jumps back to the field.
  await app.section('problems');
  await page.getByTestId('problem').first().click();
  await expect(app.input(weight)).toBeFocused();

  await app.input(weight).fill('300');
  await expect(app.messages(weight)).toHaveCount(0);
  await expect(app.problemCount).toHaveText('0');
  await expect(page.getByTestId('ipfe-mate')).toContainText('Standby: A2');
  app.expectNoErrors();
});

test('save and reload keep the comments and the edit', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await page.keyboard.press('Control+5');
  await app.input('targetSets.0.servers.0.weight').fill('150');
  await app.input('targetSets.0.leastLoad.allowedDeviation').fill('7');
  await app.save();

  const saved = readFileSync(demoPath(), 'utf8');
  expect(saved).toContain('weight: 150 }   # weight 0-65535 (default 100)');
  expect(saved).toMatch(/allowedDeviation: 7 +# percent, 0-50 \(default 5\)/);
  expect(saved).toContain('# An lbdesk workspace: everything a field engineer edits for one site, in one');
  expect(saved.split('\n').length).toBe(original.split('\n').length);

  await page.reload();
  await expect(app.name).toHaveText('lab-site-a');
  await page.keyboard.press('Control+5');
  await expect(app.input('targetSets.0.servers.0.weight')).toHaveValue('150');
  await expect(app.dirty).toBeHidden();
  app.expectNoErrors();
});

test('undo and redo with the keyboard, section shortcuts, and the dark theme', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await page.keyboard.press('Control+2');
  await expect(page.getByRole('main')).toHaveAttribute('aria-label', 'Real servers');
  const addr = 'servers.0.address';
  await app.input(addr).fill('127.0.0.99');
  await expect(app.dirty).toBeVisible();
  await page.keyboard.press('Control+z');
  await expect(app.input(addr)).toHaveValue('127.0.0.21');
  await expect(app.dirty).toBeHidden();
  await page.keyboard.press('Control+Shift+z');
  await expect(app.input(addr)).toHaveValue('127.0.0.99');
  await page.keyboard.press('Control+z');
  await expect(app.dirty).toBeHidden();

  await page.keyboard.press('Control+Shift+l');
  await expect(page.locator('html')).toHaveAttribute('data-theme', /dark|light/);
  await page.keyboard.press('Control+1');
  await page.emulateMedia({ colorScheme: 'dark' });
  await app.screenshot('overview-theme-toggled');
  await page.keyboard.press('Control+Shift+l');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /.+/);
  await app.screenshot('overview-dark');

  await page.keyboard.press('F1');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden();
  app.expectNoErrors();
});
