// Every range and rule of the schema, one broken field at a time: the problem names the field
// and the rule, and nothing else is reported.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseWorkspace } from '../../../shared/model/validate';
import { workspaceSchema } from '../../../shared/model/schema';
import { formatProblem } from '../../../shared/model/problem';
import { base, edit, errorsOf, exampleText, problemsOf, ROOT } from '../../helpers/model';
import type { PathSegment } from '../../../shared/model/problem';
import { skipBecause } from '../../helpers/skip';

describe('the example workspace', () => {
  it('validates with no problems at all, and resolves defaults', () => {
    const r = parseWorkspace(exampleText(), 'lab-site-a.yaml');
    expect(r.problems.map(formatProblem)).toEqual([]);
    const workspace = r.workspace!;
    expect(workspace.servers.map((s) => s.name)).toEqual(['web1', 'web2', 'dir1', 'dns1']);
    expect(workspace.servers[1]!.healthTimers).toEqual({ interval: 5_000 });
    expect(workspace.healthTimers).toEqual({ interval: 30_000, retryInterval: 10_000, failAfter: 2, restoreAfter: 2, timeout: 5_000 });
    expect(workspace.groups[0]!.healthCheck).toMatchObject({ type: 'http', degradedAbove: 1_000, availableBelow: 500 });
    expect(workspace.services[0]!.persistence).toEqual({ type: 'client-ip', timeout: 300_000 });
    expect(workspace.services[1]!.persistence).toEqual({ type: 'none', timeout: 300_000 });
    expect(workspace.targetSets[0]).toMatchObject({ number: 1, activeIpfe: 'A1', standbyIpfe: 'A2', protocols: 'both', deleteAge: 600 });
    expect(workspace.appliances[0]).toMatchObject({ port: 2222, driver: 'haproxy', include: ['web-vip', 'ldap-vip'] });
  });

  const spec = resolve(ROOT, '../shared/spec/workspace.example.yaml');
  it.skipIf(skipBecause(!existsSync(spec) && '../shared/spec is not beside this checkout', 'demo workspace = spec example'))(`the demo workspace is the spec example, byte for byte${existsSync(spec) ? '' : ' (skipped: ../shared/spec is not beside this checkout)'}`, () => {
    expect(exampleText()).toBe(readFileSync(spec, 'utf8'));
  });
});

describe('defaults from the seeds', () => {
  it('fills every IPFE default (seed 003) and Px timer defaults stay unset until resolved', () => {
    const workspace = workspaceSchema.parse({ lbdesk: 1, name: 'x', targetSets: [{ number: 3, address: '127.0.0.5', servers: [{ address: '127.0.0.6' }] }] });
    expect(workspace.targetSets[0]).toEqual({
      number: 3, address: '127.0.0.5', ports: [], protocols: 'both', algorithm: 'least-load',
      leastLoad: { mpsFactor: 50, connectionFactor: 50, allowedDeviation: 5 },
      peerNodeAware: { enabled: true, threshold: 1 }, deleteAge: 600, activeIpfe: 'A1', standbyIpfe: 'A2',
      secondaryStandbyIpfe: undefined, initiatorSupport: false, disabled: false,
      servers: [{ address: '127.0.0.6', weight: 100 }],
    });
    expect(workspace.healthTimers).toBeUndefined();
  });

  it('fills service, group, member and appliance defaults', () => {
    const workspace = workspaceSchema.parse({
      lbdesk: 1, name: 'x', servers: [{ name: 'a', address: '127.0.0.2' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 80 }] }],
      services: [{ name: 's', address: '127.0.0.1', port: 80, group: 'g' }],
      appliances: [{ name: 'p', host: 'h' }],
    });
    expect(workspace.servers[0]!.enabled).toBe(true);
    expect(workspace.groups[0]!.members[0]!.weight).toBe(100);
    expect(workspace.groups[0]!.healthCheck).toEqual({ type: 'auto' });
    expect(workspace.services[0]).toMatchObject({ protocol: 'tcp', algorithm: 'round-robin', persistence: { type: 'none', timeout: 300_000 }, idleTimeout: 600_000, enabled: true });
    expect(workspace.appliances[0]).toMatchObject({ port: 22, auth: 'agent', driver: 'haproxy', transfer: 'auto' });
  });

  it.each([
    ['B1', 'B2'], ['B2', 'B1'], ['A2', 'A1'],
  ])('active IPFE %s has standby %s', (active, standby) => {
    const workspace = workspaceSchema.parse({ lbdesk: 1, name: 'x', targetSets: [{ number: 1, address: '127.0.0.5', activeIpfe: active, secondaryAddress: '127.0.0.7', secondaryActiveIpfe: standby }] });
    expect(workspace.targetSets[0]).toMatchObject({ standbyIpfe: standby, secondaryStandbyIpfe: active });
  });
});

