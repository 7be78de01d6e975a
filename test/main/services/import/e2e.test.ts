// End to end on loopback: a hand-written haproxy.cfg (TLS frontend with ACLs, a stats listener)
// runs in a real HAProxy master-worker behind a real sshd. lbdesk imports it from the appliance,
// a weight changes, a commit-confirmed push and a confirm follow: the stats listener and the TLS
// frontend are byte-identical and still answer, and traffic follows the new weight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWorkspace } from '../../../../shared/model/validate';
import { createDocument, documentToText, setField } from '../../../../shared/model/document';
import { confirmPush, pushConfig } from '../../../../main/services/sync';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { freePort, haproxyApplianceLines, haveSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { runCli } from '../../../helpers/cli';
import { testOptions, waitFor } from '../../../helpers/sync/fixture';
import { which } from '../../../helpers/drivers';
import { skipBecause } from '../../../helpers/skip';

const HAPROXY = '/usr/sbin/haproxy';
const OPENSSL = which('openssl');
const ready = haveSshd && existsSync(HAPROXY) && !!OPENSSL;
const why = ready ? '' : ` (skipped: needs ${[!haveSshd && 'openssh-server', !existsSync(HAPROXY) && 'haproxy', !OPENSSL && 'openssl'].filter(Boolean).join(', ')})`;

function fetch(opts: { host: string; port: number; path?: string; tls?: boolean }): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = (opts.tls ? httpsRequest : get)({ host: opts.host, port: opts.port, path: opts.path ?? '/', agent: false, timeout: 2000, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (e) => resolve({ status: 0, body: `error: ${e.message}` }));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

/** The lines of one section (header to the next section), to prove it is byte-identical. */
function section(text: string, header: string): string {
  const lines = text.split('\n');
  const i = lines.indexOf(header);
  let j = i + 1;
  while (j < lines.length && !/^(frontend|backend|listen|global|defaults)\b/.test(lines[j]!)) j++;
  return lines.slice(i, j).join('\n');
}

describe.skipIf(skipBecause(why, 'import from a real HAProxy over SSH'))(`import from a real HAProxy over SSH, push a weight, confirm${why}`, () => {
  let sshd: Sshd;
  let dir: string;
  let haproxy: ChildProcess;
  let log = '';
  const servers: Server[] = [];
  const vip = '127.0.8.81';
  const ports = { www: 0, tls: 0, stats: 0, backend: 0 };
  let original = '';
  const cfgPath = () => join(dir, 'haproxy.cfg');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-e2e-'));
    sshd = await startSshd({ host: '127.0.8.80' });
    for (const k of ['www', 'tls', 'stats'] as const) ports[k] = await freePort(vip);
    ports.backend = await freePort('127.0.8.82');
    for (const [name, address] of [['A', '127.0.8.82'], ['B', '127.0.8.83'], ['API', '127.0.8.84']] as const) {
      const s = createServer((_req, res) => res.end(`backend ${name}`));
      await new Promise<void>((r) => s.listen(ports.backend, address, () => r()));
      servers.push(s);
    }
    spawnSync(OPENSSL!, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=lbdesk-test']);
    writeFileSync(join(dir, 'site.pem'), readFileSync(join(dir, 'c.pem'), 'utf8') + readFileSync(join(dir, 'k.pem'), 'utf8'));
    original = [
      '# Hand-written by the site team.',
      'global',
      '    maxconn 2000',
      '',
      'defaults',
      '    mode http',
      '    timeout connect 2s',
      '    timeout client 30s',
      '    timeout server 30s',
      '',
      '# TLS terminated here; /api/ goes to the API farm.',
      'frontend https-in',
      `    bind ${vip}:${ports.tls} ssl crt ${join(dir, 'site.pem')}`,
      '    acl is_api path_beg /api/',
      '    use_backend api if is_api',
      '    default_backend web',
      '',
      'frontend www',
      `    bind ${vip}:${ports.www}`,
      '    default_backend web',
      '',
      'backend web',
      '    balance roundrobin',
      '    option httpchk GET / HTTP/1.0',
      '    timeout check 2s',
      `    server a 127.0.8.82:${ports.backend} weight 1 check inter 1s`,
      `    server b 127.0.8.83:${ports.backend} weight 1 check inter 1s`,
      '',
      'backend api',
      `    server api1 127.0.8.84:${ports.backend} check inter 1s`,
      '',
      'listen stats',
      `    bind ${vip}:${ports.stats}`,
      '    stats enable',
      '    stats uri /stats',
      '',
    ].join('\n');
    writeFileSync(cfgPath(), original);
    haproxy = spawn(HAPROXY, ['-W', '-f', cfgPath(), '-p', join(dir, 'haproxy.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (d) => (log += d));
    haproxy.stderr!.on('data', (d) => (log += d));
    if (!(await waitFor(() => existsSync(join(dir, 'haproxy.pid')), 10_000))) throw new Error(`haproxy did not start: ${log}`);
  });
  afterAll(async () => {
    if (haproxy && haproxy.exitCode === null) {
      const exited = new Promise((r) => haproxy.once('exit', r));
      haproxy.kill('SIGTERM');
      await exited;
    }
    for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the stats listener and the TLS frontend byte for byte; traffic follows the new weight', async () => {
    const opts = testOptions(sshd, dir);
    const workspaceFile = join(dir, 'site.yaml');
    writeFileSync(join(dir, 'ssh_config'), '');
    writeFileSync(workspaceFile, [
      'lbdesk: 1',
      'name: site',
      'appliances:',
      ...haproxyApplianceLines(sshd, 'box', cfgPath(), { comment: 'the HAProxy the site already runs', validate: `${HAPROXY} -c -q -f {file}`, reload: `kill -USR2 $(cat ${join(dir, 'haproxy.pid')})` }),
      '',
    ].join('\n'));
    const imported = await runCli(['import', workspaceFile, '--appliance', 'box', '--known-hosts', opts.knownHostsFile!, '--ssh-config', join(dir, 'ssh_config')], { env: { LBDESK_DATA_DIR: join(dir, 'data') } });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/frontend https-in: kept: HTTP routing rules/);
    expect(imported.stderr).toMatch(/listen stats: kept/);
    const text = readFileSync(workspaceFile, 'utf8');
    expect(text).toContain('  - name: box   # the HAProxy the site already runs');
    const parsed = parseWorkspace(text, workspaceFile);
    expect(parsed.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const site = parsed.workspace!;
    expect(site.appliances[0]!.manage).toBe('sections');
    const web = site.groups.findIndex((g) => g.name === 'web');
    const b = site.groups[web]!.members.findIndex((m) => m.server === 'b');

    // The weight change, as the app saves it: a comment-preserving edit.
    const doc = createDocument(text);
    setField(doc, ['groups', web, 'members', b, 'weight'], 3);
    const edited = parseWorkspace(documentToText(doc), workspaceFile).workspace!;
    const p = openAppliance(edited, edited.appliances[0]!, workspaceFile);
    expect(p.errors).toEqual([]);
    const pushed = await pushConfig(p.target, p.render.text, { ...opts, confirmWithinMs: 60_000 });
    expect(pushed.outcome, `${pushed.reason}\n${log}`).toBe('applied');
    expect((await confirmPush(p.target, opts)).outcome).toBe('confirmed');

    const now = readFileSync(cfgPath(), 'utf8');
    expect(now).toBe(original.replace(`server b 127.0.8.83:${ports.backend} weight 1`, `server b 127.0.8.83:${ports.backend} weight 3`));
    expect(section(now, 'listen stats')).toBe(section(original, 'listen stats'));
    expect(section(now, 'frontend https-in')).toBe(section(original, 'frontend https-in'));
    const stats = await fetch({ host: vip, port: ports.stats, path: '/stats' });
    expect(stats.status).toBe(200);
    expect(stats.body).toContain('Statistics Report');
    expect((await fetch({ host: vip, port: ports.tls, path: '/api/x', tls: true })).body).toBe('backend API');

    // Roundrobin with weights 1:3 over a bounded run of new connections.
    const counts = { A: 0, B: 0 };
    for (let i = 0; i < 40; i++) {
      const r = await fetch({ host: vip, port: ports.www });
      if (r.body === 'backend A') counts.A++;
      else if (r.body === 'backend B') counts.B++;
    }
    expect(counts.A + counts.B).toBe(40);
    expect(counts.B, JSON.stringify(counts)).toBeGreaterThanOrEqual(2 * counts.A);
    expect(counts.A).toBeGreaterThan(0);
  }, 120_000);
});
