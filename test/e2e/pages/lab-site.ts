// A one-backend site for the lab's e2e tests: an HTTP backend the test runs on `host`, and a
// workspace whose service app-vip forwards to it (member `g:app/app1:<backendPort>`).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './env';
import { freePort } from '../../helpers/sshd';

export interface LabSite {
  workspaceFile: string;
  backendPort: number;
  vipPort: number;
  /** Stops the backend (its open connections too); safe to call twice. */
  stopBackend(): Promise<void>;
}

export interface LabSiteOptions {
  host: string;
  /** The workspace's name and its file's base name. */
  name: string;
  /** The check interval, e.g. `500ms`. */
  interval: string;
  /** More keys of the group's healthCheck, e.g. `degradedAbove: 200ms`. */
  checkExtra?: string;
  /** What a request other than /health gets. */
  body?: string;
  /** Whether /health answers OK (else 503). */
  healthy?: () => boolean;
}

export async function startLabSite(o: LabSiteOptions): Promise<LabSite> {
  const backendPort = await freePort(o.host);
  const vipPort = await freePort(o.host);
  const backend = createServer((req, res) => {
    if (req.url !== '/health') return res.end(o.body ?? 'hello\n');
    const ok = o.healthy?.() ?? true;
    res.statusCode = ok ? 200 : 503;
    res.end(ok ? `OK ${o.name}\n` : 'down\n');
  });
  await new Promise<void>((r) => backend.listen(backendPort, o.host, () => r()));
  const workspaceFile = join(mkdtempSync(join(dataDir(), `${o.name}-`)), `${o.name}.yaml`);
  writeFileSync(workspaceFile, [
    `# e2e site ${o.name}: one backend the test runs`,
    'lbdesk: 1',
    `name: ${o.name}`,
    `healthTimers: { interval: ${o.interval}, retryInterval: 250ms, failAfter: 2, restoreAfter: 1, timeout: 400ms }`,
    'servers:',
    `  - { name: app1, address: ${o.host} }`,
    'groups:',
    '  - name: app',
    `    members: [{ server: app1, port: ${backendPort}, weight: 100 }]`,
    `    healthCheck: { type: http, http: { path: /health, expect: OK }${o.checkExtra ? `, ${o.checkExtra}` : ''} }`,
    'services:',
    `  - { name: app-vip, address: ${o.host}, port: ${vipPort}, group: app }`,
    '',
  ].join('\n'));
  let stopped: Promise<void> | undefined;
  const stopBackend = () => {
    backend.closeAllConnections();
    stopped ??= new Promise<void>((r) => backend.close(() => r()));
    return stopped;
  };
  return { workspaceFile, backendPort, vipPort, stopBackend };
}