// [what, path, value (undefined deletes), the problem's path, message pattern, follow-on errors elsewhere]
type Case = [string, PathSegment[], unknown, string, RegExp, string[]?];
const TS: PathSegment[] = ['targetSets', 0];
const cases: Case[] = [
  // format and top level
  ['format version missing', ['lbdesk'], undefined, 'lbdesk', /required field is missing.*lbdesk: 1/],
  ['format version as text', ['lbdesk'], '1', 'lbdesk', /must be 1/],
  ['format version from the future', ['lbdesk'], 2, 'lbdesk', /newer than this lbdesk/],
  ['format version with no migration', ['lbdesk'], 0, 'lbdesk', /cannot be read/],
  ['name empty', ['name'], '', 'name', /must not be empty/],
  ['name missing', ['name'], undefined, 'name', /required field is missing/],
  ['unknown top-level key', ['server'], [], 'server', /unknown key "server" \(did you mean "servers"\?\)/],
  ['servers not a list', ['servers'], { web1: {} }, 'servers', /expected a list, not a mapping/],
  // durations and global timers (Px)
  ['interval not a duration', ['healthTimers', 'interval'], '30 sec', 'healthTimers.interval', /"30 sec" is not a duration/],
  ['interval a boolean', ['healthTimers', 'interval'], true, 'healthTimers.interval', /must be a duration/],
  ['interval below 100ms', ['healthTimers', 'interval'], '50ms', 'healthTimers.interval', /between 100ms and 24h/],
  ['interval above a day', ['healthTimers', 'interval'], '25h', 'healthTimers.interval', /between 100ms and 24h/],
  ['retryInterval negative seconds', ['healthTimers', 'retryInterval'], -1, 'healthTimers.retryInterval', /not a duration/],
  ['timeout above 5m', ['healthTimers', 'timeout'], '6m', 'healthTimers.timeout', /between 100ms and 5m/],
  ['failAfter 0', ['healthTimers', 'failAfter'], 0, 'healthTimers.failAfter', /integer from 1 to 255, not the number 0/],
  ['failAfter 256', ['healthTimers', 'failAfter'], 256, 'healthTimers.failAfter', /integer from 1 to 255/],
  ['failAfter fractional', ['healthTimers', 'failAfter'], 1.5, 'healthTimers.failAfter', /integer from 1 to 255/],
  ['restoreAfter quoted', ['healthTimers', 'restoreAfter'], '2', 'healthTimers.restoreAfter', /integer from 1 to 255, not the text "2" \(remove the quotes\)/],
  ['format version quoted', ['lbdesk'], '1', 'lbdesk', /^must be 1 \(the workspace format version\), not the text "1" \(remove the quotes\)$/],
  ['unknown timer', ['healthTimers', 'retries'], 3, 'healthTimers.retries', /unknown key "retries"/],
  // real servers
  ['server name with a space', ['servers', 0, 'name'], 'web 1', 'servers[0].name', /letters, digits/, ['groups[0].members[0].server']],
  ['server address not an address', ['servers', 0, 'address'], 'web1.example', 'servers[0].address', /IPv4 or IPv6/],
  ['server address out of range', ['servers', 0, 'address'], '256.0.0.1', 'servers[0].address', /IPv4 or IPv6/],
  ['server address IPv4 shorthand', ['servers', 0, 'address'], '127.1', 'servers[0].address', /IPv4 or IPv6/],
  ['server address missing', ['servers', 0, 'address'], undefined, 'servers[0].address', /required field is missing/],
  ['server enabled as text', ['servers', 0, 'enabled'], 'yes', 'servers[0].enabled', /true or false/],
  ['server misspelt key', ['servers', 0, 'adress'], '127.0.0.9', 'servers[0].adress', /unknown key "adress" \(did you mean "address"\?\)/],
  // members
  ['member port 0', ['groups', 0, 'members', 0, 'port'], 0, 'groups[0].members[0].port', /port number from 1 to 65535/],
  ['member port 65536', ['groups', 0, 'members', 0, 'port'], 65536, 'groups[0].members[0].port', /port number from 1 to 65535/],
  ['member weight -1', ['groups', 0, 'members', 0, 'weight'], -1, 'groups[0].members[0].weight', /integer from 0 to 65535/],
  ['member weight 65536', ['groups', 0, 'members', 0, 'weight'], 65536, 'groups[0].members[0].weight', /integer from 0 to 65535/],
  ['member server missing', ['groups', 0, 'members', 0, 'server'], undefined, 'groups[0].members[0].server', /required/],
  // health checks
  ['check type misspelt', ['groups', 0, 'healthCheck', 'type'], 'htp', 'groups[0].healthCheck.type', /one of: auto, none, ping.*did you mean "http"/],
  ['check protocol unknown', ['groups', 1, 'healthCheck', 'protocol'], 'gopher', 'groups[1].healthCheck.protocol', /must be one of/],
  ['check layer 3', ['groups', 1, 'healthCheck', 'layer'], 3, 'groups[1].healthCheck.layer', /must be one of: 4, 7/],
  ['http path without slash', ['groups', 0, 'healthCheck', 'http', 'path'], 'status', 'groups[0].healthCheck.http.path', /must start with "\/"/],
  ['http unknown option', ['groups', 0, 'healthCheck', 'http', 'method'], 'GET', 'groups[0].healthCheck.http.method', /unknown key/],
  ['ldap scope', ['groups', 1, 'healthCheck', 'ldap', 'scope'], 'all', 'groups[1].healthCheck.ldap.scope', /one of: base, one, sub/],
  ['ldap expect attribute name', ['groups', 1, 'healthCheck', 'ldap', 'expect'], { 'not an attribute': 'x' }, 'groups[1].healthCheck.ldap.expect["not an attribute"]', /LDAP attribute name/],
  ['dns record type', ['groups', 2, 'healthCheck', 'dns', 'recordType'], 'AAA', 'groups[2].healthCheck.dns.recordType', /did you mean "AAAA"/],
  ['dns query missing', ['groups', 2, 'healthCheck', 'dns', 'query'], undefined, 'groups[2].healthCheck.dns.query', /required/],
  ['degradedAbove over 5m', ['groups', 0, 'healthCheck', 'degradedAbove'], '10m', 'groups[0].healthCheck.degradedAbove', /between 1ms and 5m/],
  ['group timers failAfter 0', ['groups', 2, 'healthTimers', 'failAfter'], 0, 'groups[2].healthTimers.failAfter', /1 to 255/],
  ['server timers interval', ['servers', 1, 'healthTimers', 'interval'], '0s', 'servers[1].healthTimers.interval', /between 100ms/],
  // virtual services
  ['service port 0', ['services', 0, 'port'], 0, 'services[0].port', /port number/],
  ['service protocol sctp', ['services', 0, 'protocol'], 'sctp', 'services[0].protocol', /one of: tcp, udp/],
  ['service algorithm', ['services', 0, 'algorithm'], 'random', 'services[0].algorithm', /round-robin, weighted-round-robin/],
  ['persistence type', ['services', 0, 'persistence', 'type'], 'cookie', 'services[0].persistence.type', /none, client-ip/],
  ['idle timeout 0', ['services', 0, 'idleTimeout'], 0, 'services[0].idleTimeout', /between 1s and 24h/],
  // target sets (IPFE, seed 003)
  ['target set number 0', [...TS, 'number'], 0, 'targetSets[0].number', /integer from 1 to 32/, ['appliances[0].include[1]']],
  ['target set number 33', [...TS, 'number'], 33, 'targetSets[0].number', /integer from 1 to 32/, ['appliances[0].include[1]']],
  ['target set number missing', [...TS, 'number'], undefined, 'targetSets[0].number', /required/, ['appliances[0].include[1]']],
  ['target set address', [...TS, 'address'], 'tsa', 'targetSets[0].address', /IPv4 or IPv6/],
  ['target set secondary address', [...TS, 'secondaryAddress'], '1.2.3', 'targetSets[0].secondaryAddress', /IPv4 or IPv6/],
  ['target set port 70000', [...TS, 'ports', 0], 70000, 'targetSets[0].ports[0]', /port number/],
  ['protocols udp', [...TS, 'protocols'], 'udp', 'targetSets[0].protocols', /one of: tcp, sctp, both/],
  ['algorithm round-robin', [...TS, 'algorithm'], 'round-robin', 'targetSets[0].algorithm', /one of: hash, least-load/],
  ['Fm 101', [...TS, 'leastLoad', 'mpsFactor'], 101, 'targetSets[0].leastLoad.mpsFactor', /integer from 0 to 100/],
  ['Fm -1', [...TS, 'leastLoad', 'mpsFactor'], -1, 'targetSets[0].leastLoad.mpsFactor', /integer from 0 to 100/],
  ['Fc 101', [...TS, 'leastLoad', 'connectionFactor'], 101, 'targetSets[0].leastLoad.connectionFactor', /integer from 0 to 100/],
  ['allowed deviation 51', [...TS, 'leastLoad', 'allowedDeviation'], 51, 'targetSets[0].leastLoad.allowedDeviation', /integer from 0 to 50/],
  ['allowed deviation -1', [...TS, 'leastLoad', 'allowedDeviation'], -1, 'targetSets[0].leastLoad.allowedDeviation', /integer from 0 to 50/],
  ['threshold D 11', [...TS, 'peerNodeAware', 'threshold'], 11, 'targetSets[0].peerNodeAware.threshold', /integer from 0 to 10/],
  ['threshold D -1', [...TS, 'peerNodeAware', 'threshold'], -1, 'targetSets[0].peerNodeAware.threshold', /integer from 0 to 10/],
  ['peer node aware as text', [...TS, 'peerNodeAware', 'enabled'], 'on', 'targetSets[0].peerNodeAware.enabled', /true or false/],
  ['delete age 9', [...TS, 'deleteAge'], 9, 'targetSets[0].deleteAge', /integer from 10 to 3110400/],
  ['delete age 3110401', [...TS, 'deleteAge'], 3_110_401, 'targetSets[0].deleteAge', /integer from 10 to 3110400/],
  ['active IPFE C1', [...TS, 'activeIpfe'], 'C1', 'targetSets[0].activeIpfe', /one of: A1, A2, B1, B2/],
  ['standby is derived, not set', [...TS, 'standbyIpfe'], 'A2', 'targetSets[0].standbyIpfe', /unknown key/],
  ['initiator support as text', [...TS, 'initiatorSupport'], 'no', 'targetSets[0].initiatorSupport', /true or false/],
  ['disabled as a number', [...TS, 'disabled'], 0, 'targetSets[0].disabled', /true or false/],
  ['server weight 65536', [...TS, 'servers', 1, 'weight'], 65536, 'targetSets[0].servers[1].weight', /integer from 0 to 65535/],
  ['server weight -1', [...TS, 'servers', 1, 'weight'], -1, 'targetSets[0].servers[1].weight', /integer from 0 to 65535/],
  ['server address', [...TS, 'servers', 0, 'address'], 'fe80::zz', 'targetSets[0].servers[0].address', /IPv4 or IPv6/],
  // appliances
  ['appliance port 0', ['appliances', 0, 'port'], 0, 'appliances[0].port', /port number/],
  ['appliance auth', ['appliances', 0, 'auth'], 'token', 'appliances[0].auth', /agent, key, password/],
  ['appliance driver', ['appliances', 0, 'driver'], 'nginx', 'appliances[0].driver', /haproxy, keepalived, lbdesk/],
  ['appliance host key', ['appliances', 0, 'hostKey'], 'abc', 'appliances[0].hostKey', /SHA256/],
  ['appliance password in the file', ['appliances', 0, 'password'], 'secret', 'appliances[0].password', /unknown key/],
];

