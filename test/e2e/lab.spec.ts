// The live lab: start the engine on a workspace whose backend this test runs, see the member
// available, stop the backend, see it go unavailable with the reason in words.
import { expect, test } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';
import { startLabSite, type LabSite } from './pages/lab-site';

let site: LabSite;

test.beforeAll(async () => {
  site = await startLabSite({ host: '127.0.0.74', name: 'lab-e2e', interval: '500ms' });
});

test.afterAll(() => site.stopBackend());

test('start the lab and see a server go down when its backend is stopped', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site.workspaceFile, 'lab-e2e');
  await app.startLab();

  const key = `g:app/app1:${site.backendPort}`;
  const row = app.member(key);
  await expect(row.getByTestId('state')).toHaveText('available', { timeout: 10_000 });
  await row.click();
  const detail = page.getByTestId('member-detail');
  await expect(detail.getByTestId('why')).toContainText('app1:' + site.backendPort + ' is available');
  await expect(detail.getByTestId('detection')).toContainText('Failure noticed by checks');
  await expect(detail.getByTestId('detection')).toContainText('First check decides');
  await app.screenshot('lab-available');

  await site.stopBackend();
  await expect(row.getByTestId('state')).toHaveText('unavailable', { timeout: 10_000 });
  await expect(detail.getByTestId('why')).toContainText('is unavailable');
  await expect(detail.getByTestId('timeline')).toContainText('unavailable');
  await expect(detail.getByTestId('check-log')).toContainText('fail');
  await app.screenshot('lab-unavailable');

  await app.stopLab();
  app.expectNoErrors();
});

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());
