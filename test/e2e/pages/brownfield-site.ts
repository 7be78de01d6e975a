// A site lbdesk did not build: a hand-written haproxy.cfg (stats with auth, a TLS frontend with
// ACLs and use_backend rules, a userlist, four backends with roundrobin / leastconn / source /
// first, tabs and odd indentation) run by a real HAProxy in master-worker mode behind a real
// sshd on loopback, imported into a workspace by `lbdesk import --appliance` (manage: sections)
// with the window's data folder, as a field engineer's first contact would.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { dataDir } from './env';
import { freePort, haproxyApplianceLines, startSshd, type Sshd } from '../../helpers/sshd';
import { runCli } from '../../helpers/cli';

export const HAPROXY = '/usr/sbin/haproxy';
export const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));
export const noBrownfield = [!existsSync(HAPROXY) && 'haproxy', !OPENSSL && 'openssl'].filter(Boolean).join(', ');

export interface BrownfieldSite {
  sshd: Sshd;
  workspaceFile: string;
  /** The box's config file. */
  live: string;
  /** Its bytes as the site team wrote them. */
  original: string;
  log(): string;
  stop(): Promise<void>;
}

/** `addresses`: sshd, VIP, and two backend addresses, all loopback and this spec's own. */
export async function startBrownfieldSite(name: string, addresses: [string, string, string, string]): Promise<BrownfieldSite> {
  const [sshHost, vip, b1, b2] = addresses;
  const sshd = await startSshd({ host: sshHost });
  const dir = mkdtempSync(join(dataDir(), `${name}-`));
  const port = { www: await freePort(vip), tls: await freePort(vip), stats: await freePort(vip), backend: await freePort(b1) };
  const backends: Server[] = [];
  for (const address of [b1, b2]) {
    const s = createServer((_req, res) => res.end(`backend ${address}\n`));
    await new Promise<void>((r) => s.listen(port.backend, address, () => r()));
    backends.push(s);
  }
  spawnSync(OPENSSL!, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=lbdesk-e2e'], { stdio: 'ignore' });
  writeFileSync(join(dir, 'site.pem'), readFileSync(join(dir, 'c.pem'), 'utf8') + readFileSync(join(dir, 'k.pem'), 'utf8'));
  const live = join(dir, 'haproxy.cfg');
  const original = [
    '# Hand-written by the site team.',
    'global',
    '\tmaxconn 2000',
    '',
    'defaults',
    '\tmode http',
    '\ttimeout connect 2s',
    '  timeout client 30s',
    '\ttimeout server 30s',
    '',
    'userlist admins',
    '\tuser ops insecure-password ops-e2e-secret',
    '',
    'listen stats',
    `\tbind ${vip}:${port.stats}`,
    '\tstats enable',
    '\tstats uri /stats',
    '\tstats auth admin:stats-e2e-secret',
    '',
    '# TLS ends here; /api/ and /admin/ go to their own farms.',
    'frontend https-in',
    `\tbind ${vip}:${port.tls} ssl crt ${join(dir, 'site.pem')}`,
    '      acl is_api path_beg /api/',
    '      acl is_admin path_beg /admin/',
    '\thttp-request auth realm admins if is_admin !{ http_auth(admins) }',
    '\tuse_backend api if is_api',
    '\tuse_backend admin if is_admin',
    '\tdefault_backend web',
    '',
    'frontend www',
    `\tbind ${vip}:${port.www}`,
    '\tdefault_backend web',
    '',
    'backend web',
    '\tbalance roundrobin',
    '\toption httpchk GET /',
    `\tserver web-a ${b1}:${port.backend} weight 1 check inter 1s`,
    `\tserver web-b ${b2}:${port.backend} weight 1 check inter 1s`,
    '',
    'backend api',
    '   balance leastconn',
    `   server api1 ${b2}:${port.backend} check inter 1s`,
    '',
    'backend admin',
    '\tbalance source',
    `\tserver adm1 ${b1}:${port.backend} check inter 1s`,
    '',
    'backend spill',
    '\tbalance first',
    `\tserver sp1 ${b1}:${port.backend} maxconn 10 check inter 1s`,
    `\tserver sp2 ${b2}:${port.backend} maxconn 10 check inter 1s`,
    '',
  ].join('\n');
  writeFileSync(live, original);
  const pid = join(dir, 'haproxy.pid');
  let log = '';
  const haproxy: ChildProcess = spawn(HAPROXY, ['-W', '-f', live, '-p', pid], { stdio: ['ignore', 'pipe', 'pipe'] });
  haproxy.stdout!.on('data', (d) => (log += d));
  haproxy.stderr!.on('data', (d) => (log += d));
  const until = Date.now() + 10_000;
  while (!existsSync(pid)) {
    if (Date.now() > until || haproxy.exitCode !== null) throw new Error(`haproxy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const workspaceFile = join(dir, `${name}.yaml`);
  writeFileSync(workspaceFile, [
    'lbdesk: 1',
    `name: ${name}`,
    'appliances:',
    ...haproxyApplianceLines(sshd, 'box', live, { comment: 'the HAProxy the site already runs', validate: `${HAPROXY} -c -q -f {file}`, reload: `kill -USR2 $(cat ${pid})` }),
    '',
  ].join('\n'));
  // The import reads the box over SSH (its own known_hosts: the window still asks about the key).
  writeFileSync(join(dir, 'known_hosts'), `${sshd.knownHostsLine}\n`);
  writeFileSync(join(dir, 'ssh_config'), '');
  const imported = await runCli(['import', workspaceFile, '--appliance', 'box', '--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')], { env: { LBDESK_DATA_DIR: dataDir() } });
  if (imported.code !== 0) throw new Error(`lbdesk import failed (${imported.code}): ${imported.stderr}`);
  return {
    sshd, workspaceFile, live, original, log: () => log,
    stop: async () => {
      if (haproxy.exitCode === null) {
        const exited = new Promise((r) => haproxy.once('exit', r));
        haproxy.kill('SIGTERM');
        await exited;
      }
      for (const s of backends) await new Promise<void>((r) => s.close(() => r()));
      await sshd.stop();
    },
  };
}
