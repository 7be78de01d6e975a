// The OS keyring for the CLI, through libsecret's `secret-tool` (GNOME Keyring, KWallet, KeePassXC
// … any Secret Service). Values travel on stdin/stdout only, never on a command line, where any
// local user could read them with `ps`.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SecretStore } from './types';
import type { SecretKeeping } from '../../../shared/api/secrets';

export const KEYRING_APPLICATION = 'lbdesk';

interface RunResult { code: number | null; stdout: string; stderr: string }

export interface KeyringOptions {
  /** Path of secret-tool; found on PATH when omitted. */
  command?: string;
  /** Environment for secret-tool (its D-Bus session address comes from here). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export class KeyringError extends Error {}

export class KeyringSecretStore implements SecretStore {
  private readonly command: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;

  constructor(opts: KeyringOptions = {}) {
    this.env = opts.env ?? process.env;
    const command = opts.command ?? findOnPath('secret-tool', this.env);
    if (!command) throw new KeyringError('secret-tool (libsecret-tools) is not installed');
    this.command = command;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  keeping(): SecretKeeping {
    return { kept: 'keyring' };
  }

  private attrs(name: string): string[] {
    return ['application', KEYRING_APPLICATION, 'secret', name];
  }

  private run(args: string[], input?: string): Promise<RunResult> {
    return new Promise((done, fail) => {
      const child = spawn(this.command, args, { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        fail(new KeyringError(`secret-tool failed to start: ${err.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, stdout, stderr: stderr.trim() });
      });
      // A secret-tool that exits without reading (locked keyring, crash) closes the pipe: its exit
      // code says what happened; the EPIPE must not become an uncaught exception.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
  }

  async get(name: string): Promise<string | undefined> {
    const r = await this.run(['lookup', ...this.attrs(name)]);
    if (r.code === 0) return r.stdout;
    if (r.stderr === '') return undefined; // exit 1, no message: not stored
    throw new KeyringError(`keyring lookup of "${name}" failed: ${r.stderr.split('\n')[0]}`);
  }

  async set(name: string, value: string): Promise<void> {
    const r = await this.run(['store', `--label=lbdesk: ${name}`, ...this.attrs(name)], value);
    if (r.code !== 0) throw new KeyringError(`keyring store of "${name}" failed: ${r.stderr.split('\n')[0] || `exit ${r.code}`}`);
  }

  async delete(name: string): Promise<void> {
    const r = await this.run(['clear', ...this.attrs(name)]);
    if (r.code !== 0 && r.stderr !== '') throw new KeyringError(`keyring delete of "${name}" failed: ${r.stderr.split('\n')[0]}`);
  }

  async has(name: string): Promise<boolean> {
    return (await this.get(name)) !== undefined;
  }

  /** Whether a Secret Service answers: a lookup that finds nothing exits 1 without a message. */
  async available(): Promise<boolean> {
    try {
      const r = await this.run(['lookup', ...this.attrs('lbdesk/probe')]);
      return r.code === 0 || (r.code === 1 && r.stderr === '');
    } catch {
      return false;
    }
  }
}
