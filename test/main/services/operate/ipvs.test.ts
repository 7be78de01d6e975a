// keepalived's runtime: `ipvsadm -Ln` read into members (weight 0 = drain), the `ipvsadm -e`
// that drains and restores one, and — this machine's kernel has no IPVS — the one line a box
// without it gets, through a real sshd.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipvsWeightArgs, noIpvs, parseIpvsadm } from '../../../../main/services/drivers/keepalived-ipvs';
import { runCli } from '../../../helpers/cli';
import { noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';

// As ipvsadm 1.31 prints the table (ipvsadm(8); the LVS HOWTO's examples): NAT, DR and a firewall mark.
const TABLE = [
  'IP Virtual Server version 1.2.1 (size=4096)',
  'Prot LocalAddress:Port Scheduler Flags',
  '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
  'TCP  192.0.2.10:80 wlc',
  '  -> 198.51.100.11:8080           Masq    100    12         40',
  '  -> 198.51.100.12:8080           Masq    0      3          7',
  'TCP  [2001:db8::10]:443 rr persistent 300',
  '  -> [2001:db8::11]:443           Route   1      0          2',
  'FWM  3 wrr',
  '  -> 198.51.100.13:0              Tunnel  5      1          0',
  '',
].join('\n');

describe('ipvsadm -Ln', () => {
  it('reads every real server under its virtual service: forward method, weight, active and inactive connections', () => {
    expect(parseIpvsadm(TABLE).map((r) => [r.service, r.address, r.port, r.forward, r.weight, r.active, r.inactive])).toEqual([
      ['TCP 192.0.2.10:80', '198.51.100.11', 8080, 'Masq', 100, 12, 40],
      ['TCP 192.0.2.10:80', '198.51.100.12', 8080, 'Masq', 0, 3, 7],
      ['TCP [2001:db8::10]:443', '2001:db8::11', 443, 'Route', 1, 0, 2],
      ['FWM 3', '198.51.100.13', 0, 'Tunnel', 5, 1, 0],
    ]);
  });

  it('drains by weight 0 and restores a weight, keeping the forward method', () => {
    const [nat, , dr] = parseIpvsadm(TABLE);
    expect(ipvsWeightArgs(nat!, 0)).toEqual(['-e', '-t', '192.0.2.10:80', '-r', '198.51.100.11:8080', '-m', '-w', '0']);
    expect(ipvsWeightArgs(dr!, 1)).toEqual(['-e', '-t', '[2001:db8::10]:443', '-r', '[2001:db8::11]:443', '-g', '-w', '1']);
  });

  it('says why a box without IPVS or without ipvsadm cannot be asked', () => {
    expect(noIpvs('NO-IPVS\n')).toMatch(/^the kernel on this box has no IPVS/);
    expect(noIpvs('NO-IPVSADM\n')).toMatch(/ipvsadm is not installed/);
    expect(noIpvs(TABLE)).toBeUndefined();
  });
});

const haveIpvs = existsSync('/proc/net/ip_vs');
describe.skipIf(skipBecause(noSshd || (haveIpvs && 'this kernel has IPVS: the no-IPVS path is not what it shows'), 'keepalived state on a box without IPVS'))('keepalived state on a box without IPVS', { timeout: 60_000 }, () => {
  let sshd: Sshd;
  let dir: string;
  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.33.9' });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-ipvs-'));
    writeFileSync(join(dir, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    writeFileSync(join(dir, 'site.yaml'), [
      'lbdesk: 1', 'name: ipvs', 'servers:', '  - { name: web1, address: 198.51.100.11 }',
      'groups:', '  - { name: web, members: [{ server: web1, port: 8080 }] }',
      'services:', '  - { name: vip, address: 192.0.2.10, port: 80, group: web }',
      'appliances:', '  - name: lvs1', `    host: ${sshd.host}`, `    port: ${sshd.port}`, '    user: root', '    auth: key', `    keyFile: ${sshd.userKey.path}`,
      '    driver: keepalived', `    configPath: ${join(dir, 'keepalived.conf')}`, '',
    ].join('\n'));
  });
  afterAll(async () => { await sshd?.stop(); });

  it('state and drain: exit 2, one line saying the kernel has no IPVS', async () => {
    const ssh = ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
    const env = { LBDESK_DATA_DIR: join(dir, 'data') };
    for (const args of [['state', join(dir, 'site.yaml'), '--appliance', 'lvs1'], ['drain', join(dir, 'site.yaml'), '--appliance', 'lvs1', 'web1']]) {
      const r = await runCli([...args, ...ssh], { env, timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toBe('lbdesk: lvs1: the kernel on this box has no IPVS (/proc/net/ip_vs is missing: the ip_vs module is not loaded), so keepalived balances nothing here to show or drain');
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'data', 'runtime', 'lvs1.json'))).toBe(false);
  });
});
