// "Never written in plain text anywhere": the desktop app's services, wired as main/app wires them
// (safeStorage store with a real cipher, file log, IPC, window state, the quit sequence), take an
// SSH password, a key passphrase and a RADIUS secret, open, edit and save workspaces, log refused
// calls — then every file written under the data folder and the workspace folder is searched for
// each secret, raw and in the encodings a careless writer would use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { channelOf } from '../../../../shared/api/channels';
import type { MethodName } from '../../../../shared/api/contract';
import { bindIpc } from '../../../../main/app/ipc';
import { APP_ORIGIN } from '../../../../main/app/protocol';
import { SafeStorageSecretStore, secretsFile } from '../../../../main/app/secrets';
import { FileLog } from '../../../../main/app/log';
import { QuitSequence } from '../../../../main/app/quit';
import { saveWindowState, windowStateFile } from '../../../../main/app/window-state';
import { createAppServices } from '../../../../main/services/api/wiring';
import { secretName } from '../../../../main/services/secrets/types';
import { aesEncryptor, desktopShell, frames, InMemoryIpcMain, ROOT, tempDir } from '../../../helpers/app-ipc';

const SECRETS = {
  [secretName.appliancePassword('lab-haproxy')]: 'ssh-Pa55word-7f3a',
  [secretName.keyPassphrase('/home/me/.ssh/id_ed25519')]: 'key passphrase 9c1e',
  [secretName.named('radius-shared')]: 'radius-shared-secret-41d2',
};

/** The forms a secret would take if someone wrote it out carelessly. */
function forms(value: string): Map<string, Buffer> {
  const all: [string, Buffer][] = [
    ['utf8', Buffer.from(value, 'utf8')],
    ['utf16', Buffer.from(value, 'utf16le')],
    ['base64', Buffer.from(Buffer.from(value).toString('base64'))],
    ['base64url', Buffer.from(Buffer.from(value).toString('base64url'))],
    ['hex', Buffer.from(Buffer.from(value).toString('hex'))],
    ['url-encoded', Buffer.from(encodeURIComponent(value))],
    ['json', Buffer.from(JSON.stringify(value).slice(1, -1))],
  ];
  // Forms that come out identical (base64 without + or /) are searched once, under the first name.
  const unique = new Map<string, Buffer>();
  for (const [name, bytes] of all) if (![...unique.values()].some((b) => b.equals(bytes))) unique.set(name, bytes);
  return unique;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function leaks(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const [name, value] of Object.entries(SECRETS)) {
      for (const [form, needle] of forms(value)) if (bytes.includes(needle)) found.push(`${file}: ${name} (${form})`);
    }
  }
  return found;
}

