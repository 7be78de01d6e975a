// Issue 30 item 8 (part): the open workspace file is watched. Another editor's save is noticed
// when it lands — not at the next save: with nothing unsaved the window follows the file and says
// how much changed; with unsaved edits it says the file changed at once and keeps the edits.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

const SITE = ['# shared site: comments are kept', 'lbdesk: 1', 'name: shared', 'servers:', '  - { name: web1, address: 192.0.2.11 }   # rack 4', ''].join('\n');

test('a colleague saves the open file: followed and said (+/− lines); with unsaved edits, said at once, edits kept', async ({ page }) => {
  const app = new LbdeskPage(page);
  const dir = mkdtempSync(join(dataDir(), 'disk-'));
  const file = join(dir, 'shared.yaml');
  writeFileSync(file, SITE);
  await app.goto();
  await app.open(file, 'shared');
  await page.keyboard.press('Control+2');
  await expect(page.getByTestId('nav-servers')).toContainText('1');

  // Nothing unsaved: the colleague's server appears, with a notice of what changed.
  writeFileSync(file, SITE.replace('   # rack 4\n', '   # rack 4\n  - { name: web2, address: 192.0.2.12 }\n'));
  await expect(page.getByText('The file changed on disk and was reloaded: +1 −0 lines.')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('nav-servers')).toContainText('2');
  await expect(app.dirty).toBeHidden();

  // Unsaved edits: the banner comes when the file changes, before any save; the edit stays.
  await page.keyboard.press('Control+1');
  await page.getByLabel('Description', { exact: true }).fill('mine, unsaved');
  await expect(app.dirty).toBeVisible();
  writeFileSync(file, readFileSync(file, 'utf8').replace('name: shared', 'name: shared\ndescription: theirs'));
  await expect(page.getByText('The file changed on disk since you opened it.')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByLabel('Description', { exact: true })).toHaveValue('mine, unsaved');
  await expect(app.dirty).toBeVisible();
  // Saving anyway: refused, and "Overwrite with mine" says which of their lines it would drop.
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('overwrite-drops')).toContainText('"Overwrite with mine" drops 1 line only the file on disk has');
  await expect(page.getByTestId('overwrite-drops')).toContainText('description: theirs');
  app.expectNoErrors();
});
