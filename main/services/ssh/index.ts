// SSH for lbdesk: connections, ~/.ssh/config, known_hosts and host key checks.
export { connectSsh, SshConnection, loadSshConfig, loadKnownHosts, planHops } from './connect';
export type { SshEndpoint, SshOptions, ExecResult } from './connect';
export { SshError } from './errors';
export type { SshErrorKind } from './errors';
export { KnownHosts, hashHostName, hostLookupName, patternsMatch, parseKnownHosts } from './known-hosts';
export { SshConfigSet, parseProxyJump } from './ssh-config';
export type { ResolvedHost, JumpSpec } from './ssh-config';
export { fingerprintOf, keyTypeOf, sameFingerprint } from './fingerprint';
