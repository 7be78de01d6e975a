// `become: sudo`: every step that touches the config runs as root through `sudo sh -c SCRIPT`,
// as Ansible's become does. Probed once per connection: NOPASSWD (`sudo -n`), or a password
// (secret store `appliance/NAME/sudo-password`, bound to the host like the SSH password, else
// asked) sent on stdin with `sudo -S -k`, never in argv. A refusal names the command refused.
import type { SecretPrompt } from '../../../shared/api/sync';
import type { SshConnection } from '../ssh/connect';
import { SshError } from '../ssh/errors';
import { destination, SecretRefusedError } from '../secrets/bound';
import { secretName, secretToSend, type SecretStore } from '../secrets/types';
import { shScript } from './quote';

export interface SudoOptions {
  secrets?: SecretStore;
  askSecret?: (p: SecretPrompt) => Promise<string | undefined>;
}

export interface Wrapped { command: string; stdin?: string }

const PROBE = 'exit 0';

export class Sudo {
  private ready?: Promise<string | null>;

  constructor(private readonly conn: SshConnection, private readonly appliance: string, private readonly opts: SudoOptions) {}

  /** `sudo … sh -c SCRIPT sh ARGS`, and the password line that must go first on stdin (if any). */
  async wrap(script: string, args: string[]): Promise<Wrapped> {
    const password = await (this.ready ??= this.probe().catch((err: unknown) => { this.ready = undefined; throw err; }));
    const inner = shScript(script, args);
    // -k: always ask, so the password line is always read by sudo, never by the script.
    return password === null ? { command: `sudo -n ${inner}` } : { command: `sudo -S -k -p '' ${inner}`, stdin: `${password}\n` };
  }

  /** null: NOPASSWD; else the password that works. */
  private async probe(): Promise<string | null> {
    const r = await this.conn.exec(`sudo -n ${shScript(PROBE, [])}`, { timeoutMs: 30_000 });
    if (r.code === 0) return null;
    const said = firstLine(r.stderr);
    if (r.code === 127 || /not found/.test(said)) throw new SshError('config', `${this.conn.label}: become: sudo, but there is no sudo on the appliance (${said || `exit ${r.code}`})`);
    if (!/password is required/i.test(said)) throw this.refused(said);
    // sudo asks for a password before it says no; listing (allowed without one where any rule is
    // NOPASSWD) tells a command no rule allows apart from one that needs the password.
    const listed = await this.conn.exec(`sudo -n -l ${shScript(PROBE, [])}`, { timeoutMs: 30_000 });
    if (listed.code === 1 && !listed.stderr.trim()) {
      const rules = await this.conn.exec('sudo -n -l', { timeoutMs: 30_000 });
      const allowed = rules.stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('(')).join('; ');
      throw this.refused(`no sudoers rule allows it${allowed ? ` (allowed: ${allowed})` : ''}`);
    }
    const password = await this.password();
    const again = await this.conn.exec(`sudo -S -k -p '' ${shScript(PROBE, [])}`, { stdin: `${password}\n`, timeoutMs: 30_000 });
    if (again.code === 0) return password;
    const why = firstLine(again.stderr);
    if (/incorrect password|try again|no password was provided|authentication failure/i.test(again.stderr)) {
      throw new SshError('auth', `${this.conn.label}: sudo did not accept the password from ${secretName.sudoPassword(this.appliance)} (${why || `exit ${again.code}`})`);
    }
    throw this.refused(why);
  }

  private refused(said: string): SshError {
    return new SshError('auth', `${this.conn.label}: sudo refused to run "sh -c …" as root for ${this.conn.resolved.user} (every push step runs as "sudo sh -c SCRIPT": a sudoers rule must let this user run /bin/sh as root): ${said || 'no reason given'}`);
  }

  private async password(): Promise<string> {
    const name = secretName.sudoPassword(this.appliance);
    const r = this.conn.resolved;
    let value: string | undefined;
    try {
      value = this.opts.secrets ? await secretToSend(this.opts.secrets, name, destination(r.hostName, r.port)) : undefined;
      value ??= await this.opts.askSecret?.({ kind: 'password', secret: name, prompt: `sudo password for ${r.user} on ${this.appliance}`, appliance: this.appliance });
    } catch (err) {
      if (err instanceof SecretRefusedError) throw new SshError('secret-refused', `appliance ${this.appliance}: ${err.message}`);
      throw err;
    }
    if (value === undefined) throw new SshError('secret-missing', `${this.conn.label}: sudo asks for a password and none is in the secret store (${name}) or was given`);
    return value;
  }
}

/** sudo's own first line, shortened (it repeats the whole refused command, which is our script). */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
