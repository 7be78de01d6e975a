// Shared pieces of the security tests: an in-memory ipcMain that behaves like Electron's (one
// handler per channel, "No handler registered" for others, arguments and results structured-
// cloned), frames as Electron describes them, and the real app services on a temp data folder.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAppServices, type AppServices } from '../../main/services/api/wiring';
import { browserShell, type AppShell } from '../../main/services/api/shell';
import { MemorySecretStore } from '../../main/services/secrets/memory';
import type { SecretStore } from '../../main/services/secrets/types';
import type { InvokeEventLike, IpcMainLike } from '../../main/app/ipc';
import { checkedOpenExternal } from '../../main/app/external';
import { startUiHost, type UiHost } from '../../main/host';
import WebSocket from 'ws';
import type { Encryptor } from '../../main/app/secrets';

export const ROOT = resolve(__dirname, '../..');

type Listener = (event: InvokeEventLike, ...args: unknown[]) => unknown;

export class InMemoryIpcMain implements IpcMainLike {
  private readonly handlers = new Map<string, Listener>();

  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  channels(): string[] {
    return [...this.handlers.keys()];
  }

  /** What `ipcRenderer.invoke(channel, ...args)` does from a frame: rejects for unknown channels. */
  async invoke(channel: string, frame: InvokeEventLike['senderFrame'], ...args: unknown[]): Promise<unknown> {
    const listener = this.handlers.get(channel);
    if (!listener) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    const result = await listener({ senderFrame: frame }, ...structuredClone(args));
    return structuredClone(result);
  }
}

export const frames = {
  app: { url: 'app://lbdesk/index.html', parent: null },
  appRoute: { url: 'app://lbdesk/servers?x=1#top', parent: null },
  subframeOfApp: { url: 'app://lbdesk/index.html', parent: { url: 'app://lbdesk/index.html' } },
  foreignSubframe: { url: 'https://evil.example/', parent: { url: 'app://lbdesk/index.html' } },
  foreign: { url: 'https://evil.example/pwn.html', parent: null },
  file: { url: 'file:///home/user/evil.html', parent: null },
  data: { url: 'data:text/html,<script>1</script>', parent: null },
  otherHost: { url: 'app://lbdesk.evil/index.html', parent: null },
  withPort: { url: 'app://lbdesk:8080/index.html', parent: null },
  withCredentials: { url: 'app://evil@lbdesk/index.html', parent: null },
  otherScheme: { url: 'lbdesk://lbdesk/index.html', parent: null },
  blank: { url: 'about:blank', parent: null },
  empty: { url: '', parent: null },
} as const;

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `lbdesk-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The desktop shell as main/app builds it, with Electron's parts replaced: links go through the
 * real URL check into `links`; `over` replaces any other part.
 */
export function desktopShell(opts: { links?: string[] } = {}, over: Partial<AppShell> = {}): AppShell {
  return {
    ...browserShell(),
    kind: 'electron',
    openExternal: (url) =>
      checkedOpenExternal(url, async (safe) => {
        opts.links?.push(safe);
      }),
    ...over,
  };
}

/** The real app services (as the desktop app builds them) on a temp data folder. */
export function appServices(dataDir: string, opts: { secrets?: SecretStore; links?: string[]; shell?: Partial<AppShell> } = {}): AppServices {
  return createAppServices({
    shell: desktopShell({ links: opts.links }, opts.shell),
    dataDir,
    resourcesDir: ROOT,
    secrets: opts.secrets ?? new MemorySecretStore(),
  });
}

/** safeStorage's contract with a real cipher: encrypt → opaque bytes, decrypt → the string. */
export function aesEncryptor(key = randomBytes(32), backend = 'gnome_libsecret'): Encryptor & { calls: number } {
  return {
    calls: 0,
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain: string) {
      this.calls++;
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([Buffer.from('v11'), iv, c.getAuthTag(), body]);
    },
    decryptString(blob: Buffer) {
      if (blob.subarray(0, 3).toString() !== 'v11') throw new Error('unknown blob');
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(3, 15));
      d.setAuthTag(blob.subarray(15, 31));
      return Buffer.concat([d.update(blob.subarray(31)), d.final()]).toString('utf8');
    },
  };
}

export interface PageReply { id: number; ok: boolean; result?: unknown; error?: { code: string; message: string } }

export interface PageSocket { call(method: string, args: unknown): Promise<PageReply>; close(): void }

/** The page's WebSocket to a browser-mode host at `url` (its `?token=`), with the page's own Origin. */
export async function pageSocket(url: string): Promise<PageSocket> {
  const u = new URL(url);
  const socket = new WebSocket(`ws://${u.host}/api/ws?token=${u.searchParams.get('token')}`, { headers: { origin: u.origin } });
  await new Promise<void>((done, fail) => socket.on('open', () => done()).on('error', fail));
  const waiting = new Map<number, (r: PageReply) => void>();
  socket.on('message', (m) => {
    const r = JSON.parse(String(m)) as PageReply;
    waiting.get(r.id)?.(r);
    waiting.delete(r.id);
  });
  let next = 1;
  return {
    call: (method, args) => new Promise((done) => {
      const id = next++;
      waiting.set(id, done);
      socket.send(JSON.stringify({ id, method, args }));
    }),
    close: () => socket.close(),
  };
}

/** The page as an attacker drives it: the real browser-mode host on loopback, its token and Origin, calls over the WebSocket. */
export async function hostilePage(services: AppServices, staticDir: string): Promise<{ host: UiHost; call: PageSocket['call']; close(): Promise<void> }> {
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>lbdesk</title>');
  const host = await startUiHost({ handlers: services.handlers, events: services.events, staticDir });
  const page = await pageSocket(host.url);
  return {
    host,
    call: page.call,
    close: async () => {
      page.close();
      await host.close();
    },
  };
}
