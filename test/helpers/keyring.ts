// A private GNOME Keyring on a private D-Bus session bus, in a temp home: what the CLI's
// secret-tool store talks to in tests. Nothing is auto-started and the user's keyring is never seen.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath, KeyringSecretStore } from '../../main/services/secrets/keyring';

export const KEYRING_BINS = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'];
export const missingKeyringBins = (): string[] => KEYRING_BINS.filter((b) => !findOnPath(b));

export interface PrivateKeyring {
  /** HOME, XDG dirs and DBUS_SESSION_BUS_ADDRESS for secret-tool (PATH included). */
  env: NodeJS.ProcessEnv;
  stop(): void;
}

export async function startKeyring(dir: string): Promise<PrivateKeyring> {
  const home = join(dir, 'home');
  const runtime = join(dir, 'run');
  mkdirSync(home, { recursive: true });
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const c of children.reverse()) if (c.exitCode === null) c.kill('SIGTERM');
  };
  try {
    const conf = join(dir, 'bus.conf');
    writeFileSync(conf, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${dir}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`);
    const bus = spawn('dbus-daemon', [`--config-file=${conf}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(bus);
    const address = await new Promise<string>((done, fail) => {
      let out = '';
      bus.stdout!.on('data', (d: Buffer) => {
        out += d;
        if (out.includes('\n')) done(out.split('\n')[0]!.trim());
      });
      bus.on('exit', (code) => fail(new Error(`dbus-daemon exited ${code}`)));
    });
    const env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: join(home, '.local', 'share'), DBUS_SESSION_BUS_ADDRESS: address };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(keyring);
    keyring.stdin!.end('keyring-unlock-password');
    const probe = new KeyringSecretStore({ env });
    const deadline = Date.now() + 15_000;
    while (!(await probe.available())) {
      if (Date.now() > deadline) throw new Error('the keyring did not come up on the private bus');
      await new Promise((r) => setTimeout(r, 200));
    }
    return { env, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
