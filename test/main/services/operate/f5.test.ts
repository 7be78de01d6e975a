// `lbdesk state | drain | maint | ready` on an F5 BIG-IP (the F5 test box over loopback SSH):
// `show ltm pool members` with `list ltm node` / `list ltm pool` read into each member's state,
// the member's session and state modified at once in tmsh and never saved (no save sys config).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShowPoolMembers } from '../../../../main/services/drivers/f5/show';
import { runCli } from '../../../helpers/cli';
import { startF5Box, type F5Box } from '../../../helpers/command-boxes/f5-box';

const CONFIG = [
  'ltm node /Common/web1 {', '    address 192.0.2.11', '}',
  'ltm node /Common/web2 {', '    address 192.0.2.12', '}',
  'ltm pool /Common/web {', '    members {',
  '        /Common/web1:80 {', '            address 192.0.2.11', '        }',
  '        /Common/web2:80 {', '            address 192.0.2.12', '            ratio 3', '        }',
  '    }', '    monitor /Common/tcp', '}',
  'ltm virtual /Common/vip1 {', '    destination /Common/192.0.2.100:80', '    ip-protocol tcp', '    pool /Common/web', '}', '',
].join('\n');

interface JsonState { members: { server: string; admin?: string; health: string; sessions?: number; weight?: number; check?: string; why?: string }[] }

describe('tmsh show ltm pool members', () => {
  it('reads members with and without the | margin, the pool named in the header or on the member line', () => {
    const text = [
      'Ltm::Pool: pool_web_443', 'Ltm::Pool Member: 198.51.100.11:443', 'Status', '    Availability : available', '    State        : enabled',
      '    Reason       : Pool member is available', 'Ltm::Pool Member: 198.51.100.12:443', 'Status', '    Availability : offline',
      '    State        : disabled', '    Reason       : Manually forced offline',
      '  | Ltm::Pool Member: http-pool  203.0.113.40:80', '  |   Availability   : available', '  |   Current Connections   7        -',
    ].join('\n');
    expect(parseShowPoolMembers(text).map((m) => [m.pool, m.member, m.fields.get('Availability'), m.fields.get('State'), m.connections])).toEqual([
      ['pool_web_443', '198.51.100.11:443', 'available', 'enabled', undefined],
      ['pool_web_443', '198.51.100.12:443', 'offline', 'disabled', undefined],
      ['http-pool', '203.0.113.40:80', 'available', undefined, 7],
    ]);
  });
});

describe('lbdesk state / drain / maint / ready on the F5 test box', { timeout: 120_000 }, () => {
  let box: F5Box;
  let dir: string;
  let file: string;
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli(args, { env: { LBDESK_DATA_DIR: join(dir, 'data') }, timeoutMs: 60_000 });
  const state = async () => {
    const r = await cli(['state', file, '--appliance', 'big1', '--json', ...ssh()]);
    expect(r.code, r.stderr).not.toBe(2);
    return (JSON.parse(r.stdout) as JsonState).members;
  };
  const row = (s: JsonState['members'], server: string) => s.find((m) => m.server === server)!;

  beforeAll(async () => {
    box = await startF5Box({ host: '127.0.33.5', config: CONFIG, pageLines: 10 });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-f5-operate-'));
    writeFileSync(join(dir, 'known_hosts'), `${box.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    writeFileSync(file, [
      'lbdesk: 1', 'name: f5-operate',
      'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }', '  - { name: web3, address: 192.0.2.13 }',
      'groups:', '  - { name: web, members: [{ server: web1, port: 80 }, { server: web2, port: 80 }, { server: web3, port: 80 }] }',
      'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
      'appliances:', '  - name: big1', `    host: ${box.host}`, `    port: ${box.port}`, '    user: admin', '    auth: key', `    keyFile: ${box.keyFile}`, '    driver: f5', '',
    ].join('\n'));
  });
  afterAll(async () => { await box?.stop(); });

  it('state, drain, maint, ready: the box shows each at once; nothing saved; web3 unknown and nothing changed', async () => {
    box.sessions.set('web2:80', 5);
    const s = await state();
    expect(row(s, 'web1')).toMatchObject({ admin: 'ready', health: 'up', sessions: 0, weight: 1, check: 'available, enabled, Pool member is available (monitor up)' });
    expect(row(s, 'web2')).toMatchObject({ admin: 'ready', sessions: 5, weight: 3 });
    expect(row(s, 'web3')).toMatchObject({ health: 'unknown', why: 'the box has no pool member for web3 (192.0.2.13) on port 80' });

    const d = await cli(['drain', file, '--appliance', 'big1', 'web/web2', ...ssh()]);
    expect(d.code, d.stderr).toBe(0);
    expect(box.received.slice(-1)).toEqual(['modify ltm pool /Common/web members modify { /Common/web2:80 { session user-disabled } }']);
    expect(row(await state(), 'web2')).toMatchObject({ admin: 'drain', health: 'up', sessions: 5 });
    expect(box.saved()).toBe(CONFIG);

    expect((await cli(['maint', file, '--appliance', 'big1', 'web2', ...ssh()])).code).toBe(0);
    expect(row(await state(), 'web2')).toMatchObject({ admin: 'maint', health: 'down', check: 'offline, disabled, Forced down (monitor forced down)' });

    expect((await cli(['ready', file, '--appliance', 'big1', 'web2', ...ssh()])).code).toBe(0);
    expect(row(await state(), 'web2')).toMatchObject({ admin: 'ready', health: 'up' });
    expect(box.running()).toBe(CONFIG);
    expect(box.received).not.toContain('save sys config');

    const unknown = await cli(['drain', file, '--appliance', 'big1', 'web3', ...ssh()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('lbdesk: big1: web/web3:80: the box has no pool member for web3 (192.0.2.13) on port 80; nothing was changed');
    expect(box.running()).toBe(CONFIG);
  });
});
