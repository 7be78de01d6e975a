// Browser mode loses its connection: the page says "reconnecting…", gets back by itself, and
// the Overview resumes with what the lab saw meanwhile (a backend stopped while it was away).
import { expect, test, type WebSocketRoute } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir, demoPath } from './pages/env';
import { freePort } from '../helpers/sshd';

const HOST = '127.0.0.76';
let backend: Server;
let workspaceFile: string;
let backendPort = 0;

test.beforeAll(async () => {
  backendPort = await freePort(HOST);
  const vipPort = await freePort(HOST);
  backend = createServer((req, res) => res.end(req.url === '/health' ? 'OK\n' : 'hello\n'));
  await new Promise<void>((r) => backend.listen(backendPort, HOST, () => r()));
  workspaceFile = join(mkdtempSync(join(dataDir(), 'reconnect-')), 'reconnect.yaml');
  writeFileSync(workspaceFile, [
    'lbdesk: 1',
    'name: reconnect-e2e',
    'healthTimers: { interval: 500ms, retryInterval: 250ms, failAfter: 2, restoreAfter: 1, timeout: 400ms }',
    `servers: [{ name: app1, address: ${HOST} }]`,
    `groups: [{ name: app, members: [{ server: app1, port: ${backendPort} }], healthCheck: { type: http, http: { path: /health, expect: OK } } }]`,
    `services: [{ name: app-vip, address: ${HOST}, port: ${vipPort}, group: app }]`,
    '',
  ].join('\n'));
});

test.afterAll(async () => {
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
});

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
  await app.open(workspaceFile, 'reconnect-e2e');
  await app.startLab();
  const row = app.member(`g:app/app1:${backendPort}`);
  await expect(row.getByTestId('state')).toHaveText('available', { timeout: 10_000 });

  away = true;
  await live!.close();
  await expect(page.getByTestId('reconnecting')).toBeVisible({ timeout: 5_000 });
  // Meanwhile the backend stops: only the lab sees it.
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));

  away = false;
  await expect(page.getByTestId('reconnecting')).toBeHidden({ timeout: 10_000 });
  await expect(row.getByTestId('state')).toHaveText('unavailable', { timeout: 10_000 });
  await app.stopLab();
});

test.afterEach(async ({ page }) => {
  const app = new LbdeskPage(page);
  await app.stopLab().catch(() => undefined);
  await app.open(demoPath(), 'lab-site-a').catch(() => undefined);
});
