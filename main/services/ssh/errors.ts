// SSH failures a user can act on, each with a kind the UI and CLI can branch on.
import type { HostKeyPrompt } from '../../../shared/api/sync';

export type SshErrorKind =
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'host-key-revoked'
  | 'auth'
  | 'secret-missing'
  | 'secret-refused'
  | 'connect'
  | 'timeout'
  | 'config'
  | 'closed';

/** Never carries a password or passphrase: messages are built from names and paths only. */
export class SshError extends Error {
  constructor(readonly kind: SshErrorKind, message: string, readonly hostKey?: HostKeyPrompt) {
    super(message);
    this.name = 'SshError';
  }
}
