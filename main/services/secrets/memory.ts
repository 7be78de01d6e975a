import type { SecretKeeping } from '../../../shared/api/secrets';
import { MEMORY_ONLY, type SecretStore } from './types';

/** Process-lifetime store: what the CLI uses after a prompt, and what tests use. */
export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();
  /** `why`: the words the page is shown when it sets a secret here. */
  constructor(private readonly why: string = MEMORY_ONLY) {}
  keeping(): SecretKeeping { return { kept: 'memory', note: this.why }; }
  async get(name: string) { return this.values.get(name); }
  async set(name: string, value: string) { this.values.set(name, value); }
  async delete(name: string) { this.values.delete(name); }
  async has(name: string) { return this.values.has(name); }
  /** The names held, for a caller that must tell others which secrets it was given. */
  names(): string[] { return [...this.values.keys()]; }
}
