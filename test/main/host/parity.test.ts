// One contract suite, run over both transports: Electron IPC (in-memory pair, real bindIpc and
// preload bridge) and WebSocket (real browser-mode host on loopback).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/contract';
import { METHOD_NAMES } from '../../../shared/api/contract';
import { channelOf } from '../../../shared/api/channels';
import { bridgeClient, socketClient, type SocketLike } from '../../../shared/api/client';
import { createAppServices, type AppServices } from '../../../main/services/api/wiring';
import { browserShell } from '../../../main/services/api/shell';
import { MemorySecretStore } from '../../../main/services/secrets/memory';
import { bindIpc, forwardEvents } from '../../../main/app/ipc';
import { buildBridge } from '../../../main/preload/bridge';
import { startUiHost, type UiHost } from '../../../main/host';
import { createIpcPair } from '../../helpers/ipc-pair';
import { ROOT } from '../../helpers/cli';

interface Transport { name: string; client: ApiClient; dataDir: string; close(): Promise<void> }

function services(shell: 'electron' | 'browser'): { svc: AppServices; dataDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), `lbdesk-parity-${shell}-`));
  const svc = createAppServices({ shell: { ...browserShell(), kind: shell }, dataDir, resourcesDir: ROOT, secrets: new MemorySecretStore() });
  return { svc, dataDir };
}

async function ipcTransport(): Promise<Transport> {
  const { svc, dataDir } = services('electron');
  const pair = createIpcPair();
  const unbind = bindIpc(pair.ipcMain, svc.handlers, 'app://lbdesk');
  const stop = forwardEvents(svc.events, pair.webContents);
  expect(pair.channels().sort()).toEqual(METHOD_NAMES.map(channelOf).sort());
  const client = bridgeClient(buildBridge(pair.ipcRenderer) as never);
  return { name: 'ipc', client, dataDir, close: async () => { stop(); unbind(); await svc.stop(); } };
}

async function wsTransport(): Promise<Transport> {
  const { svc, dataDir } = services('browser');
  const host: UiHost = await startUiHost({ handlers: svc.handlers, events: svc.events, staticDir: join(ROOT, 'out/renderer') });
  const client = socketClient(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`, (url) => new WebSocket(url) as unknown as SocketLike);
  await client.ready();
  return { name: 'websocket', client, dataDir, close: async () => { client.close(); await host.close(); await svc.stop(); } };
}

describe.each([['ipc', ipcTransport], ['websocket', wsTransport]] as const)('contract over %s', (_name, make) => {
  let t: Transport;
  beforeAll(async () => { t = await make(); });
  afterAll(async () => t.close());

  it('answers app.info with the shell and the demo as the first workspace', async () => {
    const info = await t.client.call('app.info', {});
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.shell).toBe(t.name === 'ipc' ? 'electron' : 'browser');
    expect(info.startPath).toBe(join(t.dataDir, 'demo', 'lab-site-a.yaml'));
  });

  it('opens the demo workspace', async () => {
    const file = await t.client.call('workspace.demo', {});
    expect(file.text).toContain('name: lab-site-a');
    expect(file.text).toBe(readFileSync(join(ROOT, 'assets/demo/lab-site-a.yaml'), 'utf8'));
  });

  it('writes, emits workspace.changed, reads back and lists the file as recent', async () => {
    const path = join(t.dataDir, 'site.yaml');
    const seen: string[] = [];
    const off = t.client.on('workspace.changed', (e) => seen.push(e.path));
    const text = 'lbdesk: 1\nname: parity # kept\n';
    const saved = await t.client.call('workspace.write', { path, text });
    expect(saved.path).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect((await t.client.call('workspace.read', { path })).text).toBe(text);
    expect((await t.client.call('workspace.recent', {}))[0]).toBe(path);
    await expect.poll(() => seen).toEqual([path]);
    off();
  });

  it('refuses a save over a file changed on disk since it was read', async () => {
    const path = join(t.dataDir, 'conflict.yaml');
    writeFileSync(path, 'lbdesk: 1\nname: a\n');
    const { mtimeMs } = await t.client.call('workspace.read', { path });
    await expect(t.client.call('workspace.write', { path, text: 'lbdesk: 1\nname: b\n', expectedMtimeMs: mtimeMs - 5000 })).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(path, 'utf8')).toBe('lbdesk: 1\nname: a\n');
  });

  it('refuses bad arguments with the field named', async () => {
    await expect(t.client.call('workspace.read', { path: 42 } as never)).rejects.toMatchObject({ code: 'bad-args', message: expect.stringContaining('path') });
    await expect(t.client.call('workspace.read', { path: '/x.yaml', extra: 1 } as never)).rejects.toMatchObject({ code: 'bad-args' });
  });

  it('refuses methods outside the contract', async () => {
    await expect(t.client.call('process.exit' as never, {} as never)).rejects.toMatchObject({ code: 'bad-method' });
  });

  it('refuses files that are not workspaces, and names missing ones', async () => {
    await expect(t.client.call('workspace.read', { path: '/etc/passwd' })).rejects.toMatchObject({ code: 'refused' });
    await expect(t.client.call('workspace.read', { path: join(t.dataDir, 'missing.yaml') })).rejects.toMatchObject({ code: 'not-found' });
  });

  it('lists folders and workspace files only', async () => {
    writeFileSync(join(t.dataDir, 'notes.txt'), 'x');
    const listing = await t.client.call('workspace.browse', { dir: t.dataDir });
    const names = listing.entries.map((e) => e.name);
    expect(names).toContain('demo');
    expect(names).not.toContain('notes.txt');
  });

  it('keeps secrets write-only: set and has, never get', async () => {
    await t.client.call('secrets.set', { name: 'appliance/x/password', value: 's3cret-parity' });
    expect(await t.client.call('secrets.has', { name: 'appliance/x/password' })).toBe(true);
    expect(METHOD_NAMES).not.toContain('secrets.get');
  });
});
