// keepalived (LVS) mapping, one rule at a time.
import { describe, expect, it } from 'vitest';
import { renderForAppliance } from '../../../../main/services/drivers';
import type { WorkspaceInput } from '../../../../shared/model/schema';
import { appliance, workspace } from '../../../helpers/drivers';

type Group = NonNullable<WorkspaceInput['groups']>[number];

function render(extra: Partial<WorkspaceInput>) {
  const site = workspace({ appliances: [{ name: 'k', host: '192.0.2.1', driver: 'keepalived' }], ...extra });
  return renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/unit.yaml' });
}

const lines = (text: string) => text.split('\n').map((l) => l.trim());

function service(healthCheck: Group['healthCheck'], opts: { protocol?: 'tcp' | 'udp'; port?: number; algorithm?: string; members?: Group['members']; extra?: object } = {}) {
  return render({
    servers: [{ name: 'a', address: '192.0.2.21' }, { name: 'b', address: '192.0.2.22', enabled: false }],
    groups: [{ name: 'g', members: opts.members ?? [{ server: 'a', port: opts.port ?? 8081, weight: 300 }], healthCheck }],
    services: [{ name: 'vip', address: '192.0.2.10', port: 8080, protocol: opts.protocol ?? 'tcp', group: 'g', algorithm: (opts.algorithm ?? 'round-robin') as never, ...opts.extra }],
  });
}

