// "New workspace from an appliance's config" straight from the box: host, login, config path,
// validate and reload asked in the dialog (defaults from the driver, through main), the config
// pulled over a real sshd from a hand-written haproxy.cfg a real HAProxy runs, and the new
// workspace's appliance is that box: its Diff reaches it and finds no change.
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { HAPROXY, noBrownfield, startBrownfieldSite, type BrownfieldSite } from './pages/brownfield-site';
import { haveSshd, noSshd } from '../helpers/sshd';

let site: BrownfieldSite | undefined;

test.skip(!haveSshd || !!noBrownfield, noSshd || `missing: ${noBrownfield}`);
test.beforeAll(async () => {
  site = await startBrownfieldSite('import-box-e2e', ['127.0.8.130', '127.0.8.131', '127.0.8.132', '127.0.8.133']);
});
test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

const VALIDATE = `${HAPROXY} -c -q -f {file}`;

/** Accepts a first-time host key if asked, then waits for the report. */
async function report(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
  const key = page.getByTestId('host-key-accept');
  const summary = dialog.getByTestId('import-summary');
  await expect(key.or(summary).first()).toBeVisible({ timeout: 30_000 });
  if (await key.isVisible()) await key.click();
  await expect(summary).toContainText(/^\d+ servers, 4 groups, \d+ services?; \d+ imported, \d+ approximated, \d+ kept on the appliance/, { timeout: 30_000 });
}

/** The appliance the import wrote: the box as typed, not its name. */
function expectAppliance(file: string, name: string, reload: string): void {
  const a = parse(readFileSync(file, 'utf8')).appliances[0];
  expect(a).toMatchObject({
    name, host: site!.sshd.host, port: site!.sshd.port, user: 'root', auth: 'key', keyFile: site!.sshd.userKey.path,
    driver: 'haproxy', configPath: site!.live, validateCommand: VALIDATE, reloadCommand: reload, manage: 'sections',
  });
}

test('1440×900: import from the box over SSH, the driver\'s defaults asked, the box as the appliance', async ({ page }) => {
  test.setTimeout(120_000);
  const app = new LbdeskPage(page);
  await app.goto();
  const dir = mkdtempSync(join(dataDir(), 'import-box-'));
  await page.getByTestId('import-new').click();
  const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
  await dialog.getByTestId('import-source-box').check();
  // The driver's own defaults, as main has them, change with the driver.
  await expect(dialog.getByTestId('box-configPath')).toHaveValue('/etc/haproxy/haproxy.cfg');
  await expect(dialog.getByTestId('box-validateCommand')).toHaveValue('haproxy -c -f {file}');
  await expect(dialog.getByTestId('box-reloadCommand')).toHaveValue('systemctl reload haproxy');
  await dialog.getByTestId('import-driver').selectOption('keepalived');
  await expect(dialog.getByTestId('box-configPath')).toHaveValue('/etc/keepalived/keepalived.conf');
  await expect(dialog.getByTestId('box-reloadCommand')).toHaveValue('systemctl reload keepalived');
  await dialog.getByTestId('import-driver').selectOption('haproxy');

  const reload = `kill -USR2 $(cat ${join(site!.live, '../haproxy.pid')})`;
  await dialog.getByTestId('box-host').fill(site!.sshd.host);
  await dialog.getByTestId('box-port').fill(String(site!.sshd.port));
  await dialog.getByTestId('box-user').fill('root');
  await dialog.getByTestId('box-auth').selectOption('key');
  await dialog.getByTestId('box-key-file').fill(site!.sshd.userKey.path);
  await dialog.getByTestId('box-configPath').fill(site!.live);
  await dialog.getByTestId('box-validateCommand').fill(VALIDATE);
  await dialog.getByTestId('box-reloadCommand').fill(reload);
  await dialog.getByTestId('import-appliance-name').fill('edge1');
  await dialog.getByTestId('import-out').fill(join(dir, 'edge.yaml'));
  await app.screenshot('import-box-form-1440');
  await dialog.getByTestId('import-submit').click();
  await report(page);
  await app.screenshot('import-box-report-1440');
  expectAppliance(join(dir, 'edge.yaml'), 'edge1', reload);

  // The new workspace's appliance is the box: its diff reaches it and finds nothing to push.
  await dialog.getByTestId('import-open').click();
  await expect(app.name).toHaveText('edge');
  await page.keyboard.press('Control+6');
  await app.diff();
  await expect(page.getByTestId('no-change')).toBeVisible();
  app.expectNoErrors();
});

test('1024×700: import from the box by keyboard, Enter in the last field imports', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1024, height: 700 });
  const app = new LbdeskPage(page);
  await app.goto();
  const dir = mkdtempSync(join(dataDir(), 'import-box-'));
  await page.getByTestId('import-new').click();
  const dialog = page.getByRole('dialog', { name: "New workspace from an appliance's config" });
  // The source is a radio group: the arrow key moves to "the box itself", Tab to its first field.
  await dialog.getByRole('radio', { name: 'A config file here' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(dialog.getByTestId('import-source-box')).toBeChecked();
  await expect(dialog.getByTestId('box-configPath')).toHaveValue('/etc/haproxy/haproxy.cfg');
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('box-host')).toBeFocused();
  await page.keyboard.type(site!.sshd.host);
  await page.keyboard.press('Tab');
  await page.keyboard.type(String(site!.sshd.port));
  await page.keyboard.press('Tab');
  await page.keyboard.type('root');
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('box-auth')).toBeFocused();
  await dialog.getByTestId('box-auth').selectOption('key');
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('box-key-file')).toBeFocused();
  await page.keyboard.type(site!.sshd.userKey.path);
  await page.keyboard.press('Tab');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(site!.live);
  await page.keyboard.press('Tab');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(VALIDATE);
  // The reload command left as the driver's default: the workspace follows the driver.
  await dialog.getByTestId('import-out').fill(join(dir, 'kb.yaml'));
  await expect(dialog.getByTestId('import-out')).toBeInViewport();
  await app.screenshot('import-box-form-1024');
  await page.keyboard.press('Enter');
  await report(page);
  const a = parse(readFileSync(join(dir, 'kb.yaml'), 'utf8')).appliances[0];
  expect(a).toMatchObject({ name: 'lb1', host: site!.sshd.host, port: site!.sshd.port, configPath: site!.live, validateCommand: VALIDATE, manage: 'sections' });
  expect(a.reloadCommand).toBeUndefined();
  await expect(dialog.getByTestId('import-open')).toBeInViewport();
  await app.screenshot('import-box-report-1024');
  app.expectNoErrors();
});
