// The live lab: start the engine on a workspace whose backend this test runs, see the member
// available, stop the backend, see it go unavailable with the reason in words.
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir, demoPath } from './pages/env';
import { freePort } from '../helpers/sshd';

const HOST = '127.0.0.74';
let backend: Server;
let workspaceFile: string;
let backendPort = 0;

test.beforeAll(async () => {
  backendPort = await freePort(HOST);
  const vipPort = await freePort(HOST);
  backend = createServer((req, res) => res.end(req.url === '/health' ? 'OK lab-e2e\n' : 'hello\n'));
  await new Promise<void>((r) => backend.listen(backendPort, HOST, () => r()));
  const dir = mkdtempSync(join(dataDir(), 'lab-'));
  workspaceFile = join(dir, 'lab-e2e.yaml');
  writeFileSync(workspaceFile, [
    '# e2e lab site: one backend this test starts and stops',
    'lbdesk: 1',
    'name: lab-e2e',
    'healthTimers: { interval: 500ms, retryInterval: 250ms, failAfter: 2, restoreAfter: 1, timeout: 400ms }',
    'servers:',
    `  - { name: app1, address: ${HOST} }`,
    'groups:',
    '  - name: app',
    `    members: [{ server: app1, port: ${backendPort}, weight: 100 }]`,
    '    healthCheck: { type: http, http: { path: /health, expect: OK } }',
    'services:',
    `  - { name: app-vip, address: ${HOST}, port: ${vipPort}, group: app }`,
    '',
  ].join('\n'));
});

test.afterAll(async () => {
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
});

test('start the lab and see a server go down when its backend is stopped', async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.goto();
  await app.open(workspaceFile, 'lab-e2e');
  await app.startLab();

  const key = `g:app/app1:${backendPort}`;
  const row = app.member(key);
  await expect(row.getByTestId('state')).toHaveText('available', { timeout: 10_000 });
  await row.click();
  const detail = page.getByTestId('member-detail');
  await expect(detail.getByTestId('why')).toContainText('app1:' + backendPort + ' is available');
  await expect(detail.getByTestId('detection')).toContainText('Failure noticed by checks');
  await expect(detail.getByTestId('detection')).toContainText('First check decides');
  await app.screenshot('lab-available');

  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
  await expect(row.getByTestId('state')).toHaveText('unavailable', { timeout: 10_000 });
  await expect(detail.getByTestId('why')).toContainText('is unavailable');
  await expect(detail.getByTestId('timeline')).toContainText('unavailable');
  await expect(detail.getByTestId('check-log')).toContainText('fail');
  await app.screenshot('lab-unavailable');

  await app.stopLab();
  app.expectNoErrors();
});

test.afterEach(async ({ page }) => {
  // The next spec expects the demo as the most recent workspace.
  const app = new LbdeskPage(page);
  await app.stopLab().catch(() => undefined);
  await app.open(demoPath(), 'lab-site-a').catch(() => undefined);
});
