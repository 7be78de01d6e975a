// HAProxy mapping, one rule at a time (the golden file pins the whole).
import { describe, expect, it } from 'vitest';
import { renderForAppliance } from '../../../../main/services/drivers';
import type { WorkspaceInput } from '../../../../shared/model/schema';
import { workspace } from '../../../helpers/drivers';

type Groups = NonNullable<WorkspaceInput['groups']>;

function render(extra: Partial<WorkspaceInput>) {
  const site = workspace({ appliances: [{ name: 'h', host: '192.0.2.1', driver: 'haproxy' }], ...extra });
  return renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/unit.yaml' });
}

const servers = [
  { name: 'a', address: '192.0.2.21' },
  { name: 'b', address: '192.0.2.22' },
];

/** One TCP service on port 8080 over group g with the given check and members. */
function service(healthCheck: Groups[number]['healthCheck'], opts: { members?: Groups[number]['members']; algorithm?: string; extra?: object } = {}) {
  return render({
    servers,
    groups: [{ name: 'g', members: opts.members ?? [{ server: 'a', port: 8081 }, { server: 'b', port: 8081 }], healthCheck }],
    services: [{ name: 'vip', address: '192.0.2.10', port: 8080, group: 'g', algorithm: (opts.algorithm ?? 'round-robin') as never, ...opts.extra }],
  });
}

const lines = (text: string) => text.split('\n').map((l) => l.trim());

describe('haproxy: timers', () => {
  it('map Px semantics onto each server line: server > group > global > default', () => {
    const r = render({
      healthTimers: { interval: '20s', failAfter: 4 },
      servers: [{ name: 'a', address: '192.0.2.21', healthTimers: { interval: '500ms', restoreAfter: 5 } }, { name: 'b', address: '192.0.2.22' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 81 }, { server: 'b', port: 81 }], healthCheck: { type: 'tcp' }, healthTimers: { retryInterval: '3s', timeout: '2s' } }],
      services: [{ name: 'vip', address: '192.0.2.10', port: 80, group: 'g' }],
    });
    expect(r.errors).toEqual([]);
    const l = lines(r.text);
    expect(l).toContain('server a 192.0.2.21:81 weight 1 check inter 500ms fastinter 3s downinter 3s rise 5 fall 4 observe layer4 error-limit 1 on-error fastinter');
    expect(l).toContain('server b 192.0.2.22:81 weight 1 check inter 20s fastinter 3s downinter 3s rise 2 fall 4 observe layer4 error-limit 1 on-error fastinter');
    expect(l).toContain('timeout check 2s');
  });

  it('one check timeout per backend: the longest, with a warning', () => {
    const r = render({
      servers: [{ name: 'a', address: '192.0.2.21', healthTimers: { timeout: '9s' } }, { name: 'b', address: '192.0.2.22' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 81 }, { server: 'b', port: 81 }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'vip', address: '192.0.2.10', port: 80, group: 'g' }],
    });
    expect(lines(r.text)).toContain('timeout check 9s');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('different check timeouts (5s, 9s)') });
  });

  it('idle timeout is timeout client / timeout server', () => {
    const r = service({ type: 'tcp' }, { extra: { idleTimeout: '90s' } });
    expect(lines(r.text)).toEqual(expect.arrayContaining(['timeout client 90s', 'timeout server 90s']));
  });
});

