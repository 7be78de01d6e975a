// Which signature algorithm an RSA user key signs with. ssh2 takes it from the server's
// server-sig-algs (one choice, SHA-2 first) and falls back to SHA-1 `ssh-rsa` when the server
// sends none — neither what the workspace allows nor what an old server accepts. ssh2 keeps
// the very array it received as server-sig-algs, so lbdesk hands it an array of its own and
// puts one algorithm in it before each attempt: SHA-2 first, then `ssh-rsa` where
// legacyAlgorithms or PubkeyAcceptedAlgorithms allow it (a server may advertise SHA-2 and
// still accept only ssh-rsa). Relies on ssh2 1.x internals (`_protocol._handlers.EXT_INFO`);
// test/main/services/ssh/legacy.test.ts fails if they change.
import type { Client } from 'ssh2';

type ExtInfo = (p: unknown, exts: { name: string; algs?: string[] }[]) => void;

export class RsaSignatures {
  /** The array ssh2 reads as server-sig-algs. */
  private readonly current: string[] = [];
  private original?: ExtInfo;
  private injected = false;
  /** What the server advertised (undefined: it sent nothing). */
  server?: string[];

  constructor(readonly allowed: string[]) {}

  attach(client: Client): void {
    const handlers = (client as unknown as { _protocol?: { _handlers?: Record<string, ExtInfo> } })._protocol?._handlers;
    const original = handlers?.EXT_INFO;
    if (!handlers || !original) return;
    this.original = original;
    handlers.EXT_INFO = (p, exts) => {
      const theirs = exts.find((e) => e.name === 'server-sig-algs');
      this.server = theirs?.algs;
      this.injected = true;
      original(p, [...exts.filter((e) => e !== theirs), { name: 'server-sig-algs', algs: this.current }]);
    };
  }

  /** The algorithms to try for an RSA key, in order: one SHA-2 (servers take both or neither), then ssh-rsa. */
  plan(): string[] {
    const ok = (a: string) => this.allowed.includes(a) && (!this.server || this.server.includes(a) || a === 'ssh-rsa');
    const sha2 = this.allowed.filter((a) => a !== 'ssh-rsa' && ok(a)).slice(0, 1);
    return [...sha2, ...(ok('ssh-rsa') ? ['ssh-rsa'] : [])];
  }

  /** The next RSA signature is `algo` (an ssh2 that never got EXT_INFO gets our array now). */
  use(algo: string): void {
    if (!this.injected && this.original) {
      this.injected = true;
      this.original(undefined, [{ name: 'server-sig-algs', algs: this.current }]);
    }
    this.current.splice(0, this.current.length, algo);
  }
}
