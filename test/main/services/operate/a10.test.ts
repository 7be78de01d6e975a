// `lbdesk state | drain | maint | ready` on an A10 Thunder (the A10 test box over loopback SSH):
// `show slb server` beside the running config read into each member's state, the slb server port
// (drain) or the whole server (maint) disabled and enabled again at once, never saved.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { a10Members, parseShowSlbServer } from '../../../../main/services/drivers/a10/show';
import { runCli } from '../../../helpers/cli';
import { startA10Box, type A10Box } from '../../../helpers/command-boxes/a10-box';

const CONFIG = [
  'slb server web1 192.0.2.11', '  port 80 tcp', '!',
  'slb server web2 192.0.2.12', '  weight 3', '  port 80 tcp', '!',
  'slb service-group web tcp', '  member web1 80', '  member web2 80', '!',
  'slb virtual-server vip1 192.0.2.100', '  port 80 tcp', '    service-group web', '!', '',
].join('\n');

interface JsonState { members: { server: string; admin?: string; health: string; sessions?: number; weight?: number; check?: string; why?: string }[] }

describe('ACOS show slb server', () => {
  it('reads the real layout: each server port and its Total row; admin from the running config and the Disabled words', () => {
    // The rows as a vThunder prints them (drivers/a10/show.ts names the sample), addresses in documentation ranges.
    const text = [
      'Total Number of Servers configured: 2', 'Total Number of Services configured: 2',
      '                   Current = Current Connections, Total = Total Connections',
      '                   Fwd-pkt = Forward packets, Rev-pkt = Reverse packets',
      'Service                   Current    Total      Fwd-pkt    Rev-pkt    Peak-conn  State',
      '---------------------------------------------------------------------------------------',
      's1:80/tcp                 4          2          12         8          0          Up',
      's1: Total                 4          2          12         8          0          Up', '',
      's2:80/tcp                 0          2          12         8          0          Down',
      's2: Total                 0          2          12         8          0          Disabled', '',
    ].join('\n');
    expect(parseShowSlbServer(text)).toEqual([
      { server: 's1', port: 80, proto: 'tcp', current: 4, state: 'Up' }, { server: 's1', current: 4, state: 'Up' },
      { server: 's2', port: 80, proto: 'tcp', current: 0, state: 'Down' }, { server: 's2', current: 0, state: 'Disabled' },
    ]);
    const running = 'slb server s1 198.51.100.1\n  port 80 tcp\n!\nslb server s2 198.51.100.2\n  port 80 tcp\n!\n';
    expect(a10Members(text, running).map((m) => [m.object, m.address, m.port, m.admin, m.health, m.sessions])).toEqual([
      ['s1', '198.51.100.1', 80, 'ready', 'up', 4], ['s2', '198.51.100.2', 80, 'maint', 'no-check', 0],
    ]);
  });
});