describe('haproxy: checks', () => {
  it('http with object, string and host: GET over HTTP/1.0, expect string, and a comment on the 1000 bytes', () => {
    const r = service({ type: 'http', http: { path: '/status', expect: 'All good', host: 'www.example.test' } });
    const l = lines(r.text);
    expect(l).toContain('option httpchk GET /status HTTP/1.0');
    expect(l).toContain('http-check send hdr Host www.example.test');
    expect(l).toContain("http-check expect string 'All good'");
    expect(l[l.indexOf("http-check expect string 'All good'") - 1]).toMatch(/^# .*first 1000 bytes/);
    expect(r.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('not only its first 1000 bytes'));
  });

  it('http with an object: it must be returned (2xx) before the string counts; without a string too', () => {
    const withString = lines(service({ type: 'http', http: { path: '/status', expect: 'OK' } }).text);
    expect(withString.indexOf('http-check expect status 200-299')).toBeGreaterThan(-1);
    expect(withString.indexOf('http-check expect status 200-299')).toBeLessThan(withString.indexOf('http-check expect string OK'));
    expect(lines(service({ type: 'http', http: { path: '/status' } }).text)).toContain('http-check expect status 200-299');
  });

  it('the check timeout is the backend connect timeout too', () => {
    const l = lines(service({ type: 'tcp' }).text);
    expect(l).toEqual(expect.arrayContaining(['timeout connect 5s', 'timeout check 5s']));
  });

  it('https without serverName sends and verifies the HTTP Host, as lbdesk\'s probe does', () => {
    const r = service({ type: 'https', http: { path: '/h', host: 'h.example.test' }, tls: { verify: true } });
    expect(r.text).toContain('check check-ssl verify required ca-file @system-ca verifyhost h.example.test check-sni h.example.test inter');
  });

  it('http without an object: HEAD / and any status passes (Px)', () => {
    const l = lines(service({ type: 'http' }).text);
    expect(l).toContain('option httpchk HEAD / HTTP/1.0');
    expect(l).toContain('http-check expect rstatus ^[1-5][0-9][0-9]$');
  });

  it('auto on port 80 is the HTTP check (ADX)', () => {
    const l = lines(service({ type: 'auto' }, { members: [{ server: 'a', port: 80 }] }).text);
    expect(l).toContain('option httpchk HEAD / HTTP/1.0');
  });

  it('https verifies against the system CAs with SNI when asked', () => {
    const r = service({ type: 'https', http: { path: '/h' }, tls: { serverName: 'x.example.test', verify: true } });
    expect(r.text).toContain('check check-ssl verify required ca-file @system-ca verifyhost x.example.test check-sni x.example.test inter');
  });

  it('ssl is a TLS handshake on the check only', () => {
    const r = service({ type: 'ssl' });
    expect(r.text).toContain('check check-ssl verify none inter');
    expect(r.text).not.toContain('httpchk');
  });

  it('ldap is option ldap-check, the search it cannot run is a named warning', () => {
    const r = service({ type: 'ldap', ldap: { baseDn: 'cn=monitor', bindDn: 'cn=probe' } });
    expect(lines(r.text)).toContain('option ldap-check');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringMatching(/anonymous bind.*cn=monitor.*bind as cn=probe/) });
  });

  it('smtp is option smtpchk', () => {
    expect(lines(service({ type: 'smtp' }).text)).toContain('option smtpchk');
  });

  it.each([
    ['ftp', 'tcp-check expect rstring ^220'],
    ['pop3', 'tcp-check expect string +OK'],
    ['imap4', 'tcp-check expect string "* OK"'],
    ['nntp', 'tcp-check expect rstring ^20[01]'],
  ])('%s is a banner tcp-check sequence', (type, expectLine) => {
    const l = lines(service({ type: type as never }).text);
    expect(l.slice(l.indexOf('option tcp-check'), l.indexOf('option tcp-check') + 3)).toEqual(['option tcp-check', 'tcp-check connect', expectLine]);
  });

  it('ping (a member without a port) becomes a TCP connect to the service port, named', () => {
    const r = service({ type: 'auto' }, { members: [{ server: 'a' }] });
    expect(r.text).toContain('server a 192.0.2.21 weight 1 check port 8080 inter');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('no ICMP check') });
  });

  it('none: servers without check', () => {
    const r = service({ type: 'none' });
    expect(lines(r.text)).toContain('server a 192.0.2.21:8081 weight 1');
    expect(r.text).not.toContain('timeout check');
  });

  it('members resolving to different checks share a TCP connect check, named', () => {
    const r = service({ type: 'auto' }, { members: [{ server: 'a', port: 80 }, { server: 'b', port: 8081 }] });
    expect(r.text).not.toContain('httpchk');
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('a http, b tcp') });
  });

  it('an explicit UDP check on a TCP service is refused by name', () => {
    expect(service({ type: 'udp' }).errors).toEqual([{ subject: 'service vip', message: expect.stringContaining('UDP health checks') }]);
  });

  it('degraded thresholds are dropped with a warning', () => {
    const r = service({ type: 'tcp', degradedAbove: '1s', availableBelow: '500ms' });
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('no degraded state') });
  });
});

