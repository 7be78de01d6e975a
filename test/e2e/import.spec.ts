// Import in the app, at both window sizes: a config file into a new workspace (driver suggested,
// the report as a table, a kept row opening its line in the source view), and an appliance's
// running config pulled from a real sshd into the open workspace as one undoable edit.
import { expect, test, type Page } from '@playwright/test';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { startPushSite, type PushSite } from './pages/push-site';
import { haveSshd, noSshd } from '../helpers/sshd';

const FIXTURE = resolve(__dirname, '../fixtures/import/debian-tls.cfg');
const STATS_LINE = readFileSync(FIXTURE, 'utf8').split('\n').indexOf('listen stats') + 1;
let site: PushSite | undefined;

test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

/** The kept row of `listen stats`, clicked: its line is highlighted and on screen in the source view. */
async function openKeptRow(page: Page, file: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('kind-kept').click();
  const row = dialog.getByRole('row').filter({ hasText: 'listen stats' });
  await row.click();
  const line = dialog.getByTestId('source-view').locator(`[data-line="${STATS_LINE}"]`);
  await expect(line).toHaveClass(/hl/);
  await expect(line).toContainText('listen stats');
  await expect(line).toBeInViewport();
  await expect(dialog.getByTestId('source-file')).toHaveText(`${file}:${STATS_LINE}`);
}

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a new workspace from a haproxy.cfg; a kept row opens its line`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const dir = mkdtempSync(join(dataDir(), 'import-'));
    const config = join(dir, 'haproxy.cfg');
    copyFileSync(FIXTURE, config);

    await page.getByTestId('import-new').click();
    const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
    await dialog.getByTestId('import-config').fill(config);
    await expect(dialog.getByTestId('import-guess')).toHaveText("The file looks like haproxy's.");
    await expect(dialog.getByTestId('import-driver')).toHaveValue('haproxy');
    await dialog.getByTestId('import-out').fill(join(dir, 'site.yaml'));
    await app.screenshot(`import-form-${width}`);
    await dialog.getByTestId('import-submit').click();

    await expect(dialog.getByTestId('import-summary')).toContainText(/^8 servers, 3 groups, 1 service; \d+ imported, \d+ approximated, \d+ kept on the appliance/);
    expect(existsSync(join(dir, 'site.yaml'))).toBe(true);
    // Sorted by kind: the column header sorts, and kept rows come after approximated ones.
    await dialog.getByRole('columnheader', { name: 'Kind' }).getByRole('button').click();
    await expect(dialog.getByRole('columnheader', { name: 'Kind' })).toHaveAttribute('aria-sort', 'ascending');
    await openKeptRow(page, config);
    await app.screenshot(`import-report-${width}`);

    await dialog.getByTestId('import-open').click();
    await expect(app.name).toHaveText('site');
    await expect(dialog).toBeHidden();
    app.expectNoErrors();
  });

  test(`${width}×${height}: a config that is not haproxy's is one file:line error, nothing written`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    const dir = mkdtempSync(join(dataDir(), 'import-bad-'));
    const config = join(dir, 'keepalived.conf');
    copyFileSync(resolve(__dirname, '../fixtures/import/keepalived-pair.conf'), config);
    await page.getByTestId('import-new').click();
    const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
    await dialog.getByTestId('import-config').fill(config);
    await expect(dialog.getByTestId('import-driver')).toHaveValue('keepalived');
    await dialog.getByTestId('import-driver').selectOption('haproxy');
    await dialog.getByTestId('import-out').fill(join(dir, 'bad.yaml'));
    await dialog.getByTestId('import-submit').click();
    await expect(dialog.getByTestId('import-summary')).toHaveText(new RegExp(`^${config}:\\d+: .*not a haproxy\\.cfg: nothing written$`));
    await expect(dialog.getByRole('row')).toHaveCount(2);
    expect(existsSync(join(dir, 'bad.yaml'))).toBe(false);
    await app.screenshot(`import-error-${width}`);
    await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
    app.expectNoErrors();
  });

  test(`${width}×${height}: import an appliance's running config into this workspace, then undo it`, async ({ page }) => {
    test.skip(!haveSshd, noSshd);
    site ??= await startPushSite('import-e2e', '127.0.8.94', '127.0.8.95');
    copyFileSync(FIXTURE, site.live);
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(site.workspaceFile, 'import-e2e');
    await page.keyboard.press('Control+6');
    await page.getByRole('row').filter({ hasText: 'e2e-sshd' }).click();
    await page.getByTestId('import-into').click();
    const dialog = page.getByRole('dialog', { name: 'Import into this workspace' });
    await expect(dialog.getByTestId('import-from')).toHaveValue('e2e-sshd');
    await dialog.getByTestId('import-submit').click();
    // The host key is asked once (the first window size); after that it is known.
    const summary = dialog.getByTestId('import-summary');
    await expect(summary.or(page.getByTestId('host-key-dialog'))).toBeVisible({ timeout: 15_000 });
    if (await page.getByTestId('host-key-dialog').isVisible()) await page.getByTestId('host-key-accept').click();
    await expect(summary).toContainText(/servers?, \d+ groups?, \d+ services? added/, { timeout: 15_000 });
    // The workspace's own group web is reported, not replaced.
    await expect(dialog.getByRole('row').filter({ hasText: 'already has a group web' })).toContainText('kept');
    await openKeptRow(page, `e2e-sshd:${site.live}`);
    await app.screenshot(`import-into-report-${width}`);
    await dialog.getByTestId('import-apply').click();
    await expect(dialog).toBeHidden();
    await expect(page.locator('.banner.info')).toContainText('Imported from e2e-sshd');
    await expect(app.dirty).toBeVisible();
    await expect(page.getByRole('row').filter({ hasText: 'api' }).first()).toBeVisible();
    await app.screenshot(`import-into-merged-${width}`);
    // One undo step takes the whole import back; the file was never written.
    await page.keyboard.press('Control+z');
    await expect(page.getByRole('row').filter({ hasText: /^\s*api/ })).toHaveCount(0);
    await expect(page.getByRole('grid', { name: 'Server groups' }).getByRole('row')).toHaveCount(2);
    expect(readFileSync(site.workspaceFile, 'utf8')).not.toContain('manage: sections');
    app.expectNoErrors();
  });
}
