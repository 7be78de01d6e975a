// A test PingDirectoryProxy host: a real OpenSSH sshd on loopback, and a server root whose
// bin/dsconfig and bin/config-diff are the strict program in pingdirectory-dsconfig.mjs (run by
// this Node). The "server" it binds to is a file: hostname, port, bind DN and password that
// dsconfig's bind options must match, as a running proxy's would.
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startSshd, type Sshd } from '../sshd';

const PROGRAM = join(__dirname, 'pingdirectory-dsconfig.mjs');

export interface PingDirectoryHost {
  sshd: Sshd;
  /** The server root (bin/dsconfig, bin/config-diff, config/, logs/). */
  root: string;
  bindDn: string;
  /** Random per run; in the test's secret store only, and in the "server"'s bind file. */
  password: string;
  /** The LDAP port dsconfig must be given (the proxy's; a test's slapd serves its cn=monitor there). */
  port: number;
  /** bin/config-diff as run on the box. */
  configDiff(): string;
  /** bin/dsconfig --no-prompt --batch-file run locally (seeding the proxy's configuration). */
  seed(batch: string): string;
  /** The next command containing `text` is refused by the server (at apply time). */
  refuse(text: string | undefined): void;
  /** Every command the "server" applied, in order (its config audit log). */
  applied(): string[];
  /** The configuration file as it is (to put back with restore). */
  snapshot(): string;
  restore(snapshot: string): void;
  /** The appliance's YAML lines for a workspace. */
  applianceLines(name: string, secret: string): string[];
  stop(): Promise<void>;
}

/** `bindDn`, `password`, `port`: the proxy's (a test's slapd's, when it serves the proxy's cn=monitor). */
export async function startPingDirectoryHost(opts: { host?: string; port?: number; bindDn?: string; password?: string } = {}): Promise<PingDirectoryHost> {
  const sshd = await startSshd({ host: opts.host ?? '127.0.8.1' });
  const root = mkdtempSync(join(tmpdir(), 'lbdesk-pdproxy-'));
  for (const d of ['bin', 'config', 'logs']) mkdirSync(join(root, d));
  for (const tool of ['dsconfig', 'config-diff']) {
    copyFileSync(PROGRAM, join(root, 'bin', `${tool}.mjs`));
    writeFileSync(join(root, 'bin', tool), `#!/bin/sh\nexec '${process.execPath}' "$(dirname "$0")/${tool}.mjs" "$@"\n`);
    chmodSync(join(root, 'bin', tool), 0o755);
  }
  const bindDn = opts.bindDn ?? 'cn=Directory Manager';
  const password = opts.password ?? randomBytes(12).toString('base64url');
  const port = opts.port ?? 1389;
  writeFileSync(join(root, 'config', 'lbdesk-test-bind.json'), JSON.stringify({ hostname: 'localhost', port, bindDn, password }), { mode: 0o600 });
  const run = (tool: string, args: string[]) => {
    try {
      return execFileSync(join(root, 'bin', tool), args, { encoding: 'utf8' });
    } catch (err) {
      const e = err as { stdout?: string; status?: number };
      throw new Error(`${tool} exited ${e.status}: ${e.stdout ?? ''}`);
    }
  };
  return {
    sshd, root, bindDn, password, port,
    configDiff: () => run('config-diff', []),
    seed(batch) {
      const dir = mkdtempSync(join(tmpdir(), 'lbdesk-pdseed-'));
      writeFileSync(join(dir, 'pw'), password, { mode: 0o600 });
      writeFileSync(join(dir, 'seed.dsconfig'), batch);
      try {
        return run('dsconfig', ['--no-prompt', '--port', String(port), '--bindDN', bindDn, '--bindPasswordFile', join(dir, 'pw'), '--batch-file', join(dir, 'seed.dsconfig')]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    refuse(text) {
      const f = join(root, 'config', 'lbdesk-test-refuse');
      if (text === undefined) rmSync(f, { force: true });
      else writeFileSync(f, text);
    },
    applied() {
      const f = join(root, 'logs', 'lbdesk-test-dsconfig.log');
      return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : [];
    },
    snapshot: () => readFileSync(join(root, 'config', 'lbdesk-test-config.json'), 'utf8'),
    restore: (snap) => writeFileSync(join(root, 'config', 'lbdesk-test-config.json'), snap),
    applianceLines: (name, secret) => [
      `  - name: ${name}`,
      `    host: ${sshd.host}`,
      `    port: ${sshd.port}`,
      '    user: root',
      '    auth: key',
      `    keyFile: ${sshd.userKey.path}`,
      '    driver: pingdirectory',
      `    dsconfig: { serverRoot: ${root}, port: ${port}, bindDn: "${bindDn}", bindSecret: ${secret} }`,
    ],
    async stop() {
      await sshd.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