/** The checker block of the first real server. */
function checker(text: string): string[] {
  const l = lines(text);
  const start = l.findIndex((x) => /^[A-Z_]+ \{$/.test(x));
  if (start < 0) return [];
  let depth = 0;
  for (let i = start; i < l.length; i++) {
    depth += (l[i]!.endsWith('{') ? 1 : 0) - (l[i] === '}' ? 1 : 0);
    if (depth === 0) return l.slice(start, i + 1);
  }
  return l.slice(start);
}

describe('keepalived: virtual servers', () => {
  it.each([
    ['round-robin', 'rr'], ['weighted-round-robin', 'wrr'], ['least-connections', 'lc'], ['source-hash', 'sh'], ['health-weighted', 'wlc'],
  ])('%s is lb_algo %s, real server weights as given', (algorithm, algo) => {
    const l = lines(service({ type: 'tcp' }, { algorithm }).text);
    expect(l).toEqual(expect.arrayContaining(['virtual_server 192.0.2.10 8080 {', 'protocol TCP', 'lb_kind NAT', `lb_algo ${algo}`, 'real_server 192.0.2.21 8081 {', 'weight 300']));
  });

  it('UDP services, persistence and the idle timeout', () => {
    const r = service({ type: 'auto' }, { protocol: 'udp', port: 5514, extra: { persistence: { type: 'client-ip', timeout: '2m' }, idleTimeout: '45s' } });
    const l = lines(r.text);
    expect(l).toEqual(expect.arrayContaining(['protocol UDP', 'persistence_timeout 120', 'lvs_timeouts udp 45', 'UDP_CHECK {']));
  });

  it('a member without a port is reached on the service port; a disabled server is left out, said in a comment', () => {
    const l = lines(service({ type: 'none' }, { members: [{ server: 'a' }, { server: 'b', port: 1 }] }).text);
    expect(l).toContain('real_server 192.0.2.21 8080 {');
    expect(l).toContain('# b: disabled in the workspace, not rendered');
    expect(l.some((x) => x.startsWith('real_server 192.0.2.22'))).toBe(false);
  });

  it('a disabled service is not rendered, and the file says so', () => {
    const r = service({ type: 'tcp' }, { extra: { enabled: false } });
    expect(r.text).toContain('# disabled in the workspace: virtual_server 192.0.2.10 8080 (TCP) not rendered');
    expect(r.text).not.toContain('virtual_server 192.0.2.10 8080 {');
  });
});

describe('keepalived: checkers and timers', () => {
  it('timers: delay_loop, retry (failAfter - 1), delay_before_retry, connect_timeout', () => {
    const r = render({
      healthTimers: { interval: '1500ms', retryInterval: '2s', failAfter: 4, timeout: '3s' },
      servers: [{ name: 'a', address: '192.0.2.21' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 9 }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'vip', address: '192.0.2.10', port: 9, group: 'g' }],
    });
    // warmup 0: checked at once when keepalived starts (Px), not after a random wait up to delay_loop.
    expect(checker(r.text)).toEqual(['TCP_CHECK {', 'connect_timeout 3', 'retry 3', 'delay_before_retry 2', 'delay_loop 1.5', 'warmup 0', '}']);
  });

  it('HTTPS without serverName sends and names the Host as SNI, as lbdesk\'s probe does', () => {
    const c = checker(service({ type: 'https', http: { path: '/h', host: 'h.example.test' } }).text);
    expect(c).toEqual(expect.arrayContaining(['SSL_GET {', 'virtualhost h.example.test', 'enable_sni']));
  });

  it('a sub-second idle timeout is rounded up to whole seconds, and said', () => {
    const r = service({ type: 'tcp' }, { extra: { idleTimeout: '1500ms' } });
    expect(lines(r.text)).toContain('lvs_timeouts tcp 2');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: 'idle timeout rounded up to 2s (IPVS counts whole seconds)' });
  });

  it('a server of the other address family is an error naming it (keepalived would skip it silently)', () => {
    const r = render({
      servers: [{ name: 'v6', address: '2001:db8::10' }, { name: 'a', address: '192.0.2.11' }],
      groups: [{ name: 'g', members: [{ server: 'v6', port: 8080 }, { server: 'a', port: 8080 }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'six-vip', address: '2001:db8::1', port: 8080, group: 'g' }],
    });
    expect(r.errors).toEqual([{ subject: 'service six-vip', message: 'server a (192.0.2.11) is IPv4 but the virtual address 2001:db8::1 is not: IPVS NAT cannot forward across address families' }]);
  });

  it('a Delete Age beyond keepalived\'s range is capped at 31 days and said', () => {
    const r = render({ targetSets: [{ number: 1, address: '192.0.2.50', ports: [3868], algorithm: 'hash', deleteAge: 3_110_400, servers: [{ address: '192.0.2.51' }] }] });
    expect(r.errors).toEqual([]);
    expect(lines(r.text)).toContain('lvs_timeouts tcp 2678400');
    expect(r.warnings).toContainEqual({ subject: 'target set 1', message: "idle timeout 3110400s is beyond keepalived's longest IPVS timeout (2678400s, 31 days): 2678400s used" });
  });

  it('HTTP: the string must start early enough to end in the first 1000 bytes', () => {
    const c = checker(service({ type: 'http', http: { path: '/s', expect: 'up.ok', host: 'h.example.test' } }).text);
    expect(c).toEqual(expect.arrayContaining(['HTTP_GET {', 'path /s', 'regex "up\\\\.ok"', 'regex_max_offset 995', 'virtualhost h.example.test']));
  });

  it('HTTPS is SSL_GET with SNI; unverified certificates are said', () => {
    const r = service({ type: 'https', http: { path: '/s' }, tls: { serverName: 's.example.test', verify: true } });
    expect(checker(r.text)).toEqual(expect.arrayContaining(['SSL_GET {', 'virtualhost s.example.test', 'enable_sni']));
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('does not verify') });
  });

  it.each([
    ['smtp', 25, 'SMTP_CHECK {'],
    ['ping', 80, 'PING_CHECK {'],
    ['tcp', 80, 'TCP_CHECK {'],
  ])('%s is %s', (type, port, head) => {
    expect(checker(service({ type: type as never }, { port }).text)[0]).toBe(head);
  });

  it('DNS over UDP is DNS_CHECK with the query', () => {
    const c = checker(service({ dns: { query: 'example.test', recordType: 'MX' } }, { protocol: 'udp', port: 53 }).text);
    expect(c).toEqual(expect.arrayContaining(['DNS_CHECK {', 'type MX', 'name example.test']));
  });

  it('DNS record types keepalived cannot ask for fall back to UDP_CHECK, named', () => {
    const r = service({ dns: { query: 'example.test', recordType: 'SRV' } }, { protocol: 'udp', port: 53 });
    expect(checker(r.text)[0]).toBe('UDP_CHECK {');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('SRV') });
  });

  it.each(['ldap', 'ftp', 'pop3', 'imap4', 'ssl'])('%s has no keepalived checker: TCP_CHECK, named', (type) => {
    const r = service({ type: type as never });
    expect(checker(r.text)[0]).toBe('TCP_CHECK {');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining(`check ${type}`) });
  });

  it('restoreAfter > 1 cannot be expressed: named', () => {
    expect(service({ type: 'tcp' }).warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('restoreAfter') });
  });

  it('a double quote or a brace in an HTTP path is percent-encoded, as every render and the probe do', () => {
    const r = service({ type: 'http', http: { path: '/a"b{c} d' } });
    expect(r.errors).toEqual([]);
    expect(lines(r.text)).toContain('path /a%22b%7Bc%7D%20d');
  });

  it('the group check is shared: an unwritable value (past validation) is one problem, not one per member', () => {
    const site = workspace({
      appliances: [{ name: 'k', host: '192.0.2.1', driver: 'keepalived' }],
      servers: [{ name: 'a', address: '192.0.2.21' }, { name: 'b', address: '192.0.2.22' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 80 }, { server: 'b', port: 80 }], healthCheck: { type: 'http', http: { host: 'x' } } }],
      services: [{ name: 'vip', address: '192.0.2.10', port: 80, group: 'g' }],
    });
    // validate refuses a quote in http.host; the renderer refuses it again.
    site.groups[0]!.healthCheck.http!.host = 'x"y';
    const r = renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/unit.yaml' });
    expect(r.errors).toEqual([{ subject: 'service vip', message: 'host "x\\"y" cannot be written in keepalived.conf (it has a double quote, a brace, a control character or more than 900 bytes)' }]);
  });
});

