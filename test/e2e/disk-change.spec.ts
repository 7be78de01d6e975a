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

// Two engineers on one file: a colleague's save lands while edits here are unsaved.
const TEAM = [
  '# site d: hand-kept, reviewed in git',
  'lbdesk: 1',
  'name: site-d',
  '',
  'servers:                       # rack 4',
  '  - name: web1',
  '    address: 192.0.2.11        # primary',
  '  - name: web2',
  '    address: 192.0.2.12        # secondary',
  '',
].join('\n');

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a colleague edits another server on disk: merged with mine, comments kept, both saved`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    const file = join(mkdtempSync(join(dataDir(), 'merge-')), 'site-d.yaml');
    writeFileSync(file, TEAM);
    await app.goto();
    await app.open(file, 'site-d');
    await page.keyboard.press('Control+2');
    await app.input('servers.0.address').fill('192.0.2.21');
    await expect(app.dirty).toBeVisible();

    writeFileSync(file, TEAM.replace('192.0.2.12        # secondary', '192.0.2.32        # secondary, rack 5'));
    const done = page.getByTestId('merge-done');
    await expect(done).toContainText('1 change from there merged with your unsaved edits, no conflicts', { timeout: 10_000 });
    await expect(app.input('servers.0.address')).toHaveValue('192.0.2.21');
    await expect(app.dirty).toBeVisible();
    // What the merge took, from the keyboard: the file as opened, on disk, and mine.
    await done.getByTestId('merge-show').focus();
    await page.keyboard.press('Enter');
    const changes = done.getByTestId('merge-changes');
    await expect(changes).toContainText('Changed on disk — server web2 address');
    await expect(changes).toContainText('address: 192.0.2.32        # secondary, rack 5');
    await expect(changes).toContainText('Your edit — server web1 address');
    await app.screenshot(`merge-clean-${width}`);
    await app.save();
    expect(readFileSync(file, 'utf8')).toBe(TEAM.replace('192.0.2.11 ', '192.0.2.21 ').replace('192.0.2.12        # secondary', '192.0.2.32        # secondary, rack 5'));
    app.expectNoErrors();
  });

  test(`${width}×${height}: both edit the same field: the conflict shows both values, theirs chosen by keyboard, saved`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    const file = join(mkdtempSync(join(dataDir(), 'merge-')), 'site-d.yaml');
    writeFileSync(file, TEAM);
    await app.goto();
    await app.open(file, 'site-d');
    await page.keyboard.press('Control+1');
    await page.getByLabel('Description', { exact: true }).fill('mine too');
    await page.keyboard.press('Control+2');
    await page.getByRole('row').filter({ hasText: 'web2' }).first().click();
    await app.input('servers.1.address').fill('192.0.2.42');
    await expect(app.dirty).toBeVisible();

    writeFileSync(file, TEAM.replace('192.0.2.12        # secondary', '192.0.2.52        # secondary, theirs'));
    const panel = page.getByTestId('merge-panel');
    await expect(panel).toContainText('The file changed on disk since you opened it. 1 change there conflicts with your unsaved edits: choose yours or theirs for each; the other 1 change merges as it is', { timeout: 10_000 });
    const conflict = panel.getByTestId('merge-conflict');
    await expect(conflict).toContainText('server web2 address');
    await expect(conflict).toContainText('address: 192.0.2.42');
    await expect(conflict).toContainText('address: 192.0.2.52        # secondary, theirs');
    // Overwriting says what of theirs it drops before anything is dropped.
    await expect(panel.getByTestId('merge-overwrite-drops')).toContainText('"Overwrite with mine" drops 1 line only the file on disk has');
    await expect(panel.getByTestId('merge-overwrite-drops')).toContainText('address: 192.0.2.52        # secondary, theirs');
    await expect(panel.getByTestId('merge-apply')).toBeDisabled();
    await app.screenshot(`merge-conflict-${width}`);
    await panel.getByLabel('Take theirs (on disk)').focus();
    await page.keyboard.press('Space');
    await expect(panel.getByTestId('merge-apply')).toBeEnabled();
    await page.keyboard.press('Tab');
    await expect(panel.getByTestId('merge-apply')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(panel).toBeHidden();
    await expect(page.getByTestId('merge-done')).toContainText('1 of its changes taken, 0 of your conflicting edits kept over theirs');
    await expect(app.input('servers.1.address')).toHaveValue('192.0.2.52');
    await app.save();
    expect(readFileSync(file, 'utf8')).toBe(TEAM.replace('\nservers:', '\ndescription: mine too\nservers:').replace('192.0.2.12        # secondary', '192.0.2.52        # secondary, theirs'));
    app.expectNoErrors();
  });
}
