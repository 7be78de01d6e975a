// Secret names are namespaced so one store serves every kind; the UI asks for the same names
// the services store (an appliance's password, a key's passphrase, a named shared secret).
/**
 * Where `secrets.set` kept the value: `keyring` survives a restart (the OS keyring, or the app's
 * store encrypted with its key); `memory` lasts until this lbdesk process stops, and `note` says
 * why in words the page shows where the secret was set.
 */
export interface SecretKeeping {
  kept: 'keyring' | 'memory';
  note?: string;
}

export const secretName = {
  appliancePassword: (appliance: string) => `appliance/${appliance}/password`,
  /** `become: sudo` where sudo asks for a password; bound to the appliance's host like the SSH password. */
  sudoPassword: (appliance: string) => `appliance/${appliance}/sudo-password`,
  keyPassphrase: (keyFile: string) => `key/${keyFile}/passphrase`,
  named: (name: string) => `named/${name}`,
};
