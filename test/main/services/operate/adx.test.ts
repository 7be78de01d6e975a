// `lbdesk state | drain | maint | ready` on a ServerIron ADX (the ADX test box over loopback
// SSH): `show server real` read into each member's state, the real-server port disabled and
// enabled again at once and never saved (no write memory), `--wait` following the box's
// connection counters down, and bad input refused in one line with nothing changed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseShowServerReal } from '../../../../main/services/drivers/adx/show';
import { runCli } from '../../../helpers/cli';
import { startAdxBox, type AdxBox } from '../../../helpers/command-boxes/adx-box';

const CONFIG = [
  'server real web1 192.0.2.11', ' port http', ' port http keepalive', '!',
  'server real web2 192.0.2.12', ' port http', '!',
  'server virtual vip1 192.0.2.100', ' port http', ' bind http web1 http web2 http', '!', '',
].join('\n');

interface JsonState { members: { group: string; server: string; port?: number; admin?: string; health: string; sessions?: number; weight?: number; check?: string; why?: string }[] }

describe('ADX show server real', () => {
  it('reads each real server port: admin from the server and port states, sessions, weight, the box words', () => {
    const text = [
      'Real Servers Info',
      'State(St) - ACT:active, ENB:enabled, FAL:failed, TST:test, DIS:disabled,',
      '            UNK:unknown, UNB:unbind, AWU:await-unbind, AWD: await-shutdown',
      '',
      'Name: rs1                            IP:192.0.2.1      : 1 : St: Active    Wt: 5 : 0  Max-conn: 1000000',
      '       Port    St  Ms CurConn TotConn Rx-pkts  Tx-pkts  Rx-octet  Tx-octet  Reas',
      '       ----    --  -- ------- ------- -------  -------  --------  --------  ----',
      '       default DIS 0  0       0       0        0        0         0         0',
      '       http    ACT 0  12      340     0        0        0         0         0',
      '       ssl     DIS 0  2       7       0        0        0         0         0',
      '       8080    FAL 0  0       0       0        0        0         0         0',
      '       Server  Total  14      347     0        0        0         0         0',
      'Name: rs2                            IP:192.0.2.2      : 1 : St: Disabled  Wt: 1 : 0  Max-conn: 1000000',
      '       http    DIS 0  0       0       0        0        0         0         0',
    ].join('\n');
    expect(parseShowServerReal(text).map((m) => [m.object, m.port, m.admin, m.health, m.sessions, m.weight])).toEqual([
      ['rs1', 80, 'ready', 'up', 12, 5], ['rs1', 443, 'drain', 'no-check', 2, 5], ['rs1', 8080, 'ready', 'down', 0, 5],
      ['rs2', 80, 'maint', 'no-check', 0, 1],
    ]);
    expect(parseShowServerReal(text)[0]!.check).toBe('port http ACT (active), server Active');
  });
});