describe('haproxy: balancing', () => {
  it.each([
    ['round-robin', ['balance roundrobin'], [1, 1]],
    ['weighted-round-robin', ['balance roundrobin'], [100, 256]],
    ['least-connections', ['balance leastconn'], [1, 1]],
    ['source-hash', ['balance hash src,concat(:,txn.lbdesk_sport)', 'hash-type consistent', 'tcp-request content set-var(txn.lbdesk_sport) src_port'], [100, 256]],
    ['health-weighted', ['balance leastconn'], [100, 256]],
  ])('%s', (algorithm, balance, weights) => {
    const r = service({ type: 'tcp' }, { algorithm, members: [{ server: 'a', port: 81, weight: 200 }, { server: 'b', port: 81, weight: 512 }] });
    const l = lines(r.text);
    for (const b of balance) expect(l).toContain(b);
    // 200/512 does not fit HAProxy's 0-256: scaled, and said.
    const got = l.filter((x) => x.startsWith('server ')).map((x) => Number(/weight (\d+)/.exec(x)![1]));
    expect(got).toEqual(weights);
    if (weights[0] !== 1) expect(r.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('scaled to 100/256'));
  });

  it('weight 0 drains a member under every algorithm', () => {
    const r = service({ type: 'tcp' }, { members: [{ server: 'a', port: 81, weight: 0 }, { server: 'b', port: 81 }] });
    expect(lines(r.text)).toContain('server a 192.0.2.21:81 weight 0 check inter 30s fastinter 10s downinter 10s rise 2 fall 2 observe layer4 error-limit 1 on-error fastinter');
  });

  it('health-weighted is approximated, by name', () => {
    expect(service({ type: 'tcp' }, { algorithm: 'health-weighted' }).warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('weighted least connections') });
  });

  it('client-IP persistence is a stick table on src', () => {
    const l = lines(service({ type: 'tcp' }, { extra: { persistence: { type: 'client-ip', timeout: '10m' } } }).text);
    expect(l).toEqual(expect.arrayContaining(['stick-table type ip size 100k expire 10m', 'stick on src']));
  });

  it('disabled service and server stay in the file, out of service', () => {
    const r = render({
      servers: [{ name: 'a', address: '192.0.2.21', enabled: false }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 81 }], healthCheck: { type: 'tcp' } }],
      services: [{ name: 'vip', address: '2001:db8::10', port: 80, group: 'g', enabled: false }],
    });
    const l = lines(r.text);
    expect(l).toEqual(expect.arrayContaining(['bind [2001:db8::10]:80', 'disabled']));
    expect(r.text).toContain('server a 192.0.2.21:81 weight 1 disabled check');
  });
});

describe('haproxy: target sets', () => {
  const set = (extra: object) => render({ targetSets: [{ number: 7, address: '203.0.113.50', ports: [3868], servers: [{ address: '203.0.113.51' }, { address: '203.0.113.52', weight: 300 }], ...extra }] });

  it('hash: on the client address and port with weights (IPFE), no warning', () => {
    const r = set({ algorithm: 'hash', protocols: 'tcp', deleteAge: 120 });
    expect(r.errors).toEqual([]);
    const l = lines(r.text);
    expect(l).toEqual(expect.arrayContaining(['frontend ts7:3868', 'bind 203.0.113.50:3868', 'balance hash src,concat(:,txn.lbdesk_sport)', 'tcp-request content set-var(txn.lbdesk_sport) src_port', 'timeout client 2m', 'timeout server 2m']));
    expect(l).toContain('server 203.0.113.52 203.0.113.52:3868 weight 256 check inter 30s fastinter 10s downinter 10s rise 2 fall 2 observe layer4 error-limit 1 on-error fastinter');
    expect(r.warnings.filter((w) => /hash/.test(w.message))).toEqual([]);
  });

  it('a Delete Age beyond HAProxy\'s longest timer is capped and said (haproxy -c refused 864h)', () => {
    const r = set({ algorithm: 'hash', protocols: 'tcp', deleteAge: 3_110_400 });
    expect(r.errors).toEqual([]);
    expect(lines(r.text)).toEqual(expect.arrayContaining(['timeout client 2147483s', 'timeout server 2147483s']));
    expect(r.warnings).toContainEqual({ subject: 'target set 7', message: "deleteAge 3110400s is beyond HAProxy's longest timeout (about 24.8 days): 2147483s used" });
  });

  it('least-load is refused by name', () => {
    const r = set({ algorithm: 'least-load', protocols: 'tcp' });
    expect(r.text).toBe('');
    expect(r.errors).toEqual([{ subject: 'target set 7', message: expect.stringContaining('no IPFE least-load') }]);
  });

  it('SCTP only is refused by name; both renders TCP and says SCTP is dropped', () => {
    expect(set({ algorithm: 'hash', protocols: 'sctp' }).errors).toEqual([{ subject: 'target set 7', message: expect.stringContaining('SCTP') }]);
    const both = set({ algorithm: 'hash', protocols: 'both' });
    expect(both.errors).toEqual([]);
    expect(both.warnings).toContainEqual({ subject: 'target set 7', message: 'protocols both: only TCP is rendered, SCTP is dropped' });
  });

  it('a secondary address gets its own frontend to the servers\' secondary addresses', () => {
    const r = render({ targetSets: [{ number: 2, address: '203.0.113.50', secondaryAddress: '203.0.113.60', ports: [80], protocols: 'tcp', algorithm: 'hash', servers: [{ address: '203.0.113.51', secondaryAddress: '203.0.113.61' }] }] });
    expect(lines(r.text)).toEqual(expect.arrayContaining(['frontend ts2:80:secondary', 'bind 203.0.113.60:80', 'server 203.0.113.61 203.0.113.61:80 weight 100 check inter 30s fastinter 10s downinter 10s rise 2 fall 2 observe layer4 error-limit 1 on-error fastinter']));
  });

  it('initiator support is refused by name', () => {
    expect(set({ algorithm: 'hash', protocols: 'tcp', initiatorSupport: true }).errors).toEqual([{ subject: 'target set 7', message: expect.stringContaining('initiatorSupport') }]);
  });
});

