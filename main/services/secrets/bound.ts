// A stored secret goes only to the places (host and port) it was first used with (trust on first use). The page
// edits the workspace, so without this it could point an appliance or a check at a host of its
// own and have lbdesk send a stored password there. Storing the secret again forgets its hosts:
// the user re-entering it is the consent for new ones. Only host names and addresses are kept
// (in a 0600 file in the data folder), never a value.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../workspace/atomic';
import { keepingOf, type SecretStore } from './types';

export class SecretRefusedError extends Error {}

/** Where a secret goes: host and port (`[::1]:389` for IPv6); a new port on a known host is a new place. */
export function destination(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

type Bindings = Record<string, string[]>;

export class BoundSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();
  private loaded: Promise<Bindings> | undefined;
  /** The hosts the running lab or check would send each secret to (bound together on first use). */
  private readonly candidates = new Map<string, Set<string>>();

  constructor(private readonly inner: SecretStore, private readonly file: string) {}

  get(name: string) {
    return this.inner.get(name);
  }
  keeping() {
    return keepingOf(this.inner);
  }
  has(name: string) {
    return this.inner.has(name);
  }
  async set(name: string, value: string) {
    await this.inner.set(name, value);
    await this.update((b) => (name in b ? delete b[name] : false));
  }
  async delete(name: string) {
    await this.inner.delete(name);
    await this.update((b) => (name in b ? delete b[name] : false));
  }

  /**
   * Secrets given to this process at its start (`serve --ui` with LBDESK_SECRET_… or the
   * keyring): the user's word for where they go now, so their old places are forgotten.
   */
  async given(names: string[]): Promise<void> {
    if (names.length) await this.update((b) => names.map((n) => (n in b ? delete b[n] : false)).some(Boolean));
  }

  /**
   * The hosts a workspace sends each secret to (every member of a group with an LDAP bind or a
   * RADIUS check): a secret not bound yet is bound to all of them at its first use, not only to
   * the first member checked.
   */
  expect(hosts: Map<string, Set<string>>): void {
    for (const [name, set] of hosts) this.candidates.set(name, set);
  }

  async getToSend(name: string, host: string): Promise<string | undefined> {
    const value = await this.inner.get(name);
    if (value === undefined) return undefined;
    await this.update((b) => {
      const bound = b[name];
      if (bound === undefined) {
        const expected = this.candidates.get(name);
        b[name] = expected?.has(host) ? [...expected].sort() : [host];
        return true;
      }
      if (bound.includes(host)) return false;
      throw new SecretRefusedError(`secret ${name} is only sent to ${bound.join(', ')}, where it was first used, not to ${host}: if the workspace really moved, store the secret again`);
    });
    return value;
  }

  /** Read, change, write, one at a time; `change` returns false when nothing changed. */
  private update(change: (b: Bindings) => unknown): Promise<void> {
    const run = async () => {
      const b = await this.load();
      if (change(b) === false) return;
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, `${JSON.stringify(b, null, 1)}\n`, { mode: 0o600 });
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Read once, then kept: every probe of an LDAP or RADIUS member asks (this store is the file's only writer). */
  private load(): Promise<Bindings> {
    this.loaded ??= readFile(this.file, 'utf8')
      .then((text) => {
        const parsed: unknown = JSON.parse(text);
        return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Bindings) : {};
      })
      .catch(() => ({}));
    return this.loaded;
  }
}
