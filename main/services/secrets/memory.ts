import type { SecretStore } from './types';

/** Process-lifetime store: what the CLI uses after a prompt, and what tests use. */
export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();
  async get(name: string) { return this.values.get(name); }
  async set(name: string, value: string) { this.values.set(name, value); }
  async delete(name: string) { this.values.delete(name); }
  async has(name: string) { return this.values.has(name); }
  /** The names held, for a caller that must tell others which secrets it was given. */
  names(): string[] { return [...this.values.keys()]; }
}