describe('secrets are never written in plain text', () => {
  let tmp: ReturnType<typeof tempDir>;
  let data: string;
  let sites: string;

  beforeAll(async () => {
    tmp = tempDir('plaintext');
    data = join(tmp.dir, 'data');
    sites = join(tmp.dir, 'sites');
    mkdirSync(sites);
    const log = new FileLog(join(data, 'logs')).write;
    const secrets = new SafeStorageSecretStore(secretsFile(data), aesEncryptor(), { platform: 'linux', log });
    const shell = desktopShell({}, { openExternal: async () => true, opened: (path) => log('info', `opened ${path}`), warnings: () => secrets.warnings });
    const services = createAppServices({ shell, dataDir: data, resourcesDir: ROOT, secrets });
    const handlers = services.handlers;
    const ipc = new InMemoryIpcMain();
    bindIpc(ipc, handlers, APP_ORIGIN, (method, url) => log('warn', `IPC ${method} refused from ${url ?? 'a missing frame'}`));
    const call = async (method: MethodName, args: unknown, frame: typeof frames.app | typeof frames.foreign = frames.app) => {
      const out = (await ipc.invoke(channelOf(method), frame, args)) as { ok: boolean; error?: { message: string }; result?: unknown };
      if (!out.ok) log('warn', `${method}: ${out.error?.message}`); // as a UI would report it
      return out;
    };

    for (const [name, value] of Object.entries(SECRETS)) expect((await call('secrets.set', { name, value })).ok).toBe(true);
    for (const name of Object.keys(SECRETS)) expect((await call('secrets.has', { name })).result).toBe(true);
    // Refused and malformed calls carrying the secrets end up in the log: their values must not.
    for (const value of Object.values(SECRETS)) {
      await call('secrets.set', { name: 'appliance/evil/password', value }, frames.foreign);
      await call('secrets.set', { name: 'x', value, extra: value });
      await call('secrets.set', { name: '', value });
    }
    const demo = (await call('workspace.demo', {})) as { result: { path: string; text: string } };
    const path = join(sites, 'site-a.yaml');
    expect((await call('workspace.write', { path, text: `${demo.result.text}\n# password: stored in the OS keyring\n` })).ok).toBe(true);
    // A secret typed into a field that takes a secret's name is never saved (nor logged).
    const typed = SECRETS[secretName.keyPassphrase('/home/me/.ssh/id_ed25519')]!;
    const leak = `lbdesk: 1\nname: leak\nservers: [{ name: r, address: 192.0.2.1 }]\ngroups:\n  - { name: aaa, members: [{ server: r, port: 1812 }], healthCheck: { type: radius, radius: { secret: "${typed}" } } }\n`;
    const refused = await call('workspace.write', { path: join(sites, 'leak.yaml'), text: leak });
    expect(refused.ok).toBe(false);
    expect(refused.error?.message).toMatch(/^not saved: groups\[0\]\.healthCheck\.radius\.secret holds something that is not a secret's name/);
    expect(existsSync(join(sites, 'leak.yaml'))).toBe(false);
    // However the key is spelt: quoted, single-quoted, or with YAML escapes in a quoted key.
    const variants = ['"secret"', "'secret'", '"s\\x65cret"', '"\\u0073ecret"'].map((key) => leak.replace('secret:', `${key}:`));
    // Nor in a file the validator gives up on early (a version it does not know).
    variants.push(leak.replace('lbdesk: 1', 'lbdesk: 2'));
    // A key spelt with an escaped line break (no 'secret' in the text), and an alias as the key.
    variants.push(`lbdesk: 1\nname: leak\nservers: [{ name: r, address: 192.0.2.1 }]\ngroups:\n  - name: aaa\n    members: [{ server: r, port: 1812 }]\n    healthCheck:\n      type: radius\n      radius:\n        ? "sec\\\n          ret"\n        : "${typed}"\n`);
    variants.push(`lbdesk: 1\nname: leak\ndescription: &k secr\u0065t\ngroups:\n  - name: aaa\n    members: []\n    healthCheck:\n      type: radius\n      radius:\n        *k : "${typed}"\n`.replace('secr\u0065t', 'se' + 'cret'));
    for (const spelt of variants) {
      const key = spelt;
      const again = await call('workspace.write', { path: join(sites, 'leak.yaml'), text: spelt });
      expect(again.ok, key).toBe(false);
      expect(existsSync(join(sites, 'leak.yaml'))).toBe(false);
    }
    expect((await call('workspace.read', { path })).ok).toBe(true);
    await call('workspace.validate', { path });
    await call('workspace.recent', {});
    await call('app.info', {});
    const quit = new QuitSequence(
      [
        { name: 'save the window state', run: () => saveWindowState(data, { bounds: { x: 10, y: 20, width: 1200, height: 800 }, maximized: false, fullScreen: false }) },
        { name: 'stop the lab and services', run: () => services.stop() },
      ],
      { log },
    );
    quit.beforeQuit(() => log('info', 'quit'));
    await quit.whenDone();
  });
  afterAll(() => tmp?.cleanup());

  it('wrote the files a session writes', () => {
    const files = filesUnder(tmp.dir).map((f) => f.slice(tmp.dir.length + 1)).sort();
    expect(files).toEqual(
      expect.arrayContaining(['data/secrets.json', 'data/recent.json', 'data/logs/main.log', 'data/window-state.json', 'data/demo/lab-site-a.yaml', 'sites/site-a.yaml']),
    );
    expect(readFileSync(join(data, 'logs', 'main.log'), 'utf8')).toMatch(/IPC secrets\.set refused from https:\/\/evil\.example/);
    expect(JSON.parse(readFileSync(secretsFile(data), 'utf8')).secrets).toHaveProperty([secretName.named('radius-shared')]);
    expect(statSync(windowStateFile(data)).isFile()).toBe(true);
  });

  it('none of them holds a secret, raw or encoded', () => {
    expect(leaks(filesUnder(tmp.dir))).toEqual([]);
  });

  it('the search does find a leak (the check can fail)', () => {
    const canary = join(tmp.dir, 'canary.txt');
    writeFileSync(canary, `note: ${Buffer.from(SECRETS[secretName.named('radius-shared')]!).toString('base64')}\n`);
    expect(leaks([canary])).toContain(`${canary}: named/radius-shared (base64)`);
    expect(leaks([canary]).every((l) => l.includes('named/radius-shared'))).toBe(true);
  });
});
