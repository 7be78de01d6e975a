// A member an engineer put in maintenance or drained on a command-driven box (ADX, F5, NetScaler) stays so
// through a later push: the plan does not enable it again, the preview and the push name it, and
// it stays out until `lbdesk ready`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../helpers/cli';
import { startAdxBox, type AdxBox } from '../../../helpers/command-boxes/adx-box';
import { startF5Box, type F5Box } from '../../../helpers/command-boxes/f5-box';
import { startNsBox, type NsBox } from '../../../helpers/command-boxes/netscaler-box';

interface JsonState { members: { server: string; admin?: string }[] }

function site(dir: string, appliance: string[], weight = ''): string {
  const file = join(dir, 'site.yaml');
  writeFileSync(file, [
    'lbdesk: 1', 'name: kept-push',
    'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }',
    'groups:', `  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: 80${weight} }, { server: web2, port: 80${weight} }] }`,
    'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
    'appliances:', ...appliance, '',
  ].join('\n'));
  return file;
}

function tools(dir: string, knownHostsLine: string) {
  writeFileSync(join(dir, 'known_hosts'), `${knownHostsLine}\n`);
  writeFileSync(join(dir, 'ssh_config'), '');
  const ssh = ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli([...args, ...ssh], { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
  return { cli };
}

describe('a push to the ADX test box keeps lbdesk maint and drain', { timeout: 120_000 }, () => {
  const CONFIG = [
    'server real web1 192.0.2.11', ' port http', ' port http keepalive', '!',
    'server real web2 192.0.2.12', ' port http', ' port http keepalive', '!',
    'server virtual vip1 192.0.2.100', ' port http', ' bind http web1 http web2 http', '!', '',
  ].join('\n');
  let box: AdxBox;
  let dir: string;
  let file: string;
  let cli: ReturnType<typeof tools>['cli'];
  const admin = async (server: string) => {
    const r = await cli(['state', file, '--appliance', 'adx1', '--json']);
    return (JSON.parse(r.stdout) as JsonState).members.find((m) => m.server === server)?.admin;
  };

  beforeAll(async () => {
    box = await startAdxBox({ host: '127.0.17.1', config: CONFIG });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-kept-adx-'));
    ({ cli } = tools(dir, box.knownHostsLine));
    file = site(dir, ['  - name: adx1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: adx', '    cli:', '      timeout: 5s'], ', weight: 5');
  });
  afterAll(async () => { await box?.stop(); });

  it('maint web1, drain web2, push a weight change: web1 not enabled again, web2 still drained; both named; ready brings them back', async () => {
    expect((await cli(['maint', file, '--appliance', 'adx1', 'web1'])).code).toBe(0);
    expect((await cli(['drain', file, '--appliance', 'adx1', 'web2'])).code).toBe(0);

    const preview = await cli(['diff', file, '--appliance', 'adx1']);
    expect(preview.stdout).not.toMatch(/^[+-]\s*enable$/m);
    const dry = await cli(['push', file, '--appliance', 'adx1', '--dry-run']);
    expect(dry.stderr).toMatch(/adx1: would keep maint on web\/web1:80 \(since .*, by .*\)/);
    expect(dry.stderr).toMatch(/adx1: would keep drain on web\/web2:80/);

    const sent = box.received.length;
    const p = await cli(['push', file, '--appliance', 'adx1']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    expect(p.stdout).toMatch(/adx1: note: kept maint on web\/web1:80 \(since .*\): left as it is on the box until lbdesk ready/);
    expect(p.stdout).toMatch(/adx1: note: kept drain on web\/web2:80/);
    const pushed = box.received.slice(sent);
    expect(pushed).toContain('weight 5');
    expect(pushed).not.toContain('enable');
    expect(pushed).not.toContain('no port http disable');
    expect(await admin('web1')).toBe('maint');
    expect(await admin('web2')).toBe('drain');

    expect((await cli(['ready', file, '--appliance', 'adx1', 'web1', 'web2'])).code).toBe(0);
    expect(await admin('web1')).toBe('ready');
    expect(await admin('web2')).toBe('ready');
    // Nothing kept now: a push names no one and has nothing to leave alone.
    const again = await cli(['push', file, '--appliance', 'adx1']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/kept /);
    expect(again.stderr).not.toMatch(/keeps /);
  });
});

describe('a push to the F5 test box keeps lbdesk maint and drain', { timeout: 120_000 }, () => {
  const CONFIG = [
    'ltm node /Common/web1 {', '    address 192.0.2.11', '}',
    'ltm node /Common/web2 {', '    address 192.0.2.12', '}',
    'ltm pool /Common/web {', '    members {',
    '        /Common/web1:80 {', '            address 192.0.2.11', '        }',
    '        /Common/web2:80 {', '            address 192.0.2.12', '        }',
    '    }', '    monitor /Common/tcp', '}',
    'ltm virtual /Common/vip1 {', '    destination /Common/192.0.2.100:80', '    ip-protocol tcp', '    pool /Common/web', '}', '',
  ].join('\n');
  let box: F5Box;
  let dir: string;
  let file: string;
  let cli: ReturnType<typeof tools>['cli'];
  const admin = async (server: string) => {
    const r = await cli(['state', file, '--appliance', 'big1', '--json']);
    return (JSON.parse(r.stdout) as JsonState).members.find((m) => m.server === server)?.admin;
  };

  beforeAll(async () => {
    box = await startF5Box({ host: '127.0.17.2', config: CONFIG });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-kept-f5-'));
    ({ cli } = tools(dir, box.knownHostsLine));
    file = site(dir, ['  - name: big1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: f5'], ', weight: 2');
  });
  afterAll(async () => { await box?.stop(); });

  it('maint web1, drain web2, push a ratio change: both stay out, both named; ready brings them back', async () => {
    expect((await cli(['maint', file, '--appliance', 'big1', 'web1'])).code).toBe(0);
    expect((await cli(['drain', file, '--appliance', 'big1', 'web2'])).code).toBe(0);
    const sent = box.received.length;
    const p = await cli(['push', file, '--appliance', 'big1']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    expect(p.stderr).toMatch(/big1: keeps maint on web\/web1:80/);
    expect(p.stdout).toMatch(/big1: note: kept maint on web\/web1:80 .*left as it is on the box until lbdesk ready/);
    expect(p.stdout).toMatch(/big1: note: kept drain on web\/web2:80/);
    const pushed = box.received.slice(sent).join('\n');
    expect(pushed).toMatch(/ratio 2/);
    expect(pushed).not.toMatch(/user-enabled|user-up/);
    expect(await admin('web1')).toBe('maint');
    expect(await admin('web2')).toBe('drain');
    expect((await cli(['ready', file, '--appliance', 'big1', 'web1', 'web2'])).code).toBe(0);
    expect(await admin('web1')).toBe('ready');
    expect(await admin('web2')).toBe('ready');
  });
});

describe('a push to the NetScaler test box keeps lbdesk maint and drain', { timeout: 120_000 }, () => {
  const CONFIG = [
    'add server web1 192.0.2.11', 'add server web2 192.0.2.12',
    'add serviceGroup web TCP', 'add lb vserver vip1 TCP 192.0.2.100 80', 'bind lb vserver vip1 web',
    'bind serviceGroup web web1 80', 'bind serviceGroup web web2 80', 'bind serviceGroup web -monitorName tcp', '',
  ].join('\n');
  let box: NsBox;
  let dir: string;
  let file: string;
  let cli: ReturnType<typeof tools>['cli'];
  const admin = async (server: string) => {
    const r = await cli(['state', file, '--appliance', 'ns1', '--json']);
    return (JSON.parse(r.stdout) as JsonState).members.find((m) => m.server === server)?.admin;
  };

  beforeAll(async () => {
    box = await startNsBox({ host: '127.0.17.5', config: CONFIG });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-kept-ns-'));
    ({ cli } = tools(dir, box.knownHostsLine));
    file = site(dir, ['  - name: ns1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: nsroot', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: netscaler', '    cli:', '      timeout: 5s'], ', weight: 4');
    writeFileSync(file, readFileSync(file, 'utf8').replace('group: web }', 'group: web, algorithm: least-connections }'));
  });
  afterAll(async () => { await box?.stop(); });

  it('maint web1, drain web2, push a weight change: web1 not enabled again, web2 still drained; both named; ready brings them back', async () => {
    expect((await cli(['maint', file, '--appliance', 'ns1', 'web1'])).code).toBe(0);
    expect((await cli(['drain', file, '--appliance', 'ns1', 'web2'])).code).toBe(0);
    const dry = await cli(['push', file, '--appliance', 'ns1', '--dry-run']);
    expect(dry.stderr).toMatch(/ns1: would keep maint on web\/web1:80 \(since .*, by .*\)/);

    const sent = box.received.length;
    const p = await cli(['push', file, '--appliance', 'ns1']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    expect(p.stdout).toMatch(/ns1: note: kept maint on web\/web1:80 \(since .*\): left as it is on the box until lbdesk ready/);
    expect(p.stdout).toMatch(/ns1: note: kept drain on web\/web2:80/);
    const pushed = box.received.slice(sent);
    expect(pushed).toContain('set serviceGroup web web1 80 -weight 4');
    expect(pushed.filter((c) => /^enable /i.test(c))).toEqual([]);
    expect(await admin('web1')).toBe('maint');
    expect(await admin('web2')).toBe('drain');

    expect((await cli(['ready', file, '--appliance', 'ns1', 'web1', 'web2'])).code).toBe(0);
    expect(await admin('web1')).toBe('ready');
    expect(await admin('web2')).toBe('ready');
    const again = await cli(['push', file, '--appliance', 'ns1']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/kept /);
  });
});

describe('a commit-confirmed push to the ADX test box, not confirmed: the inverse keeps lbdesk maint and drain', { timeout: 120_000 }, () => {
  const CONFIG = [
    'server real web1 192.0.2.11', ' port http', ' port http keepalive', '!',
    'server real web2 192.0.2.12', ' port http', ' port http keepalive', '!',
    'server virtual vip1 192.0.2.100', ' port http', ' bind http web1 http web2 http', '!', '',
  ].join('\n');
  let box: AdxBox;
  let dir: string;
  let file: string;
  let cli: ReturnType<typeof tools>['cli'];
  const admin = async (server: string) => {
    const r = await cli(['state', file, '--appliance', 'adx1', '--json']);
    return (JSON.parse(r.stdout) as JsonState).members.find((m) => m.server === server)?.admin;
  };

  beforeAll(async () => {
    box = await startAdxBox({ host: '127.0.43.2', config: CONFIG });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-kept-confirm-'));
    ({ cli } = tools(dir, box.knownHostsLine));
    file = site(dir, ['  - name: adx1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: adx', '    cli:', '      timeout: 5s'], ', weight: 5');
  });
  afterAll(async () => { await box?.stop(); });

  it('web1 in maint before the push, web2 drained while it waits: the inverse at the deadline takes the weights back and neither member comes back; nothing saved', async () => {
    expect((await cli(['maint', file, '--appliance', 'adx1', 'web1'])).code).toBe(0);
    const maintOnly = box.running();
    const push = cli(['push', file, '--appliance', 'adx1', '--confirm-within', '10s']);
    // Applied, not yet confirmed: the engineer drains web2 meanwhile.
    await vi.waitFor(() => expect(box.running()).toMatch(/weight 5/), { timeout: 30_000, interval: 100 });
    expect((await cli(['drain', file, '--appliance', 'adx1', 'web2'])).code).toBe(0);
    const p = await push;
    expect(p.code, p.stderr + p.stdout).toBe(3);
    expect(p.stdout).toMatch(/adx1: note: kept maint on web\/web1:80 \(since .*\): left as it is on the box until lbdesk ready/);
    expect(p.stdout).toMatch(/adx1: not confirmed: the inverse was sent at .*, nothing saved/);
    // The weights went back; web1's disable and web2's port disable stayed: the inverse only undoes the push.
    expect(box.running()).not.toMatch(/weight 5/);
    expect(box.running()).toBe(maintOnly.replace('server real web2 192.0.2.12\n port http\n port http keepalive\n', 'server real web2 192.0.2.12\n port http\n port http keepalive\n port http disable\n'));
    expect(await admin('web1')).toBe('maint');
    expect(await admin('web2')).toBe('drain');
    expect(box.saved()).toBe(CONFIG);
    expect(box.received).not.toContain('write memory');

    // Still kept: the next push names both, and ready brings them back.
    const dry = await cli(['push', file, '--appliance', 'adx1', '--dry-run']);
    expect(dry.stderr).toMatch(/adx1: would keep maint on web\/web1:80/);
    expect(dry.stderr).toMatch(/adx1: would keep drain on web\/web2:80/);
    expect((await cli(['ready', file, '--appliance', 'adx1', 'web1', 'web2'])).code).toBe(0);
    expect(box.running()).toBe(CONFIG);
  });
});