describe('lbdesk state / drain / maint / ready on the ADX test box', { timeout: 120_000 }, () => {
  let box: AdxBox;
  let dir: string;
  let file: string;
  let env: NodeJS.ProcessEnv;
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
  const state = async () => {
    const r = await cli(['state', file, '--appliance', 'adx1', '--json', ...ssh()]);
    return { code: r.code, stderr: r.stderr, members: r.code === 2 ? [] : (JSON.parse(r.stdout) as JsonState).members };
  };
  const row = (s: JsonState['members'], server: string) => s.find((m) => m.server === server)!;

  beforeAll(async () => {
    box = await startAdxBox({ host: '127.0.33.1', config: CONFIG, userMode: true, pageLines: 8 });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-operate-'));
    writeFileSync(join(dir, 'known_hosts'), `${box.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: adx-operate',
      'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }', '  - { name: web3, address: 192.0.2.13 }',
      'groups:',
      '  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: 80 }, { server: web2, port: 80 }, { server: web3, port: 80 }] }',
      'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
      'appliances:',
      '  - name: adx1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`,
      '    driver: adx', '    cli:', '      timeout: 5s', '',
    ].join('\n'));
    env = { LBDESK_DATA_DIR: join(dir, 'data') };
  });
  afterAll(async () => { await box?.stop(); });
  beforeEach(() => { box.sessions.clear(); box.health.clear(); });

  it('state: each member as the box has it, web3 (not on the box) unknown and why; nothing changed', async () => {
    box.sessions.set('web1:http', 4);
    box.health.set('web2:http', 'FAL');
    const before = box.received.length;
    const s = await state();
    expect(s.code, s.stderr).toBe(1);
    expect(row(s.members, 'web1')).toMatchObject({ admin: 'ready', health: 'up', sessions: 4, weight: 1, check: 'port http ACT (active), server Active' });
    expect(row(s.members, 'web2')).toMatchObject({ admin: 'ready', health: 'down', check: 'port http FAL (failed), server Active' });
    expect(row(s.members, 'web3')).toMatchObject({ health: 'unknown', why: 'the box has no real server port for web3 (192.0.2.13) on port 80' });
    expect(box.received.slice(before)).toEqual(['enable', 'skip-page-display', 'show server real']);
    expect(box.running()).toBe(CONFIG);
  });

  it('drain, then ready: the box shows it at once; never saved; the port line is all that came and went', async () => {
    const sent = box.received.length;
    const d = await cli(['drain', file, '--appliance', 'adx1', 'web/web1', ...ssh()]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toBe('adx1: drain: web/web1:80: done\n');
    expect(box.received.slice(sent)).toEqual(['enable', 'skip-page-display', 'show server real', 'configure terminal', 'server real web1', 'port http disable', 'end']);
    // The ADX's admin state is its running config (as on the real box); the saved one is untouched.
    expect(box.running()).toBe(CONFIG.replace(' port http keepalive\n', ' port http keepalive\n port http disable\n'));
    expect(box.saved()).toBe(CONFIG);
    expect(row((await state()).members, 'web1')).toMatchObject({ admin: 'drain' });

    const m = await cli(['maint', file, '--appliance', 'adx1', 'web1', ...ssh()]);
    expect(m.code, m.stderr).toBe(0);
    expect(row((await state()).members, 'web1')).toMatchObject({ admin: 'maint', check: 'port http DIS (disabled), server Disabled' });

    const r = await cli(['ready', file, '--appliance', 'adx1', 'web/web1:80', ...ssh()]);
    expect(r.code, r.stderr).toBe(0);
    expect(box.received.slice(-5)).toEqual(['configure terminal', 'server real web1', 'no port http disable', 'enable', 'end']);
    expect(row((await state()).members, 'web1')).toMatchObject({ admin: 'ready', health: 'up' });
    expect(box.running()).toBe(CONFIG);
    expect(box.received).not.toContain('write memory');
  });

  it('drain --wait follows the box\'s connection count down to zero; ends with exit 4 and the count when it does not fall', async () => {
    box.sessions.set('web2:http', 3);
    // The clients ending their connections: one fewer every 300 ms once the drain is on.
    const fall = setInterval(() => {
      const n = box.sessions.get('web2:http') ?? 0;
      if (/port http disable/.test(box.running()) && n > 0) box.sessions.set('web2:http', n - 1);
    }, 300);
    try {
      const d = await cli(['drain', file, '--appliance', 'adx1', 'web/web2', '--wait', '30s', ...ssh()]);
      expect(d.code, d.stderr).toBe(0);
      const counts = [...d.stdout.matchAll(/web\/web2:80: (\d+) session/g)].map((x) => Number(x[1]));
      expect(counts[counts.length - 1]).toBe(0);
      expect(counts.length).toBeGreaterThanOrEqual(2);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      expect(d.stdout).toMatch(/adx1: no sessions left after /);
    } finally {
      clearInterval(fall);
    }
    box.sessions.set('web2:http', 2);
    const stuck = await cli(['drain', file, '--appliance', 'adx1', 'web/web2', '--wait', '1s', ...ssh()]);
    expect(stuck.code).toBe(4);
    expect(stuck.stderr.trim()).toBe('lbdesk: adx1: --wait 1s ended with sessions left: 2 on web/web2:80');
    expect((await cli(['ready', file, '--appliance', 'adx1', 'web2', ...ssh()])).code).toBe(0);
    expect(box.running()).toBe(CONFIG);
  });

  it('a member the box does not have, and one the box refuses: one line each, nothing changed', async () => {
    const sent = box.received.length;
    const unknown = await cli(['drain', file, '--appliance', 'adx1', 'web/web3', ...ssh()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/web\/web3:80: the box has no real server port for web3 \(192\.0\.2\.13\) on port 80; nothing was changed/);
    expect(box.received.slice(sent)).not.toContain('configure terminal');

    const typo = await cli(['drain', file, '--appliance', 'adx1', 'web/web9', ...ssh()]);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toMatch(/^lbdesk: unknown member "web\/web9": group web has web\/web1:80, web\/web2:80, web\/web3:80$/);
    expect(box.running()).toBe(CONFIG);
  });
});

describe('an ADX that refuses the change', { timeout: 60_000 }, () => {
  it('exit 1 with the box\'s words; the running config as it was', async () => {
    const box = await startAdxBox({ host: '127.0.33.2', config: CONFIG, failOn: /^port http disable$/ });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'lbdesk-adx-refuse-'));
      writeFileSync(join(dir, 'known_hosts'), `${box.knownHostsLine}\n`);
      writeFileSync(join(dir, 'ssh_config'), '');
      const file = join(dir, 'site.yaml');
      writeFileSync(file, [
        'lbdesk: 1', 'name: adx-refuse', 'servers:', '  - { name: web1, address: 192.0.2.11 }',
        'groups:', '  - { name: web, members: [{ server: web1, port: 80 }] }',
        'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
        'appliances:', '  - name: adx1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: adx', '',
      ].join('\n'));
      const r = await runCli(['drain', file, '--appliance', 'adx1', 'web1', '--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')], { env: { LBDESK_DATA_DIR: join(dir, 'data') } });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('lbdesk: adx1: refused by the box: web/web1:80: "port http disable": "Error: port http disable: the box refuses this (test)" (nothing was changed)');
      expect(box.running()).toBe(CONFIG);
      expect(box.received.slice(-1)).toEqual(['end']);
    } finally {
      await box.stop();
    }
  });
});
