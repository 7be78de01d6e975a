// Exploit regressions for the IPC surface: calls from foreign frames, subframes or vanished
// frames are refused before any handler runs; only the contract's channels exist; arguments are
// checked against the contract's schemas in main.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALLOWED_CHANNELS, channelOf, CHANNEL_PREFIX } from '../../../shared/api/channels';
import { METHOD_NAMES } from '../../../shared/api/contract';
import { bindIpc, isTrustedFrame, sameOrigin } from '../../../main/app/ipc';
import { APP_ORIGIN } from '../../../main/app/protocol';
import { MemorySecretStore } from '../../../main/services/secrets/memory';
import { appServices, frames, InMemoryIpcMain, tempDir } from '../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
let ipc: InMemoryIpcMain;
let secrets: MemorySecretStore;
let refused: { method: string; url: string | undefined }[];

beforeEach(() => {
  tmp = tempDir('ipc');
  ipc = new InMemoryIpcMain();
  secrets = new MemorySecretStore();
  refused = [];
  const services = appServices(tmp.dir, { secrets });
  bindIpc(ipc, services.handlers, APP_ORIGIN, (method, url) => refused.push({ method, url }));
});
afterEach(() => tmp.cleanup());

describe('IPC: who may call', () => {
  it('answers our own top-level page on app://lbdesk', async () => {
    const out = (await ipc.invoke(channelOf('app.info'), frames.app, {})) as { ok: boolean; result: { shell: string } };
    expect(out.ok).toBe(true);
    expect(out.result.shell).toBe('electron');
    const route = (await ipc.invoke(channelOf('workspace.recent'), frames.appRoute, {})) as { ok: boolean };
    expect(route.ok).toBe(true);
  });

  const untrusted = {
    'a foreign page': frames.foreign,
    'a same-origin subframe': frames.subframeOfApp,
    'a foreign subframe': frames.foreignSubframe,
    'a file: page': frames.file,
    'a data: page': frames.data,
    'a look-alike host': frames.otherHost,
    'our host on another port': frames.withPort,
    'our host with credentials': frames.withCredentials,
    'another scheme': frames.otherScheme,
    'about:blank': frames.blank,
    'an empty URL': frames.empty,
    'a vanished frame (null)': null,
  };
  for (const [what, frame] of Object.entries(untrusted)) {
    it(`refuses ${what} before the handler runs`, async () => {
      const out = await ipc.invoke(channelOf('secrets.set'), frame, { name: 'appliance/lb1/password', value: 'stolen' });
      expect(out).toEqual({ ok: false, error: { code: 'refused', message: 'call from an untrusted frame' } });
      expect(await secrets.has('appliance/lb1/password')).toBe(false);
      expect(refused).toEqual([{ method: 'secrets.set', url: frame?.url }]);
    });
  }

  it('refuses a frame whose senderFrame getter throws (destroyed frame)', () => {
    const event = {
      get senderFrame(): never {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    };
    expect(isTrustedFrame(event, APP_ORIGIN)).toBe(false);
  });

  it('compares origins part by part (Node gives app:// the opaque origin "null")', () => {
    expect(new URL('app://lbdesk/index.html').origin).toBe('null');
    expect(sameOrigin('app://lbdesk/index.html', APP_ORIGIN)).toBe(true);
    expect(sameOrigin('app://other/index.html', APP_ORIGIN)).toBe(false);
    expect(sameOrigin('data:text/html,x', 'null')).toBe(false);
    expect(sameOrigin('http://127.0.0.1:5173/', 'http://127.0.0.1:5173')).toBe(true);
    expect(sameOrigin('http://127.0.0.1:5174/', 'http://127.0.0.1:5173')).toBe(false);
    expect(sameOrigin('not a url', APP_ORIGIN)).toBe(false);
  });
});

describe('IPC: what may be called', () => {
  it('registers exactly one handler per contract method and nothing else', () => {
    expect(new Set(ipc.channels())).toEqual(ALLOWED_CHANNELS);
    expect(ipc.channels()).toHaveLength(METHOD_NAMES.length);
  });

  it('has no handler for unknown channels, including prototype names and the event channel', async () => {
    for (const channel of ['lbdesk:secrets.get', 'lbdesk:__proto__', 'lbdesk:constructor', 'lbdesk:event', 'secrets.set', `${CHANNEL_PREFIX}fs.readFile`]) {
      await expect(ipc.invoke(channel, frames.app, {})).rejects.toThrow(/No handler registered/);
    }
  });

  it('cannot be bound twice (a second bind would be a programming error)', () => {
    expect(() => bindIpc(ipc, {} as never, APP_ORIGIN)).toThrow(/second handler/);
  });

  it('offers no way to read a secret back', () => {
    expect(METHOD_NAMES.filter((m) => m.startsWith('secrets.'))).toEqual(['secrets.set', 'secrets.has', 'secrets.delete']);
  });

  it('checks arguments against the schema in main', async () => {
    const bad: [string, unknown][] = [
      ['workspace.read', undefined],
      ['workspace.read', 'string instead of an object'],
      ['workspace.read', ['/tmp/a.yaml']],
      ['workspace.read', { path: 42 }],
      ['workspace.read', { path: '' }],
      ['workspace.read', { path: `/${'a'.repeat(5000)}.yaml` }],
      ['workspace.read', { path: '/tmp/a.yaml', extra: true }],
      ['workspace.read', JSON.parse('{"path":"/tmp/a.yaml","__proto__":{"polluted":true}}')],
      ['secrets.set', { name: 'x', value: 'v'.repeat(64 * 1024 + 1) }],
      ['secrets.set', { name: '', value: 'v' }],
      ['shell.openExternal', { url: 'https://x'.padEnd(3000, 'x') }],
      ['appliance.push', { path: '/tmp/a.yaml', appliance: 'lb1', confirmWithinMs: 5 }],
      ['app.info', { anything: 1 }],
    ];
    for (const [method, args] of bad) {
      const out = (await ipc.invoke(channelOf(method as never), frames.app, args)) as { ok: boolean; error?: { code: string; message: string } };
      expect(out.ok, `${method} ${JSON.stringify(args)?.slice(0, 80)}`).toBe(false);
      expect(out.error?.code).toBe('bad-args');
      expect(out.error?.message).toMatch(new RegExp(`^${method.replace('.', '\\.')}: `));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('runs a well-formed call from our page and returns only data', async () => {
    const file = join(tmp.dir, 'site.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: t\n');
    const out = (await ipc.invoke(channelOf('workspace.read'), frames.app, { path: file })) as { ok: boolean; result: { path: string; text: string } };
    expect(out.ok).toBe(true);
    expect(out.result.text).toBe('lbdesk: 1\nname: t\n');
  });
});