describe('one broken field, one error that names it', () => {
  it.each(cases)('%s', (_what, path, value, where, message, followOn = []) => {
    const problems = problemsOf(edit(base(), path, value));
    const errors = errorsOf(problems);
    expect(errors.map((p) => p.path).sort()).toEqual([where, ...followOn].sort());
    const mine = errors.find((p) => p.path === where)!;
    expect(mine.message).toMatch(message);
    expect(mine.line).toBeGreaterThan(0);
    expect(mine.col).toBeGreaterThan(0);
  });
});

describe('an error in one field hides nothing else', () => {
  it("an out-of-range weight does not hide another server's address family", () => {
    let workspace = edit(base(), [...TS, 'servers', 1, 'weight'], 65536);
    workspace = edit(workspace, [...TS, 'servers', 0, 'address'], '::1');
    expect(errorsOf(problemsOf(workspace)).map((p) => p.path).sort()).toEqual(['targetSets[0].servers[0].address', 'targetSets[0].servers[1].weight']);
  });
  it('an unknown key or a bad weight does not hide an unknown server, even in the same member', () => {
    let workspace = edit(base(), ['groups', 0, 'members', 1, 'weight'], 70000);
    workspace = edit(workspace, ['groups', 0, 'members', 0, 'server'], 'zz');
    workspace = edit(workspace, ['groups', 0, 'members', 0, 'bogus'], 1);
    const errors = errorsOf(problemsOf(workspace));
    expect(errors.map((p) => p.path).sort()).toEqual(['groups[0].members[0].bogus', 'groups[0].members[0].server', 'groups[0].members[1].weight']);
    expect(errors.find((p) => p.path === 'groups[0].members[0].server')!.message).toMatch(/unknown server "zz"/);
  });
  it('a field others read (protocol, type) is not replaced by its default to judge the rest: no made-up clashes', () => {
    // services[1] on web-vip's address and port, as tcpx: not "already used" as tcp.
    let workspace = edit(base(), ['services', 1, 'address'], '127.0.0.10');
    workspace = edit(workspace, ['services', 1, 'port'], 8080);
    workspace = edit(workspace, ['services', 1, 'protocol'], 'tcpx');
    expect(errorsOf(problemsOf(workspace)).map((p) => p.path)).toEqual(['services[1].protocol']);
  });
});