describe('keepalived: target sets', () => {
  const set = (extra: object) => render({ targetSets: [{ number: 3, address: '203.0.113.50', ports: [2905], algorithm: 'hash', servers: [{ address: '203.0.113.51', weight: 700 }], ...extra }] });

  it('hash hashes address and port: lb_algo sh with sh-port', () => {
    const l = lines(set({ protocols: 'tcp', deleteAge: 900 }).text);
    expect(l).toEqual(expect.arrayContaining(['virtual_server 203.0.113.50 2905 {', 'protocol TCP', 'lb_algo sh', 'sh-port', 'weight 700', 'lvs_timeouts tcp 900']));
  });

  it('SCTP is served by IPVS; SCTP-only servers are pinged, named', () => {
    const r = set({ protocols: 'sctp' });
    expect(lines(r.text)).toEqual(expect.arrayContaining(['protocol SCTP', 'PING_CHECK {']));
    expect(r.warnings).toContainEqual({ subject: 'target set 3', message: expect.stringContaining('SCTP-only') });
  });

  it('both: one virtual server per protocol', () => {
    const l = lines(set({ protocols: 'both' }).text);
    expect(l.filter((x) => x === 'virtual_server 203.0.113.50 2905 {')).toHaveLength(2);
    expect(l).toEqual(expect.arrayContaining(['protocol TCP', 'protocol SCTP']));
  });

  it('least-load is refused by name', () => {
    const r = set({ algorithm: 'least-load' });
    expect(r.text).toBe('');
    expect(r.errors).toEqual([{ subject: 'target set 3', message: expect.stringContaining('least-load') }]);
  });
});

describe('keepalived: host-wide IPVS timeouts', () => {
  it('the longest idle timeout per protocol, the others named', () => {
    const r = render({
      servers: [{ name: 'a', address: '192.0.2.21' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 80 }], healthCheck: { type: 'none' } }],
      services: [
        { name: 'short', address: '192.0.2.10', port: 80, group: 'g', idleTimeout: '1m' },
        { name: 'long', address: '192.0.2.10', port: 81, group: 'g', idleTimeout: '1h' },
      ],
    });
    expect(lines(r.text)).toContain('lvs_timeouts tcp 3600');
    expect(r.warnings).toEqual([{ subject: 'service short', message: 'idle timeout 60s: IPVS has one TCP idle timeout for the host, 3600s used' }]);
  });
});

