// Browser mode loses its connection: the page says "reconnecting…", gets back by itself, and
// the Overview resumes with what the lab saw meanwhile (a backend stopped while it was away).
import { expect, test, type WebSocketRoute } from '@playwright/test';
import { LbdeskPage } from './pages/lbdesk';
import { startLabSite, type LabSite } from './pages/lab-site';

let site: LabSite;

test.beforeAll(async () => {
  site = await startLabSite({ host: '127.0.0.76', name: 'reconnect-e2e', interval: '500ms' });
});

test.afterAll(() => site.stopBackend());

test('a dropped connection comes back by itself and the Overview resumes', async ({ page }) => {
  // Every connection of the page goes through here: while `away`, new ones are refused.
  let away = false;
  let live: WebSocketRoute | undefined;
  await page.routeWebSocket(/\/api\/ws/, (ws) => {
    if (away) return void ws.close();
    ws.connectToServer();
    live = ws;
  });
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(site.workspaceFile, 'reconnect-e2e');
  await app.startLab();
  const row = app.member(`g:app/app1:${site.backendPort}`);
  await expect(row.getByTestId('state')).toHaveText('available', { timeout: 10_000 });

  away = true;
  await live!.close();
  await expect(page.getByTestId('reconnecting')).toBeVisible({ timeout: 5_000 });
  // Meanwhile the backend stops: only the lab sees it.
  await site.stopBackend();

  away = false;
  await expect(page.getByTestId('reconnecting')).toBeHidden({ timeout: 10_000 });
  await expect(row.getByTestId('state')).toHaveText('unavailable', { timeout: 10_000 });
  await app.stopLab();
});

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());
