// What lbdesk keeps of a brownfield box (a hand-written haproxy.cfg in a real HAProxy behind a
// real sshd, imported with manage: sections) is shown as read-only context: which of the site's
// own frontends uses which group on which address, the box's balance, the appliance's manage
// field; and a push verifies every listener the file has (the kept TLS frontend and stats too).
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';
import { noBrownfield, startBrownfieldSite, type BrownfieldSite } from './pages/brownfield-site';
import { haveSshd, noSshd } from '../helpers/sshd';

let site: BrownfieldSite | undefined;
let tls = '';
let stats = '';

test.skip(!haveSshd || !!noBrownfield, noSshd || `missing: ${noBrownfield}`);
test.beforeAll(async () => {
  site = await startBrownfieldSite('kept-e2e', ['127.0.8.140', '127.0.8.141', '127.0.8.142', '127.0.8.143']);
  tls = /\tbind (\S+) ssl/.exec(site.original)![1]!;
  stats = /listen stats\n\tbind (\S+)/.exec(site.original)![1]!;
});
test.afterAll(async () => {
  await site?.stop();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

test('1440×900: kept frontends, balance and manage are shown; a push verifies every listener of the file', async ({ page }) => {
  test.setTimeout(120_000);
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'kept-e2e');

  // Overview: a group only the site's TLS frontend uses says so, with its address.
  const topology = page.getByTestId('topology');
  await expect(topology).toContainText(`kept on box: frontend https-in on ${tls} ssl`);
  await expect(topology).toContainText(/api\s*kept on box: frontend https-in/);
  // spill is used by nothing, on the box or here: it still says so.
  await expect(topology).toContainText(/spill\s*no virtual service uses this group/);

  // The group's editor: which kept frontend uses it and how, and the box's balance.
  await app.section('groups');
  await page.getByRole('grid', { name: 'Server groups' }).getByRole('gridcell', { name: 'api', exact: true }).click();
  const kept = page.getByTestId('group-kept');
  await expect(kept.getByTestId('group-kept-use')).toHaveText(`frontend https-in on ${tls} ssl (use_backend if is_api), kept on box`);
  await expect(kept.getByTestId('group-kept-balance')).toHaveText('balance leastconn on box');
  await expect(page.getByText('no virtual service', { exact: true })).toHaveCount(0);
  await app.screenshot('kept-group-1440');

  // The appliance editor has the manage field, as the workspace says.
  await app.section('appliances');
  await expect(app.input('appliances.0.manage')).toHaveValue('sections');

  // One weight pushed: the verify tries lbdesk's VIP, the kept TLS frontend and the stats listener.
  await app.section('groups');
  await page.getByRole('grid', { name: 'Server groups' }).getByRole('gridcell', { name: 'web', exact: true }).click();
  await page.locator('[data-field$=".members.1.weight"] input').fill('2');
  await page.keyboard.press('Control+6');
  await app.diff();
  await page.getByTestId('push-button').click();
  const progress = page.getByTestId('push-progress');
  await expect(page.getByTestId('push-report')).toContainText('Applied', { timeout: 30_000 });
  await progress.locator('summary').click();
  const verify = progress.locator('li').filter({ hasText: /verify/ }).first();
  await expect(verify).toContainText(tls);
  await expect(verify).toContainText(stats);
  await app.screenshot('kept-push-1440');
  app.expectNoErrors();
});

test('1024×700: the kept context of a group is on screen', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site!.workspaceFile, 'kept-e2e');
  await page.keyboard.press('Control+3');
  const grid = page.getByRole('grid', { name: 'Server groups' });
  await grid.getByRole('gridcell', { name: 'admin', exact: true }).click();
  const use = page.getByTestId('group-kept-use');
  await expect(use).toHaveText(`frontend https-in on ${tls} ssl (use_backend if is_admin), kept on box`);
  await expect(page.getByTestId('group-kept-balance')).toHaveText('balance source on box');
  await use.scrollIntoViewIfNeeded();
  await expect(use).toBeInViewport();
  await app.screenshot('kept-group-1024');
  app.expectNoErrors();
});
