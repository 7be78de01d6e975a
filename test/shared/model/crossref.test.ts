// Rules across objects: references, uniqueness, listeners, and checks that cannot apply.
import { describe, expect, it } from 'vitest';
import { base, edit, errorsOf, problemsOf, warningsOf, type Obj } from '../../helpers/model';
import type { PathSegment } from '../../../shared/model/problem';

type Change = [PathSegment[], unknown];
const apply = (changes: Change[]): Obj => changes.reduce((o, [p, v]) => edit(o, p, v), base());
const G0: PathSegment[] = ['groups', 0];
const TS: PathSegment[] = ['targetSets', 0];
const ts2 = { number: 2, address: '127.0.0.60', servers: [{ address: '127.0.0.61' }] };
/** An HAProxy the site already runs, kept with manage: sections (every group is a backend there). */
const SECTIONS_BOX = { name: 'box', host: '127.0.0.2', driver: 'haproxy', manage: 'sections' };

// [what, changes, the error's path, message pattern, and for a clash the other side's path and message]
const errors: [string, Change[], string, RegExp, [string, RegExp]?][] = [
  // references
  ['unknown member server', [[[...G0, 'members', 0, 'server'], 'web9']], 'groups[0].members[0].server', /unknown server "web9" \(did you mean "web1"\?\)/],
  ['unknown service group', [[['services', 0, 'group'], 'webs']], 'services[0].group', /unknown group "webs" \(did you mean "web"\?\)/],
  ['include names nothing', [[['appliances', 0, 'include'], ['web-vip', 'ldap-vpi']]], 'appliances[0].include[1]', /no service or target set named "ldap-vpi".*did you mean "ldap-vip"/],
  ['include names a missing target set', [[['appliances', 0, 'include'], ['ts2']]], 'appliances[0].include[0]', /no service or target set named "ts2"/],
  // uniqueness
  ['duplicate server name', [[['servers', 5], { name: 'web1', address: '127.0.0.99' }]], 'servers[5].name', /duplicate server name "web1" \(first defined at servers\[0\]\)/, ['servers[0].name', /duplicate server name "web1" \(also defined at servers\[5\]\)/]],
  ['duplicate group name', [[['groups', 3, 'name'], 'web']], 'groups[3].name', /duplicate group name "web"/, ['groups[0].name', /duplicate group name "web" \(also defined at groups\[3\]\)/]],
  ['duplicate service name', [[['services', 2, 'name'], 'web-vip']], 'services[2].name', /duplicate service name/, ['services[0].name', /duplicate service name "web-vip" \(also defined at services\[2\]\)/]],
  ['duplicate appliance name', [[['appliances', 1], { name: 'lab', host: '127.0.0.1' }]], 'appliances[1].name', /duplicate appliance name/, ['appliances[0].name', /duplicate appliance name/]],
  ['duplicate target set number', [[['targetSets', 1], { ...ts2, number: 1 }]], 'targetSets[1].number', /target set number 1 is already used by targetSets\[0\]/, ['targetSets[0].number', /target set number 1 is also used by targetSets\[1\]/]],
  ['duplicate member', [[[...G0, 'members', 1], { server: 'web1', port: 8081 }]], 'groups[0].members[1]', /server web1 port 8081 is already a member \(members\[0\]\)/],
  ['duplicate target set server', [[[...TS, 'servers', 1, 'address'], '127.0.0.51']], 'targetSets[0].servers[1].address', /already in this target set/],
  ['duplicate target set port', [[[...TS, 'ports'], [3868, 3868]]], 'targetSets[0].ports[1]', /listed twice/],
  // address families (seed 003: every server of the TSA's family)
  ['IPv6 server in an IPv4 target set', [[[...TS, 'servers', 1, 'address'], '::1']], 'targetSets[0].servers[1].address', /IPv6 but the target set address 127.0.0.50 is IPv4/],
  ['IPv4 server in an IPv6 target set', [[[...TS, 'address'], '::1'], [[...TS, 'servers', 0, 'address'], '::2']], 'targetSets[0].servers[1].address', /127.0.0.52 is IPv4 but the target set address ::1 is IPv6/],
  ['secondary address needs every server to have one', [[[...TS, 'secondaryAddress'], '127.0.0.70'], [[...TS, 'servers', 0, 'secondaryAddress'], '127.0.0.71']], 'targetSets[0].servers[1].secondaryAddress', /required: the target set has a secondaryAddress/],
  ['secondary address family', [[[...TS, 'secondaryAddress'], '127.0.0.70'], [[...TS, 'servers'], [{ address: '127.0.0.51', secondaryAddress: '::1' }]]], 'targetSets[0].servers[0].secondaryAddress', /IPv6 but the target set's secondaryAddress/],
  ['server secondary address without the set\'s', [[[...TS, 'servers', 0, 'secondaryAddress'], '127.0.0.71']], 'targetSets[0].servers[0].secondaryAddress', /no secondaryAddress/],
  ['secondary active IPFE without secondary address', [[[...TS, 'secondaryActiveIpfe'], 'B1']], 'targetSets[0].secondaryActiveIpfe', /no secondaryAddress/],
  ['Fm and Fc both 0', [[[...TS, 'leastLoad'], { mpsFactor: 0, connectionFactor: 0 }]], 'targetSets[0].leastLoad', /cannot both be 0/],
  // listeners
  ['two services on one address and port', [[['services', 1, 'port'], 8080]], 'services[1].port', /127.0.0.10:8080\/tcp is already used by service web-vip/, ['services[0].port', /127.0.0.10:8080\/tcp is also used by service ldap-vip/]],
  ['IPv6 spelt two ways', [[['services', 0, 'address'], '::1'], [['services', 1, 'address'], '0:0:0:0:0:0:0:1'], [['services', 1, 'port'], 8080]], 'services[1].port', /already used by service web-vip/, ['services[0].port', /\[::1\]:8080\/tcp is also used by service ldap-vip/]],
  ['wildcard takes every address', [[['services', 1, 'address'], '0.0.0.0'], [['services', 1, 'port'], 8080]], 'services[1].port', /0.0.0.0 takes it on every address.*web-vip/, ['services[0].port', /0.0.0.0 takes it on every address\) is also used by service ldap-vip/]],
  ['a UDP service on the heartbeat port', [[[...TS, 'heartbeat'], { port: 5353 }], [['services', 2, 'address'], '127.0.0.50']], 'targetSets[0].heartbeat.port', /127.0.0.50:5353\/udp is already used by service dns-vip/, ['services[2].port', /127.0.0.50:5353\/udp is also used by target set 1 heartbeats/]],
  ['service on a target set port', [[['services', 0, 'address'], '127.0.0.50'], [['services', 0, 'port'], 3868]], 'targetSets[0].ports[0]', /127.0.0.50:3868\/tcp is already used by service web-vip/, ['services[0].port', /127.0.0.50:3868\/tcp is also used by target set 1/]],
  // checks that cannot apply
  ['UDP check on a TCP-only group', [[[...G0, 'healthCheck'], { type: 'udp' }]], 'groups[0].healthCheck.type', /a udp check runs over UDP and cannot apply: group web is used only by TCP services \(web-vip\)/],
  ['DNS check on a TCP-only group', [[[...G0, 'healthCheck'], { type: 'dns', dns: { query: 'a.test' } }]], 'groups[0].healthCheck.type', /dns check runs over UDP/],
  ['TCP check on a UDP-only group', [[['groups', 2, 'healthCheck'], { type: 'tcp' }]], 'groups[2].healthCheck.type', /tcp check runs over TCP and cannot apply: group resolvers is used only by UDP services \(dns-vip\)/],
  // HAProxy keeps a group no service uses as a backend of the box's own frontends: TCP only there.
  ['DNS check on a group a sections HAProxy keeps', [[['groups', 3, 'healthCheck'], { type: 'dns', dns: { query: 'a.test' } }], [['groups', 3, 'members', 0, 'port'], 53], [['appliances', 1], SECTIONS_BOX]], 'groups[3].healthCheck.type', /a dns check runs over UDP and cannot apply: no service here uses group pinged, and the HAProxy appliance box keeps it as a backend of the box's own frontends: HAProxy forwards TCP only/],
  ['UDP check on a group a sections HAProxy keeps', [[['groups', 3, 'healthCheck'], { type: 'udp' }], [['groups', 3, 'members', 0, 'port'], 53], [['appliances', 1], SECTIONS_BOX]], 'groups[3].healthCheck.type', /a udp check runs over UDP and cannot apply: no service here uses group pinged/],
  ['protocol dns on a TCP-only group', [[['groups', 1, 'healthCheck'], { type: 'auto', protocol: 'dns', dns: { query: 'a.test' } }]], 'groups[1].healthCheck.protocol', /checked over UDP and cannot apply/],
  ['protocol http on a UDP-only group', [[['groups', 2, 'healthCheck', 'protocol'], 'http']], 'groups[2].healthCheck.protocol', /no effect on UDP ports/],
  ['HTTP option on an LDAP check', [[['groups', 1, 'healthCheck', 'http'], { path: '/' }]], 'groups[1].healthCheck.http', /http options do not apply to the ldap check \(protocol ldap\)/],
  ['LDAP option on an HTTP check', [[[...G0, 'healthCheck', 'ldap'], { baseDn: '' }]], 'groups[0].healthCheck.ldap', /ldap options do not apply to the http check/],
  ['TLS option on a plain HTTP check', [[[...G0, 'healthCheck', 'tls'], { verify: true }]], 'groups[0].healthCheck.tls', /tls options do not apply to the http check/],
  ['DNS option on an auto check of an unknown port', [[['groups', 1, 'healthCheck'], { type: 'auto', dns: { query: 'x.test' } }]], 'groups[1].healthCheck.dns', /do not apply to the tcp check \(TCP 1389 is not well known/],
  ['DNS check without a query', [[['groups', 2, 'healthCheck'], { type: 'auto' }]], 'groups[2].healthCheck', /a DNS check needs dns.query/],
  ['RADIUS check without a secret', [[['groups', 2, 'members', 0, 'port'], 1812], [['groups', 2, 'healthCheck'], { type: 'auto' }]], 'groups[2].healthCheck', /a RADIUS check needs radius.secret/],
  ['HTTP expect without a path', [[[...G0, 'healthCheck', 'http'], { expect: 'OK' }]], 'groups[0].healthCheck.http.expect', /expect needs a path: .*HEAD \//],
  ['availableBelow above degradedAbove', [[[...G0, 'healthCheck', 'availableBelow'], '2s']], 'groups[0].healthCheck.availableBelow', /must not exceed degradedAbove/],
  ['availableBelow alone', [[[...G0, 'healthCheck', 'degradedAbove'], undefined]], 'groups[0].healthCheck.availableBelow', /needs degradedAbove/],
  ['type none with options', [[['groups', 1, 'healthCheck'], { type: 'none', ldap: {} }]], 'groups[1].healthCheck.ldap', /type none runs no check/],
  ['layer contradicting the type', [[[...G0, 'healthCheck', 'layer'], 4]], 'groups[0].healthCheck.layer', /layer 4 contradicts type http/],
  ['protocol with an explicit type', [[[...G0, 'healthCheck', 'protocol'], 'ldap']], 'groups[0].healthCheck.protocol', /only chooses the check when type is auto/],
  ['layer 7 on an unknown port without a protocol', [[['groups', 1, 'healthCheck'], { type: 'auto', layer: 7 }]], 'groups[1].healthCheck.layer', /layer 7 needs a protocol: port 1389 is not a well-known port/],
  ['port left out of a non-ping check', [[[...G0, 'members', 1, 'port'], undefined]], 'groups[0].members[1].port', /required: this member gets a http check.*only a ping check/],
  // appliances
  ['driver cli without a template', [[['appliances', 0, 'driver'], 'cli']], 'appliances[0].template', /required with driver cli/],
  // push refused it later, with no line or column
  ['a relative configPath (driver haproxy)', [[['appliances', 0, 'configPath'], 'etc/haproxy.cfg']], 'appliances[0].configPath', /must be an absolute path on the appliance \(starting with "\/"\) with driver haproxy/],
  ['a host ssh cannot take', [[['appliances', 0, 'host'], 'lb1;rm -rf /']], 'appliances[0].host', /must be an IP address, a host name or an alias/],
  ['an address typo that is no address', [[['appliances', 0, 'host'], '999.1.1.1']], 'appliances[0].host', /must be an IP address/],
  ['a host name with an empty label', [[['appliances', 0, 'host'], 'lb..example']], 'appliances[0].host', /must be an IP address/],
  ['a configPath that is a folder', [[['appliances', 0, 'configPath'], '/etc/haproxy/']], 'appliances[0].configPath', /must name a file, not a folder/],
  ['a login name with a shell character', [[['appliances', 0, 'user'], 'u;x']], 'appliances[0].user', /must be a login name/],
];

describe('cross-reference errors', () => {
  it.each(errors)('%s', (_what, changes, where, message, other) => {
    const errs = errorsOf(problemsOf(apply(changes)));
    // A clash is reported on both items, each naming the other.
    expect(errs.map((p) => p.path).sort()).toEqual([where, ...(other ? [other[0]] : [])].sort());
    expect(errs.find((p) => p.path === where)!.message).toMatch(message);
    if (other) expect(errs.find((p) => p.path === other[0])!.message).toMatch(other[1]);
  });
});

describe('appliance addresses, logins and paths that are fine', () => {
  it('IPv6, an ssh_config alias, a machine account, and a relative configPath on driver cli', () => {
    const ok = apply([
      [['appliances', 0, 'host'], '2001:db8::1'],
      [['appliances', 0, 'user'], 'svc_lb$'],
      [['appliances', 1], { name: 'px', host: 'px_lab-1', driver: 'cli', template: 'px.liquid', configPath: 'runConfig' }],
    ]);
    expect(errorsOf(problemsOf(ok))).toEqual([]);
  });
});

// [what, changes, the warning's path, message pattern]
const warnings: [string, Change[], string, RegExp][] = [
  ['member weight 0', [[[...G0, 'members', 0, 'weight'], 0]], 'groups[0].members[0].weight', /weight 0: this server never receives new connections/],
  ['target set server weight 0', [[[...TS, 'servers', 0, 'weight'], 0]], 'targetSets[0].servers[0].weight', /weight 0/],
  ['Fm + Fc not 100', [[[...TS, 'leastLoad', 'mpsFactor'], 30]], 'targetSets[0].leastLoad', /Fm \+ Fc = 80: saved as mpsFactor 38, connectionFactor 62/],
  // One factor written: the other is its default 50, as the save and the engine take it.
  ['only Fm written', [[[...TS, 'leastLoad'], { mpsFactor: 30 }]], 'targetSets[0].leastLoad', /^Fm \+ Fc = 80: saved as mpsFactor 38, connectionFactor 62/],
  ['only Fc written, 0', [[[...TS, 'leastLoad'], { connectionFactor: 0 }]], 'targetSets[0].leastLoad', /^Fm \+ Fc = 50: saved as mpsFactor 100, connectionFactor 0/],
  ['least-load settings with hash', [[[...TS, 'algorithm'], 'hash'], [[...TS, 'peerNodeAware'], undefined]], 'targetSets[0].leastLoad', /no effect with algorithm hash/],
  ['layer on a UDP-only group', [[['groups', 2, 'healthCheck', 'layer'], 7]], 'groups[2].healthCheck.layer', /no effect on UDP ports/],
  ['degradedAbove not below the timeout', [[[...G0, 'healthCheck', 'degradedAbove'], '5s']], 'groups[0].healthCheck.degradedAbove', /not below the probe timeout \(5s\)/],
  ['group with no members behind a service', [[[...G0, 'members'], []]], 'groups[0].members', /no members: web-vip has nowhere to send connections/],
  ['service forwarding to itself', [[['servers', 0, 'address'], '127.0.0.10'], [[...G0, 'members', 0, 'port'], 8080]], 'services[0].address', /would forward to itself/],
  ['port in the initiator range', [[[...TS, 'initiatorSupport'], true], [[...TS, 'ports'], [20000]]], 'targetSets[0].ports[0]', /initiator port range 16384-49151/],
  ['secondary active IPFE equal to the active one', [[[...TS, 'secondaryAddress'], '127.0.0.70'], [[...TS, 'secondaryActiveIpfe'], 'A1'], [[...TS, 'servers'], [{ address: '127.0.0.51', secondaryAddress: '127.0.0.71' }]]], 'targetSets[0].secondaryActiveIpfe', /choose another \(e.g. A2\)/],
  ['key file with agent auth', [[['appliances', 0, 'keyFile'], '~/.ssh/id']], 'appliances[0].keyFile', /only auth: key/],
  ['CLI settings with a haproxy driver', [[['appliances', 0, 'cli'], { mode: 'shell' }]], 'appliances[0].cli', /only drivers cli, adx, a10, netscaler, f5 use/],
  ['template with a haproxy driver', [[['appliances', 0, 'template'], 'x.liquid']], 'appliances[0].template', /only driver cli/],
  ['target set without servers', [[[...TS, 'servers'], []]], 'targetSets[0].servers', /no servers/],
  ['include listed twice', [[['appliances', 0, 'include'], ['web-vip', 'web-vip']]], 'appliances[0].include[1]', /already listed/],
  ['persistence timeout without persistence', [[['services', 0, 'persistence', 'type'], 'none']], 'services[0].persistence.timeout', /no effect with persistence type none/],
];

describe('warnings: allowed, reported separately', () => {
  it.each(warnings)('%s', (_what, changes, where, message) => {
    const problems = problemsOf(apply(changes));
    expect(errorsOf(problems)).toEqual([]);
    const w = warningsOf(problems);
    expect(w.map((p) => p.path)).toEqual([where]);
    expect(w[0]!.message).toMatch(message);
  });
});

describe('things that are fine', () => {
  it.each([
    ['the same port over TCP and UDP', [[['services', 2, 'port'], 8080]]],
    ['a disabled service on a taken port', [[['services', 1, 'port'], 8080], [['services', 1, 'enabled'], false]]],
    ['an SCTP-only target set on a service port', [[['services', 0, 'address'], '127.0.0.50'], [['services', 0, 'port'], 3868], [[...TS, 'protocols'], 'sctp']]],
    ['a member without a port and an auto check (ping)', [[[...G0, 'members', 1, 'port'], undefined], [[...G0, 'healthCheck'], { type: 'auto' }], [[...G0, 'members', 0, 'port'], undefined]]],
    ['a member without a port and a ping check', [[['groups', 1, 'healthCheck'], { type: 'ping' }], [['groups', 1, 'members', 0, 'port'], undefined]]],
    ['a TLS option on an https check', [[[...G0, 'healthCheck', 'type'], 'https'], [[...G0, 'healthCheck', 'tls'], { verify: true }]]],
    ['an unused group with a DNS check', [[['groups', 3, 'healthCheck'], { type: 'dns', dns: { query: 'a.test' } }], [['groups', 3, 'members', 0, 'port'], 53]]],
    ['a DNS check on a group a sections HAProxy does not serve (include)', [[['groups', 3, 'healthCheck'], { type: 'dns', dns: { query: 'a.test' } }], [['groups', 3, 'members', 0, 'port'], 53], [['appliances', 1], { ...SECTIONS_BOX, include: ['web-vip'] }]]],
    ['a TCP check on a group a sections HAProxy keeps', [[['groups', 3, 'healthCheck'], { type: 'tcp' }], [['groups', 3, 'members', 0, 'port'], 8443], [['appliances', 1], SECTIONS_BOX]]],
    ['a server referenced by a disabled service', [[['services', 0, 'enabled'], false]]],
    ['two target sets', [[['targetSets', 1], ts2]]],
    ['include by target-set alias', [[['appliances', 0, 'include'], ['target-set-1']]]],
    ['an IPv6 target set of IPv6 servers', [[[...TS, 'address'], '::1'], [[...TS, 'servers'], [{ address: '0::1' }, { address: 'fe80::1' }]]]],
  ] as [string, Change[]][])('%s', (_what, changes) => {
    expect(problemsOf(apply(changes))).toEqual([]);
  });
});

describe('one mistake does not hide the others', () => {
  it('a structural error elsewhere still reports unknown names', () => {
    const workspace = apply([[['servers', 0, 'address'], 'nope'], [['services', 0, 'group'], 'ghost']]);
    expect(errorsOf(problemsOf(workspace)).map((p) => p.path)).toEqual(['servers[0].address', 'services[0].group']);
  });
  it('an invalid entry still counts as defined (no false "unknown server")', () => {
    const workspace = apply([[['servers', 0, 'address'], 'nope']]);
    expect(errorsOf(problemsOf(workspace)).map((p) => p.path)).toEqual(['servers[0].address']);
  });
});

describe('suggestions after a rename', () => {
  const data = {
    lbdesk: 1,
    name: 's',
    servers: [{ name: 'app-1', address: '192.0.2.11' }, { name: 'web-b', address: '192.0.2.12' }],
    groups: [{ name: 'web', members: [{ server: 'web-a', port: 80 }] }],
  };
  it('a reference on an old name is pointed at the new name, not at the name spelt most like the old one', async () => {
    const { checkData } = await import('../../../shared/model/validate');
    const msg = (renamed?: Parameters<typeof checkData>[2]) => checkData(data, Infinity, renamed).issues.map((i) => i.message);
    expect(msg()).toEqual(['unknown server "web-a" (did you mean "web-b"?)']);
    expect(msg({ servers: new Map([['web-a', 'app-1']]) })).toEqual(['unknown server "web-a" (did you mean "app-1"? "web-a" was renamed to "app-1")']);
    // A rename to a name that is gone again says nothing of it.
    expect(msg({ servers: new Map([['web-a', 'gone']]) })).toEqual(['unknown server "web-a" (did you mean "web-b"?)']);
  });
});
