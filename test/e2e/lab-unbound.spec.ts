// One VIP the lab cannot bind (another program holds its address) is not all or nothing: the lab
// starts without it, its members are checked, the page says in words which listener is out and
// which program holds the address, and links to the address field. A file the running lab
// refuses says which file the lab still runs.
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:net';
import { LbdeskPage } from './pages/lbdesk';
import { startLabSite, type LabSite } from './pages/lab-site';

let a: LabSite;
let b: LabSite;
const blockers: Server[] = [];

/** A program of this user's listening on the address, as a stray server on a laptop would. */
async function hold(host: string, port: number): Promise<void> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(port, host, () => r()));
  blockers.push(s);
}

test.beforeAll(async () => {
  a = await startLabSite({ host: '127.0.0.76', name: 'unbound-a', interval: '500ms' });
  b = await startLabSite({ host: '127.0.0.77', name: 'unbound-b', interval: '500ms' });
  await hold('127.0.0.76', a.vipPort);
  await hold('127.0.0.77', b.vipPort);
});
test.afterAll(async () => {
  for (const s of blockers) await new Promise((r) => s.close(r));
  await a.stopBackend();
  await b.stopBackend();
});
test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a VIP whose address is taken is left out and said; its members are checked`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(a.workspaceFile, 'unbound-a');
    await app.startLab();

    // The checks run alone: the member is available, not "unknown".
    await expect(app.member(`g:app/app1:${a.backendPort}`).getByTestId('state')).toHaveText('available', { timeout: 15_000 });
    const row = page.getByTestId('lab-unbound-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(`Service app-vip is not listening on 127.0.0.76:${a.vipPort}/tcp: the address is already in use by another program (node, pid ${process.pid}). Its members are still checked.`);
    await expect(page.locator('body')).not.toContainText('EADDRINUSE');
    await app.screenshot(`lab-unbound-${width}`);

    // The link opens the service's address field, focused (by keyboard: focus, Enter).
    const link = row.getByTestId('lab-unbound-address');
    await link.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-field="services.0.address"] input')).toBeFocused();

    // Another file the running lab cannot take: said, with the file the lab still runs.
    await app.open(b.workspaceFile, 'unbound-b');
    await page.getByTestId('lab-switch').click();
    await page.keyboard.press('Control+1');
    const message = page.getByTestId('lab-message');
    await expect(message).toContainText(`service app-vip cannot listen on 127.0.0.77:${b.vipPort}/tcp: the address is already in use by another program (node, pid ${process.pid}); the lab still runs ${a.workspaceFile}, unchanged`);
    await expect(page.getByTestId('lab-other-file')).toContainText('The lab runs unbound-a.yaml');
    await app.screenshot(`lab-unbound-other-${width}`);
    // The lab is stopped from the file it runs (Alt+L on another file asks to run that one).
    await app.open(a.workspaceFile, 'unbound-a');
    await app.stopLab();
    app.expectNoErrors();
  });
}