describe('lbdesk state / drain / maint / ready on the A10 test box', { timeout: 180_000 }, () => {
  let box: A10Box;
  let dir: string;
  let file: string;
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli([...args, ...ssh()], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
  const state = async () => {
    const r = await cli(['state', file, '--appliance', 'thunder1', '--json']);
    expect(r.code, r.stderr).not.toBe(2);
    return (JSON.parse(r.stdout) as JsonState).members;
  };
  const row = (s: JsonState['members'], server: string) => s.find((m) => m.server === server)!;

  beforeAll(async () => {
    box = await startA10Box({ host: '127.0.17.3', config: CONFIG, userMode: true, pageLines: 6 });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-a10-operate-'));
    writeFileSync(join(dir, 'known_hosts'), `${box.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: a10-operate',
      'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }', '  - { name: web3, address: 192.0.2.13 }',
      'groups:', '  - { name: web, members: [{ server: web1, port: 80 }, { server: web2, port: 80, weight: 3 }, { server: web3, port: 80 }] }',
      'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
      'appliances:', '  - name: thunder1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: a10', '    cli:', '      timeout: 5s', '',
    ].join('\n'));
  });
  afterAll(async () => { await box?.stop(); });
  beforeEach(() => { box.sessions.clear(); box.health.clear(); });

  it('state: each member as the box has it; web3 (not on the box) unknown and why; nothing changed', async () => {
    box.sessions.set('web1:80', 4);
    box.health.set('web2:80', 'Down');
    const s = await state();
    expect(row(s, 'web1')).toMatchObject({ admin: 'ready', health: 'up', sessions: 4, check: 'port 80/tcp Up, server Up' });
    expect(row(s, 'web2')).toMatchObject({ admin: 'ready', health: 'down', weight: 3 });
    expect(row(s, 'web3')).toMatchObject({ health: 'unknown', why: 'the box has no slb server port for web3 (192.0.2.13) on port 80' });
    expect(box.running()).toBe(CONFIG);
  });

  it('drain, maint, ready: the box shows each at once; never saved; ready leaves the config as it was', async () => {
    const sent = box.received.length;
    const d = await cli(['drain', file, '--appliance', 'thunder1', 'web/web1']);
    expect(d.code, d.stderr).toBe(0);
    expect(box.received.slice(sent).slice(-6)).toEqual(['configure terminal', 'slb server web1', 'port 80 tcp', 'disable', 'exit', 'end']);
    expect(box.running()).toBe(CONFIG.replace('  port 80 tcp\n!\nslb server web2', '  port 80 tcp\n    disable\n!\nslb server web2'));
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'drain', health: 'no-check', check: 'port 80/tcp Disabled, server Up' });

    expect((await cli(['maint', file, '--appliance', 'thunder1', 'web1'])).code).toBe(0);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'maint', check: 'port 80/tcp Down, server Disabled' });

    const r = await cli(['ready', file, '--appliance', 'thunder1', 'web1']);
    expect(r.code, r.stderr).toBe(0);
    expect(box.received.slice(-7)).toEqual(['configure terminal', 'slb server web1', 'port 80 tcp', 'enable', 'exit', 'enable', 'end']);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'ready', health: 'up' });
    expect(box.running()).toBe(CONFIG);
    expect(box.saved()).toBe(CONFIG);
    expect(box.received).not.toContain('write memory');
  });

  it('drain --wait follows the port\'s connections down; a member the box lacks is refused, nothing changed', async () => {
    box.sessions.set('web2:80', 3);
    const fall = setInterval(() => {
      const n = box.sessions.get('web2:80') ?? 0;
      if (/slb server web2[^!]*disable/.test(box.running()) && n > 0) box.sessions.set('web2:80', n - 1);
    }, 300);
    try {
      const d = await cli(['drain', file, '--appliance', 'thunder1', 'web2', '--wait', '30s']);
      expect(d.code, d.stderr).toBe(0);
      const counts = [...d.stdout.matchAll(/web\/web2:80: (\d+) session/g)].map((x) => Number(x[1]));
      expect(counts[counts.length - 1]).toBe(0);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    } finally {
      clearInterval(fall);
    }
    expect((await cli(['ready', file, '--appliance', 'thunder1', 'web2'])).code).toBe(0);
    const unknown = await cli(['drain', file, '--appliance', 'thunder1', 'web3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('lbdesk: thunder1: web/web3:80: the box has no slb server port for web3 (192.0.2.13) on port 80; nothing was changed');
    expect(box.running()).toBe(CONFIG);
  });

  it('a push while web1 is in maintenance: the plan does not enable it again', async () => {
    expect((await cli(['maint', file, '--appliance', 'thunder1', 'web1'])).code).toBe(0);
    const sent = box.received.length;
    const p = await cli(['push', file, '--appliance', 'thunder1']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    expect(p.stdout).toMatch(/thunder1: note: kept maint on web\/web1:80 .*left as it is on the box until lbdesk ready/);
    // The first `enable` is the privileged mode (the box greets with `>`); none follows in configuration mode.
    const pushed = box.received.slice(sent);
    expect(pushed[0]).toBe('enable');
    expect(pushed.slice(1)).not.toContain('enable');
    expect(pushed.some((c) => c.startsWith('slb server web1'))).toBe(false);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'maint' });
    expect((await cli(['ready', file, '--appliance', 'thunder1', 'web1'])).code).toBe(0);
    expect(row(await state(), 'web1')).toMatchObject({ admin: 'ready' });
  });
});
