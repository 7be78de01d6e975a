// A real OpenLDAP slapd on loopback for tests: temp slapd.conf with an ldif database
// (dc=lbdesk,dc=test, admin bind with a random password stored only as an SSHA hash) and the
// cn=Monitor backend, which answers searches about the server itself.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './servers';

const SLAPD_CANDIDATES = ['/usr/sbin/slapd', '/usr/local/sbin/slapd', '/usr/local/libexec/slapd'];
const SLAPADD_CANDIDATES = ['/usr/sbin/slapadd', '/usr/local/sbin/slapadd'];
const SCHEMA = '/etc/ldap/schema/core.schema';

export const slapdPath = SLAPD_CANDIDATES.find((p) => existsSync(p));
const slapaddPath = SLAPADD_CANDIDATES.find((p) => existsSync(p));
/** Why slapd tests must skip here, or undefined when they can run. */
export const slapdMissing = !slapdPath || !slapaddPath || !existsSync(SCHEMA) ? 'slapd, slapadd or core.schema not installed (apt-get install slapd ldap-utils)' : undefined;

export const SUFFIX = 'dc=lbdesk,dc=test';
export const ADMIN_DN = `cn=admin,${SUFFIX}`;

export interface Slapd {
  host: string;
  port: number;
  url: string;
  /** Random per run; only its SSHA hash is written to disk. */
  adminPassword: string;
  /** SIGSTOP / SIGCONT: a server that accepts connections but never answers. */
  /** Stops slapd (SIGSTOP) and resolves once every one of its threads has stopped. */
  freeze(): Promise<void>;
  thaw(): void;
  stop(): Promise<void>;
}

function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

async function waitForPort(host: string, port: number, child: ChildProcess, stderr: () => string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}: ${stderr().trim().split('\n').slice(-3).join(' | ')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`slapd did not listen on ${host}:${port} within ${ms} ms`);
}

/**
 * `tree`: beside OpenLDAP's own cn=Monitor, an ldif database at `suffix` holding `ldif` (its
 * entries) under the extra `schema` lines: another product's monitor subtree as it publishes it
 * (PingDirectoryProxy's cn=monitor entries; at another suffix, cn=Monitor being slapd's own).
 */
export interface SlapdTree { suffix: string; schema: string[]; ldif: string }

export async function startSlapd(host: string, tree?: SlapdTree): Promise<Slapd> {
  if (slapdMissing) throw new Error(slapdMissing);
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-slapd-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const adminPassword = randomBytes(12).toString('base64url');
  const conf = join(dir, 'slapd.conf');
  writeFileSync(conf, [
    `include ${SCHEMA}`,
    ...(tree?.schema ?? []),
    // The administrative alert attributes of seed 002 (a Directory Server flags itself degraded
    // or unavailable on its monitor entry), under OpenLDAP's experimental OID arc.
    "attributetype ( 1.3.6.1.4.1.4203.666.11.1 NAME 'unavailable-alert-type' EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
    "attributetype ( 1.3.6.1.4.1.4203.666.11.2 NAME 'degraded-alert-type' EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
    "objectclass ( 1.3.6.1.4.1.4203.666.11.3 NAME 'lbdeskAlerts' AUXILIARY MAY ( unavailable-alert-type $ degraded-alert-type ) )",
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'database ldif',
    `suffix "${SUFFIX}"`,
    `rootdn "${ADMIN_DN}"`,
    `rootpw ${ssha(adminPassword)}`,
    `directory ${data}`,
    'database monitor',
    // The admin may change it (a test moving a server's state), everyone else reads.
    ...(tree ? ['database ldif', `suffix "${tree.suffix}"`, `directory ${join(dir, 'tree')}`, `access to * by dn.exact="${ADMIN_DN}" write by * read`] : []),
    '',
  ].join('\n'));
  const base = join(dir, 'base.ldif');
  writeFileSync(base, `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: lbdesk\no: lbdesk test\n`);
  const add = spawnSync(slapaddPath!, ['-f', conf, '-b', SUFFIX, '-l', base], { encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`slapadd failed: ${add.stderr}`);
  if (tree) {
    mkdirSync(join(dir, 'tree'));
    writeFileSync(join(dir, 'tree.ldif'), tree.ldif);
    const t = spawnSync(slapaddPath!, ['-f', conf, '-b', tree.suffix, '-l', join(dir, 'tree.ldif')], { encoding: 'utf8' });
    if (t.status !== 0) throw new Error(`slapadd of ${tree.suffix} failed: ${t.stderr}`);
  }
  const port = await freePort(host);
  const url = `ldap://${host}:${port}/`;
  // -d 0: stay in the foreground (so the test owns the process) without debug output.
  const child = spawn(slapdPath!, ['-d', '0', '-h', url, '-f', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  try {
    await waitForPort(host, port, child, () => err);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    host,
    port,
    url,
    adminPassword,
    freeze: async () => {
      child.kill('SIGSTOP');
      // kill() returns before a thread busy on the other core has stopped: wait until all have.
      const stopped = () => {
        try {
          const tasks = readdirSync(`/proc/${child.pid}/task`);
          return tasks.every((t) => /^\S+ \(.*\) [tT] /.test(readFileSync(`/proc/${child.pid}/task/${t}/stat`, 'utf8')));
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 200 && !stopped(); i++) await new Promise((r) => setTimeout(r, 5));
    },
    thaw: () => child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGCONT');
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
