// The CLI's secret stores against the real things: libsecret's secret-tool talking to a GNOME
// Keyring on a private D-Bus (started here, in a temp home), a real pseudo-terminal for the
// prompt (util-linux `script`), and a pipe for the non-interactive error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { findOnPath, KeyringSecretStore } from '../../../main/services/secrets/keyring';
import { PromptSecretStore, promptText, SecretUnavailableError } from '../../../main/services/secrets/prompt';
import { createCliSecretStore } from '../../../main/services/secrets/cli';
import { MemorySecretStore } from '../../../main/services/secrets/memory';
import { ROOT, tempDir } from '../../helpers/app-ipc';
import { missingKeyringBins, startKeyring, type PrivateKeyring } from '../../helpers/keyring';
import { skipBecause } from '../../helpers/skip';

const missingKeyring = missingKeyringBins();
if (missingKeyring.length) console.warn(`secrets-cli: keyring tests skipped: ${missingKeyring.join(', ')} not installed (apt-get install dbus-daemon gnome-keyring libsecret-tools)`);
const hasScript = findOnPath('script') !== undefined;
if (!hasScript) console.warn('secrets-cli: terminal prompt test skipped: util-linux `script` not installed');

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });

describe.skipIf(skipBecause(missingKeyring.length > 0 && `missing ${missingKeyring.join(', ')}`, 'KeyringSecretStore'))('KeyringSecretStore (secret-tool + GNOME Keyring on a private bus)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let argvLog: string;
  let wrapper: string;
  let keyring: PrivateKeyring;

  beforeAll(async () => {
    tmp = tempDir('keyring');
    keyring = await startKeyring(tmp.dir);
    env = keyring.env;
    // secret-tool through a wrapper that records its command line: secrets must never be on it.
    argvLog = join(tmp.dir, 'argv.log');
    wrapper = join(tmp.dir, 'secret-tool');
    writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${findOnPath('secret-tool')}' "$@"\n`);
    chmodSync(wrapper, 0o755);
  }, 30_000);

  afterAll(() => {
    keyring?.stop();
    tmp?.cleanup();
  });

  it('stores, finds, replaces and deletes secrets; values never on a command line or in plain text on disk', async () => {
    const store = new KeyringSecretStore({ env, command: wrapper });
    const values = { 'appliance/lb1/password': 'keyring-ssh-pässword', 'named/radius-shared': 'radius\nwith newline', 'key//home/me/.ssh/id_ed25519/passphrase': ' spaced passphrase ' };
    for (const [name, value] of Object.entries(values)) await store.set(name, value);
    for (const [name, value] of Object.entries(values)) expect(await store.get(name)).toBe(value);
    expect(await store.has('appliance/lb1/password')).toBe(true);
    expect(await store.get('appliance/unknown/password')).toBeUndefined();
    await store.set('appliance/lb1/password', 'replaced-value');
    expect(await store.get('appliance/lb1/password')).toBe('replaced-value');
    await store.delete('appliance/lb1/password');
    expect(await store.has('appliance/lb1/password')).toBe(false);
    await store.delete('appliance/lb1/password'); // deleting nothing is fine

    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).toContain('store --label=lbdesk: appliance/lb1/password application lbdesk secret appliance/lb1/password');
    for (const value of [...Object.values(values), 'replaced-value']) {
      expect(argv).not.toContain(value.trim());
      for (const file of walk(join(tmp.dir, 'home'))) expect(readFileSync(file).includes(Buffer.from(value.trim())), file).toBe(false);
    }
  });

  it('the CLI store uses the keyring first and asks nobody when the keyring has the value', async () => {
    await new KeyringSecretStore({ env }).set('appliance/lb2/password', 'from-the-keyring');
    const { kind, store } = await createCliSecretStore({ env, input: Readable.from([]) });
    expect(kind).toBe('keyring');
    expect(await store.get('appliance/lb2/password')).toBe('from-the-keyring');
    await expect(store.get('appliance/lb3/password')).rejects.toThrow(/secret "appliance\/lb3\/password" is needed but there is no terminal.*secret-tool store .*appliance\/lb3\/password/);
  });

  it('reports an unreachable keyring as unavailable', async () => {
    const store = new KeyringSecretStore({ env: { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(tmp.dir, 'no-such-bus')}` } });
    expect(await store.available()).toBe(false);
    await expect(store.get('named/x')).rejects.toThrow(/keyring lookup of "named\/x" failed/);
  });
});

describe('PromptSecretStore', () => {
  it('without a terminal, fails at once with an error naming the secret', async () => {
    const store = new PromptSecretStore({ input: Readable.from([]), hint: 'store it in the keyring' });
    expect(store.interactive).toBe(false);
    const err = await store.get('appliance/lb1/password').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretUnavailableError);
    expect((err as Error).message).toBe('secret "appliance/lb1/password" is needed but there is no terminal to ask for it; store it in the keyring');
  });

  it('the CLI falls back to prompt-only when no keyring is reachable', async () => {
    const { kind } = await createCliSecretStore({ env: { PATH: join(ROOT, 'no-such-dir') }, input: Readable.from([]) });
    expect(kind).toBe('prompt');
    const off = await createCliSecretStore({ env: { ...process.env, LBDESK_KEYRING: 'off' }, input: Readable.from([]) });
    expect(off.kind).toBe('prompt');
    // Switched off is not "not installed": the advice says which.
    await expect(off.store.get('appliance/lb7/password')).rejects.toThrow(/or use the keyring \(it is off: LBDESK_KEYRING=off\)$/);
  });

  it('LBDESK_SECRET_<NAME> variables come first; a missing secret names its variable', async () => {
    const env = { PATH: join(ROOT, 'no-such-dir'), LBDESK_SECRET_APPLIANCE_LB9_PASSWORD: 'from-env', LBDESK_SECRET_RADIUS_SHARED: 'radius-from-env' };
    const { store } = await createCliSecretStore({ env, input: Readable.from([]) });
    expect(await store.get('appliance/lb9/password')).toBe('from-env');
    expect(await store.get('named/radius-shared')).toBe('radius-from-env');
    await expect(store.get('appliance/lb8/password')).rejects.toThrow('secret "appliance/lb8/password" is needed but there is no terminal to ask for it; set LBDESK_SECRET_APPLIANCE_LB8_PASSWORD, or run the command from a terminal, or install libsecret-tools and a Secret Service keyring');
  });

  it('asks once per secret with echo off, one prompt at a time, and stores nothing', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[], setRawMode(m: boolean) { this.modes.push(m); } });
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d: Buffer) => {
      shown += d;
      if (shown.endsWith(promptText('appliance/lb1/password'))) input.write('pa55\u007fss\r');
      if (shown.endsWith(promptText('named/radius'))) input.write('rad\r');
    });
    const backing = new MemorySecretStore();
    const store = new PromptSecretStore({ input, output });
    const [a, b, c] = await Promise.all([store.get('appliance/lb1/password'), store.get('appliance/lb1/password'), store.get('named/radius')]);
    expect([a, b, c]).toEqual(['pa5ss', 'pa5ss', 'rad']);
    expect(await store.get('appliance/lb1/password')).toBe('pa5ss');
    expect(shown.split('SSH password for appliance lb1').length - 1).toBe(1);
    expect(shown).not.toContain('pa5s');
    expect(input.modes).toEqual([true, false, true, false]);
    expect(await backing.has('appliance/lb1/password')).toBe(false);
  });

  it.skipIf(skipBecause(!hasScript && 'script is missing (apt-get install bsdutils)', 'secret prompt on a terminal'))('on a real terminal: prompts, reads without echo, and asks only once', async () => {
    const secret = 'pty-s3cret-value';
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const child = spawn('script', ['-q', '-e', '-c', `exec ${tsx} ${join(__dirname, '../../helpers/children/prompt.ts')}`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, EXPECT: secret, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let transcript = '';
    let answered = false;
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.stdout!.on('data', (d: Buffer) => {
        transcript += d;
        if (!answered && transcript.includes('SSH password for appliance lb1:')) {
          answered = true;
          child.stdin!.write(`${secret}\r`);
        }
      });
      child.on('exit', (c) => {
        clearTimeout(timer);
        done(c);
      });
    });
    expect(transcript).toContain('kind=prompt MATCH');
    expect(transcript.split('SSH password for appliance lb1:').length - 1).toBe(1);
    expect(transcript).not.toContain(secret);
    expect(code).toBe(0);
  }, 90_000);
});