describe('haproxy: refusals name each part', () => {
  it('UDP services, missing groups and servers, all at once', () => {
    const r = render({
      servers,
      groups: [{ name: 'g', members: [{ server: 'ghost', port: 1 }] }],
      services: [
        { name: 'dns', address: '192.0.2.10', port: 53, protocol: 'udp', group: 'g' },
        { name: 'lost', address: '192.0.2.10', port: 80, group: 'nowhere' },
        { name: 'web', address: '192.0.2.10', port: 81, group: 'g' },
      ],
    });
    expect(r.text).toBe('');
    expect(r.errors).toEqual([
      { subject: 'service dns', message: 'HAProxy does not load-balance UDP' },
      { subject: 'service lost', message: 'group "nowhere" does not exist' },
      { subject: 'service web', message: 'group g: member server "ghost" does not exist' },
    ]);
  });

  it('a disabled UDP service is left out and said, not a refusal of the whole file', () => {
    const r = render({
      servers,
      groups: [{ name: 'g', members: [{ server: servers[0]!.name, port: 80 }] }],
      services: [
        { name: 'dns', address: '192.0.2.10', port: 53, protocol: 'udp', group: 'g', enabled: false },
        { name: 'web', address: '192.0.2.10', port: 81, group: 'g' },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(r.text).toContain('# service dns: UDP and disabled in the workspace, not rendered (HAProxy does not load-balance UDP)');
    expect(r.text).toContain('frontend web');
  });

  it('nothing to serve: HAProxy would not start', () => {
    expect(render({}).errors).toEqual([{ subject: 'appliance h', message: expect.stringContaining('nothing to serve') }]);
  });
});

describe('haproxy: the lab\'s failure promises', () => {
  it('redispatches every retry, one try per member, and checks early after a failed connection', () => {
    const r = service({ type: 'tcp' });
    const l = lines(r.text);
    expect(l).toEqual(expect.arrayContaining(['option redispatch 1', 'retries 1']));
    expect(l.filter((x) => x.startsWith('server ')).every((x) => x.endsWith('observe layer4 error-limit 1 on-error fastinter'))).toBe(true);
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('passive detection: after a failed connection HAProxy checks the server within fastinter') });
    expect(r.warnings).toContainEqual({ subject: 'service vip', message: expect.stringContaining('resets a connection before its first byte') });
  });

  it('no check, no passive detection (HAProxy needs a check to observe)', () => {
    const r = service({ type: 'none' });
    expect(r.text).not.toContain('observe layer4');
    expect(r.warnings.map((w) => w.message)).not.toContainEqual(expect.stringContaining('passive detection'));
  });
});
