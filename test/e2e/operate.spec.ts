// Operate from the window: a real HAProxy (master-worker, admin stats socket) behind a loopback
// sshd; drain a member with the keyboard, confirmed, and the box itself has it drained.
import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { freePort, haveSshd, noSshd, startSshd, type Sshd } from '../helpers/sshd';
import { adminBits as boxAdminBits, HAPROXY, HaproxyBox, HeldBackends, hold, renderBox, type Held } from '../helpers/operate/box';

const VIP = '127.0.34.1';
const WEB1 = '127.0.34.2';
const WEB2 = '127.0.34.3';
let sshd: Sshd | undefined;
let box: HaproxyBox | undefined;
const backends = new HeldBackends();
const held: Held[] = [];
let file = '';
let socket = '';
let webPort = 0;

test.skip(!haveSshd || !existsSync(HAPROXY), noSshd || `${HAPROXY} is missing`);

const adminBits = (backend: string, server: string) => boxAdminBits(socket, backend, server);

test.beforeAll(async () => {
  const dir = mkdtempSync(join(dataDir(), 'operate-'));
  sshd = await startSshd({ host: '127.0.34.9' });
  box = new HaproxyBox(dir);
  socket = join(dir, 'admin.sock');
  webPort = await freePort(WEB1);
  const vipPort = await freePort(VIP);
  await backends.start([['web1', WEB1], ['web2', WEB2]], webPort);
  const yaml = [
    'lbdesk: 1', 'name: operate-e2e',
    'servers:', `  - { name: web1, address: ${WEB1} }`, `  - { name: web2, address: ${WEB2} }`,
    'groups:', `  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${webPort} }, { server: web2, port: ${webPort} }] }`,
    'services:', `  - { name: web-vip, address: ${VIP}, port: ${vipPort}, group: web }`,
    'appliances:',
    `  - { name: box, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: key, keyFile: ${sshd.userKey.path}, driver: haproxy, hostKey: "${sshd.hostKey.fingerprint}", configPath: ${box.config}, statsSocket: ${socket} }`,
    '',
  ].join('\n');
  file = join(dir, 'operate-e2e.yaml');
  writeFileSync(file, yaml);
  await box.start(renderBox(yaml, 'box'));
  for (let i = 0; i < 2; i++) held.push(await hold(VIP, vipPort));
});

test.afterAll(async () => {
  for (const h of held) h.socket.destroy();
  await box?.stop();
  await backends.stop();
  await sshd?.stop();
});

test('drain a member from the window: confirmed, and the box has it drained', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(file, 'operate-e2e');
  await page.keyboard.press('Control+9');
  await expect(page.getByTestId('nav-operate')).toHaveAttribute('aria-current', 'page');
  const web1 = page.locator(`tr[data-member="web/web1:${webPort}"]`);
  await expect(web1.getByTestId('health')).toHaveText('up', { timeout: 20_000 });
  await expect(web1.getByTestId('admin')).toHaveText('ready');
  await expect(page.getByTestId('operate-via')).toContainText(`stats socket ${socket}`);
  const sessions = Number(await web1.getByTestId('sessions').innerText());
  await app.screenshot('operate-1440');

  // With the keyboard: the row's Drain, Enter; the dialog says what happens to open connections.
  await page.getByRole('button', { name: `Drain web/web1:${webPort}` }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Drain on box' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('confirm-what')).toContainText(`The ${sessions} open connection${sessions === 1 ? '' : 's'} go on until their clients close them`);
  expect(await adminBits('web-vip', 'web1')).toBe(0);
  await expect(dialog.getByTestId('confirm-change')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(web1.getByTestId('admin')).toHaveText('drain', { timeout: 15_000 });
  expect(await adminBits('web-vip', 'web1')).toBe(8);
  expect(await adminBits('web-vip', 'web2')).toBe(0);
  await expect(page.getByTestId('operate-note')).toContainText(`web/web1:${webPort} is drained on box`);

  // Fits at 1024×700: nothing wider than the window, the actions reachable.
  await page.setViewportSize({ width: 1024, height: 700 });
  const { sw, cw } = await page.locator('html').evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
  expect(sw).toBeLessThanOrEqual(cw);
  await expect(page.getByTestId('bulk-drain')).toBeInViewport();
  const ready = page.getByRole('button', { name: `Ready web/web1:${webPort}` });
  const [r, table] = [await ready.boundingBox(), await page.getByTestId('operate-members').locator('xpath=..').boundingBox()];
  expect(r!.x + r!.width).toBeLessThanOrEqual(table!.x + table!.width);
  await app.screenshot('operate-1024');

  // Back to ready, so the box is as it was.
  await ready.click();
  await page.getByRole('dialog', { name: 'Ready on box' }).getByTestId('confirm-change').click();
  await expect(web1.getByTestId('admin')).toHaveText('ready', { timeout: 15_000 });
  expect(await adminBits('web-vip', 'web1')).toBe(0);
  app.expectNoErrors();
});

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());