describe('keepalived: VRRP of a pair', () => {
  const pairWorkspace = (pair: object, appliances?: object[]) => workspace({
    services: [{ name: 'vip', address: '192.0.2.10', port: 80, group: 'g' }],
    groups: [{ name: 'g', members: [] }],
    targetSets: [{ number: 1, address: '203.0.113.50', ports: [3868], algorithm: 'hash', protocols: 'tcp', activeIpfe: 'A2', servers: [] }],
    appliances: (appliances ?? [
      { name: 'k1', host: '192.0.2.1', driver: 'keepalived', include: [] },
      { name: 'k2', host: '192.0.2.2', driver: 'keepalived', include: [] },
    ]) as never,
    pairs: [{ name: 'p', members: [{ appliance: 'k1', ipfe: 'A1', address: '198.51.100.1' }, { appliance: 'k2', ipfe: 'A2', address: '198.51.100.2' }], interface: 'eth0', instances: [{ id: 7, master: 'k1', services: ['vip'] }, { id: 8, master: 'A2' }], ...pair }],
  });
  const text = (site: ReturnType<typeof pairWorkspace>, name: string) => lines(renderForAppliance(site, appliance(site, name), { workspacePath: '/tmp/u.yaml' }).text);
  const block = (l: string[], head: string) => l.slice(l.indexOf(head), l.indexOf('}', l.indexOf(head)) + 1);

  it('one vrrp_instance per instance; the master is MASTER with the higher priority, the mate BACKUP with the lower', () => {
    const site = pairWorkspace({});
    const k1 = text(site, 'k1');
    const k2 = text(site, 'k2');
    expect(k1).toEqual(expect.arrayContaining(['vrrp_instance lbdesk_p_7 {', 'state MASTER', 'interface eth0', 'virtual_router_id 7', 'priority 150', 'advert_int 1', '# service vip', '192.0.2.10']));
    expect(block(k2, 'vrrp_instance lbdesk_p_7 {')).toEqual(expect.arrayContaining(['state BACKUP', 'virtual_router_id 7', 'priority 100']));
    // The target set active on A2: k2 is its master.
    expect(block(k2, 'vrrp_instance lbdesk_p_8 {')).toEqual(expect.arrayContaining(['state MASTER', 'priority 150']));
    expect(k2).toEqual(expect.arrayContaining(['# target set 1', '203.0.113.50']));
    expect(k1.some((l) => l.startsWith('unicast'))).toBe(false);
  });

  it('nopreempt and preempt_delay start both boxes as BACKUP; unicast peers; tracked interfaces and script', () => {
    const np = text(pairWorkspace({ nopreempt: true }), 'k1');
    expect(np).toEqual(expect.arrayContaining(['state BACKUP', 'priority 150', 'nopreempt']));
    const pd = text(pairWorkspace({ preemptDelay: '30s', unicast: true, trackInterfaces: ['eth1'], trackScript: { command: '/usr/bin/killall -0 haproxy' } }), 'k2');
    expect(pd).toEqual(expect.arrayContaining(['preempt_delay 30', 'unicast_src_ip 198.51.100.2', 'unicast_peer {', '198.51.100.1', 'track_interface {', 'eth1', 'track_script {', 'lbdesk_p_check']));
    expect(pd).toEqual(expect.arrayContaining(['vrrp_script lbdesk_p_check {', 'script "/usr/bin/killall -0 haproxy"', 'interval 2', 'fall 2', 'rise 2', 'script_user root', 'enable_script_security']));
    expect(pd).not.toContain('state MASTER');
  });

  it("an HAProxy pair's addresses are rendered by the keepalived appliance named for each box", () => {
    const site = pairWorkspace({ members: [{ appliance: 'h1', keepalived: 'k1' }, { appliance: 'h2', keepalived: 'k2' }], instances: [{ id: 7, master: 'h1', services: ['vip'] }] }, [
      { name: 'h1', host: '192.0.2.1', driver: 'haproxy' }, { name: 'k1', host: '192.0.2.1', driver: 'keepalived', include: [] },
      { name: 'h2', host: '192.0.2.2', driver: 'haproxy' }, { name: 'k2', host: '192.0.2.2', driver: 'keepalived', include: [] },
    ]);
    expect(block(text(site, 'k1'), 'vrrp_instance lbdesk_p_7 {')).toEqual(expect.arrayContaining(['state MASTER', '192.0.2.10']));
    expect(block(text(site, 'k2'), 'vrrp_instance lbdesk_p_7 {')).toEqual(expect.arrayContaining(['state BACKUP', '192.0.2.10']));
    expect(text(site, 'h1').some((l) => l.includes('vrrp_instance'))).toBe(false);
  });

  it('a keepalived appliance outside any pair renders no VRRP', () => {
    const site = pairWorkspace({}, [{ name: 'k1', host: '192.0.2.1', driver: 'keepalived', include: [] }, { name: 'k2', host: '192.0.2.2', driver: 'keepalived', include: [] }, { name: 'k3', host: '192.0.2.3', driver: 'keepalived', include: ['vip'] }]);
    expect(text(site, 'k3').some((l) => l.startsWith('vrrp_'))).toBe(false);
  });
});
