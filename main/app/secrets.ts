// The app's SecretStore: values encrypted by Electron's safeStorage (Keychain, DPAPI, or the
// Secret Service/KWallet on Linux) and persisted only as base64 ciphertext in secrets.json.
// When Linux has no keyring, safeStorage falls back to `basic_text` (a fixed, public key): then
// nothing is written at all, secrets live for this session only, and the user is told why.
// No `electron` import: the encryptor is injected (safeStorage in the app, a real cipher in tests).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SecretStore } from '../services/secrets/types';
import type { SecretKeeping } from '../../shared/api/secrets';

/** The part of Electron's safeStorage this store uses. */
export interface Encryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(cipher: Buffer): string;
  /** Linux only: which backend safeStorage selected (`basic_text` means no real keyring). */
  getSelectedStorageBackend?(): string;
}

export type SecretsLog = (level: 'info' | 'warn' | 'error', message: string) => void;

interface SecretsFile { version: 1; secrets: Record<string, string> }

export const secretsFile = (dataDir: string) => join(dataDir, 'secrets.json');

export const BASIC_TEXT_WARNING =
  'No OS keyring is available (Electron safeStorage fell back to basic_text, a fixed key), so saved ' +
  'passwords, key passphrases and RADIUS secrets are kept for this session only and are never written ' +
  'to disk. Install and unlock a Secret Service keyring (GNOME Keyring, KWallet) to have lbdesk remember them.';
export const UNAVAILABLE_WARNING =
  'OS encryption is not available, so secrets are kept for this session only and are never written to disk.';

export class SafeStorageSecretStore implements SecretStore {
  /** Whether values survive a restart (false: session-only, see `warnings`). */
  readonly persistent: boolean;
  readonly warnings: string[] = [];
  private readonly session = new Map<string, string>();
  private cache?: Record<string, string>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly log: SecretsLog;

  constructor(
    private readonly file: string,
    private readonly enc: Encryptor,
    opts: { platform?: NodeJS.Platform; log?: SecretsLog } = {},
  ) {
    this.log = opts.log ?? (() => undefined);
    const platform = opts.platform ?? process.platform;
    let available = false;
    try {
      available = enc.isEncryptionAvailable();
    } catch {
      available = false;
    }
    const backend = platform === 'linux' && available ? enc.getSelectedStorageBackend?.() : undefined;
    if (!available) this.warnings.push(UNAVAILABLE_WARNING);
    else if (backend === 'basic_text') this.warnings.push(BASIC_TEXT_WARNING);
    this.persistent = this.warnings.length === 0;
    for (const w of this.warnings) this.log('warn', `secrets: ${w}`);
  }

  keeping(): SecretKeeping {
    return this.persistent ? { kept: 'keyring' } : { kept: 'memory', note: this.warnings[0] };
  }

  async get(name: string): Promise<string | undefined> {
    if (!this.persistent) return this.session.get(name);
    const blob = (await this.load())[name];
    if (blob === undefined) return undefined;
    try {
      return this.enc.decryptString(Buffer.from(blob, 'base64'));
    } catch {
      // Typically the keyring was reset; the blob is kept in case the old keyring comes back.
      this.log('warn', `secrets: cannot decrypt the stored value of "${name}"; enter it again`);
      return undefined;
    }
  }

  async set(name: string, value: string): Promise<void> {
    if (!this.persistent) {
      this.session.set(name, value);
      return;
    }
    const blob = this.enc.encryptString(value).toString('base64');
    await this.update((all) => {
      all[name] = blob;
    });
  }

  async delete(name: string): Promise<void> {
    if (!this.persistent) {
      this.session.delete(name);
      return;
    }
    await this.update((all) => {
      delete all[name];
    });
  }

  async has(name: string): Promise<boolean> {
    if (!this.persistent) return this.session.has(name);
    return Object.prototype.hasOwnProperty.call(await this.load(), name);
  }

  private async load(): Promise<Record<string, string>> {
    if (this.cache) return this.cache;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return (this.cache = Object.create(null) as Record<string, string>);
    }
    const secrets = Object.create(null) as Record<string, string>;
    try {
      const parsed = JSON.parse(text) as Partial<SecretsFile>;
      for (const [k, v] of Object.entries(parsed.secrets ?? {})) if (typeof v === 'string') secrets[k] = v;
    } catch {
      // Keep the unreadable file for inspection instead of overwriting it on the next save.
      const aside = `${this.file}.unreadable-${Date.now()}`;
      await rename(this.file, aside).catch(() => undefined);
      this.log('error', `secrets: ${this.file} was unreadable and was moved to ${aside}`);
    }
    return (this.cache = secrets);
  }

  /** Serialised read-modify-write, written atomically with owner-only permissions. */
  private update(change: (all: Record<string, string>) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const all = await this.load();
      change(all);
      const body: SecretsFile = { version: 1, secrets: { ...all } };
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.tmp`;
      await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
      await rename(tmp, this.file);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
