// A test "appliance": a config path in a temp dir behind the test sshd, a real validate script
// (the file must have a line starting with `ok`) and a real reload script that counts reloads
// and fails when the live file asks it to (a line `failreload`).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SshConfigSet } from '../../../main/services/ssh';
import type { PushOptions } from '../../../main/services/sync/push';
import type { SyncTarget } from '../../../main/services/sync/target';
import type { Sshd } from '../sshd';

export interface TestAppliance {
  name: string;
  dir: string;
  target: SyncTarget;
  live: string;
  reloads(): number;
  read(): string | undefined;
  /** lbdesk's own files beside the config (temps, backup, markers). */
  extras(): string[];
}

export function makeAppliance(sshd: Sshd, name: string, root = mkdtempSync(join(tmpdir(), 'lbdesk-app-'))): TestAppliance {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const live = join(dir, 'app.cfg');
  const count = join(dir, 'reloads');
  writeFileSync(join(dir, 'validate.sh'), '#!/bin/sh\ngrep -q "^ok" "$1" || { echo "invalid config: no ok line in $1" >&2; exit 1; }\n');
  writeFileSync(join(dir, 'reload.sh'), `#!/bin/sh\necho reload >> '${count}'\n! grep -q '^failreload' '${live}'\n`);
  chmodSync(join(dir, 'validate.sh'), 0o755);
  chmodSync(join(dir, 'reload.sh'), 0o755);
  return {
    name,
    dir,
    live,
    target: {
      appliance: name,
      endpoint: { appliance: name, host: sshd.host, port: sshd.port, user: 'root', auth: 'key', keyFile: sshd.userKey.path },
      configPath: live,
      validateCommand: `${join(dir, 'validate.sh')} {file}`,
      reloadCommand: join(dir, 'reload.sh'),
    },
    reloads: () => (existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0),
    read: () => (existsSync(live) ? readFileSync(live, 'utf8') : undefined),
    extras: () => readdirSync(dir).filter((f) => f.startsWith('.app.cfg.lbdesk')),
  };
}

/** Options every test uses: its own known_hosts (pre-trusted), no ~/.ssh/config, its own data dir. */
export function testOptions(sshd: Sshd, dir: string, extra: Partial<PushOptions> = {}): PushOptions {
  const knownHosts = join(dir, 'known_hosts');
  if (!existsSync(knownHosts)) writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`);
  return { knownHostsFile: knownHosts, sshConfig: SshConfigSet.empty(), dataDir: join(dir, 'data'), ...extra };
}

export async function waitFor(cond: () => boolean, timeoutMs: number, stepMs = 100): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return cond();
}
