// Appliances: push to a real sshd on loopback — the host key question with its SHA256
// fingerprint, the diff first, the push with progress, commit-confirmed with Confirm, the report.
import { expect, test } from '@playwright/test';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir, demoPath } from './pages/env';
import { createServer, type Server } from 'node:net';
import { freePort, haveSshd, startSshd, type Sshd } from '../helpers/sshd';

let sshd: Sshd | undefined;
// What the pushed config serves: after the reload the push verifies something accepts there.
const VIP = '127.0.8.75';
let vip: Server | undefined;
let vipPort = 0;
let wsFile = '';
let live = '';

test.skip(!haveSshd, 'sshd or ssh-keygen is missing (apt-get install openssh-server)');

test.beforeAll(async () => {
  sshd = await startSshd({ host: '127.0.8.74' });
  vipPort = await freePort(VIP);
  vip = createServer((c) => c.end());
  await new Promise<void>((r) => vip!.listen(vipPort, VIP, () => r()));
  const dir = mkdtempSync(join(dataDir(), 'push-'));
  live = join(dir, 'haproxy.cfg');
  writeFileSync(join(dir, 'validate.sh'), '#!/bin/sh\ngrep -q "^frontend\\|^listen" "$1" || { echo "no frontend in $1" >&2; exit 1; }\n');
  writeFileSync(join(dir, 'reload.sh'), `#!/bin/sh\necho reload >> '${join(dir, 'reloads')}'\n`);
  chmodSync(join(dir, 'validate.sh'), 0o755);
  chmodSync(join(dir, 'reload.sh'), 0o755);
  wsFile = join(dir, 'push-e2e.yaml');
  writeFileSync(wsFile, [
    '# e2e push site',
    'lbdesk: 1',
    'name: push-e2e',
    'servers:',
    '  - { name: web1, address: 127.0.0.21 }',
    'groups:',
    '  - name: web',
    '    members: [{ server: web1, port: 8081 }]',
    '    healthCheck: { type: tcp }',
    'services:',
    `  - { name: web-vip, address: ${VIP}, port: ${vipPort}, group: web }`,
    'appliances:',
    '  - name: e2e-sshd',
    `    host: ${sshd.host}`,
    `    port: ${sshd.port}`,
    '    user: root',
    '    auth: key',
    `    keyFile: ${sshd.userKey.path}`,
    '    driver: haproxy',
    `    configPath: ${live}`,
    `    validateCommand: "${join(dir, 'validate.sh')} {file}"`,
    `    reloadCommand: "${join(dir, 'reload.sh')}"`,
    '',
  ].join('\n'));
});

test.afterAll(async () => {
  await sshd?.stop();
  await new Promise((r) => (vip ? vip.close(r) : r(undefined)));
});

test('push to a loopback sshd: host key, diff, push, confirm, report', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(wsFile, 'push-e2e');
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('appliance-select')).toHaveValue('e2e-sshd');

  await page.getByTestId('diff-button').click();
  const hostKey = page.getByTestId('host-key-dialog');
  await expect(hostKey).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('fingerprint')).toHaveText(sshd!.hostKey.fingerprint);
  await app.screenshot('push-host-key');
  await page.getByTestId('host-key-accept').click();

  const diff = page.getByTestId('diff');
  await expect(diff).toBeVisible({ timeout: 15_000 });
  await expect(diff).toContainText('web-vip');
  // The accepted key is pinned in the workspace (hostKey), as the workspace example says; that
  // edit changes nothing pushed, so the diff is not out of date for it.
  await expect(page.getByLabel('Pinned host key', { exact: true })).toHaveValue(sshd!.hostKey.fingerprint);
  await expect(page.getByTestId('diff-stale')).toHaveCount(0);
  await app.screenshot('push-diff');

  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('push-progress')).toBeVisible();
  await expect(page.getByTestId('countdown')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('countdown')).toBeHidden({ timeout: 15_000 });
  await expect(page.getByTestId('push-report')).toContainText('Applied');
  await expect(page.getByTestId('push-report')).not.toContainText('waiting for Confirm');
  await expect(page.getByTestId('push-history')).toContainText(/applied|pending-confirm/);
  await app.screenshot('push-report');

  expect(existsSync(live)).toBe(true);
  expect(readFileSync(live, 'utf8')).toContain(`${VIP}:${vipPort}`);

  // The diff on screen follows the push by itself: nothing left to change.
  await expect(page.getByTestId('no-change')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('diff-stale')).toHaveCount(0);
  // An edit makes it out of date: said, and Push waits for a fresh one.
  await page.keyboard.press('Control+1');
  await page.getByLabel('Description', { exact: true }).fill('edited after the push');
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('diff-stale')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('push-button')).toBeDisabled();
  await page.getByTestId('diff-button').click();
  await expect(page.getByTestId('diff-stale')).toHaveCount(0, { timeout: 15_000 });
  app.expectNoErrors();
});

test.afterEach(async ({ page }) => {
  await new LbdeskPage(page).open(demoPath(), 'lab-site-a').catch(() => undefined);
});
