// Secrets given to this process (serve's LBDESK_SECRET_<NAME> values) in front of the store the
// page sets secrets in: a value the page sets replaces the given one, and goes where that store keeps it.
import type { MemorySecretStore } from './memory';
import { keepingOf, type SecretStore } from './types';

export class LayeredSecretStore implements SecretStore {
  constructor(private readonly given: MemorySecretStore, private readonly kept: SecretStore) {}
  async get(name: string) { return (await this.given.get(name)) ?? this.kept.get(name); }
  async has(name: string) { return (await this.given.has(name)) || this.kept.has(name); }
  async set(name: string, value: string) {
    await this.given.delete(name);
    await this.kept.set(name, value);
  }
  async delete(name: string) {
    await this.given.delete(name);
    await this.kept.delete(name);
  }
  keeping() { return keepingOf(this.kept); }
}
