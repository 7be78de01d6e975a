// What every driver shares: the registry, include lists, appliance overrides, headers, determinism.
import { describe, expect, it } from 'vitest';
import { availableDrivers, getDriver, parseHeader, renderForAppliance, selectIncluded } from '../../../../main/services/drivers';
import { DRIVERS, type DriverName } from '../../../../shared/model/schema';
import { RICH_PATH, appliance, loadRich, workspace } from '../../../helpers/drivers';

const ctx = { workspacePath: RICH_PATH };

describe('registry', () => {
  it('has haproxy, keepalived and lbdesk with their defaults', () => {
    expect(availableDrivers()).toEqual(expect.arrayContaining(['haproxy', 'keepalived', 'lbdesk']));
    expect(getDriver('haproxy').defaults).toEqual({ configPath: '/etc/haproxy/haproxy.cfg', validateCommand: 'haproxy -c -f {file}', reloadCommand: 'systemctl reload haproxy' });
    expect(getDriver('keepalived').defaults.validateCommand).toBe('keepalived -t -e -f {file}');
    expect(getDriver('lbdesk').defaults).toEqual({ configPath: '/etc/lbdesk/workspace.yaml', validateCommand: 'lbdesk validate {file}', reloadCommand: 'systemctl reload lbdesk' });
  });

  it('a driver without an implementation: a clear error, and a named problem from renderForAppliance', () => {
    // Every driver the schema names has one; a name from elsewhere (a newer workspace) is said so.
    for (const d of DRIVERS) expect(getDriver(d).name).toBe(d);
    const name = 'nginx' as DriverName;
    expect(() => getDriver(name)).toThrow('driver "nginx" is not available yet');
    const site = loadRich();
    const r = renderForAppliance(site, { ...appliance(site, 'lvs'), driver: name }, ctx);
    expect(r.text).toBe('');
    expect(r.errors).toEqual([{ subject: 'appliance lvs', message: expect.stringContaining('not available yet') }]);
  });
});

describe('renderForAppliance', () => {
  it('applies the appliance overrides over the driver defaults', () => {
    const site = loadRich();
    const daemon = renderForAppliance(site, appliance(site, 'daemon'), ctx);
    expect(daemon.configPath).toBe('/srv/lbdesk/site.yaml');
    expect(daemon.defaults.configPath).toBe('/etc/lbdesk/workspace.yaml');
    expect(daemon.validateCommand).toBe('lbdesk validate {file}');
    const custom = { ...appliance(site, 'edge-haproxy'), validateCommand: '/usr/local/sbin/haproxy -c -f {file}', reloadCommand: 'kill -USR2 1' };
    const r = renderForAppliance(site, custom, ctx);
    expect([r.configPath, r.validateCommand, r.reloadCommand]).toEqual(['/etc/haproxy/haproxy.cfg', '/usr/local/sbin/haproxy -c -f {file}', 'kill -USR2 1']);
  });
});

describe('selectIncluded', () => {
  const site = workspace({
    servers: [{ name: 's', address: '192.0.2.1' }],
    groups: [{ name: 'g', members: [{ server: 's', port: 80 }] }],
    services: [
      { name: 'one', address: '192.0.2.10', port: 80, group: 'g' },
      { name: 'two', address: '192.0.2.10', port: 81, group: 'g' },
    ],
    targetSets: [{ number: 4, address: '203.0.113.1' }, { number: 12, address: '203.0.113.2' }],
    appliances: [{ name: 'all', host: 'h' }],
  });
  const base = site.appliances[0]!;

  it('includes everything without a list, in workspace order', () => {
    const s = selectIncluded(site, base);
    expect([s.services.map((x) => x.name), s.targetSets.map((t) => t.number), s.errors]).toEqual([['one', 'two'], [4, 12], []]);
  });

  it('names target sets ts4, ts-4 or target-set-4; keeps workspace order whatever the list order', () => {
    const s = selectIncluded(site, { ...base, include: ['target-set-12', 'two', 'TS-4'] });
    expect([s.services.map((x) => x.name), s.targetSets.map((t) => t.number), s.errors]).toEqual([['two'], [4, 12], []]);
  });

  it('an unknown name is an error listing the known ones', () => {
    const s = selectIncluded(site, { ...base, include: ['one', 'three', 'ts5'] });
    expect(s.errors).toEqual([
      { subject: 'include "three"', message: 'no service or target set of that name (known: one, two, ts4, ts12)' },
      { subject: 'include "ts5"', message: 'no service or target set of that name (known: one, two, ts4, ts12)' },
    ]);
  });

  it('a render with an unknown include is refused by name', () => {
    const r = renderForAppliance(site, { ...base, driver: 'keepalived', include: ['nope'] }, ctx);
    expect(r.text).toBe('');
    expect(r.errors.map((e) => e.subject)).toEqual(['include "nope"']);
  });
});

describe('deterministic output with a content hash', () => {
  it.each(['edge-haproxy', 'lvs', 'daemon'])('%s: same workspace, same bytes; header names the workspace and hashes the body', (name) => {
    const a = renderForAppliance(loadRich(), appliance(loadRich(), name), ctx).text;
    const b = renderForAppliance(loadRich(), appliance(loadRich(), name), { workspacePath: '/elsewhere/copy.yaml' }).text;
    expect(a).toBe(b);
    const h = parseHeader(a)!;
    expect(h).toMatchObject({ workspace: 'rich-site', appliance: name, intact: true });
    expect(h.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it('the include order does not matter', () => {
    const site = loadRich();
    const edge = appliance(site, 'edge-haproxy');
    const reversed = renderForAppliance(site, { ...edge, include: [...edge.include!].reverse() }, ctx).text;
    expect(reversed).toBe(renderForAppliance(site, edge, ctx).text);
  });

  it('a change shows in the hash; a hand edit shows as not intact', () => {
    const site = loadRich();
    const before = renderForAppliance(site, appliance(site, 'lvs'), ctx).text;
    site.groups.find((g) => g.name === 'web')!.members[0]!.weight = 101;
    const after = renderForAppliance(site, appliance(site, 'lvs'), ctx).text;
    expect(parseHeader(after)!.hash).not.toBe(parseHeader(before)!.hash);
    expect(parseHeader(before.replace('weight 200', 'weight 201'))!.intact).toBe(false);
    expect(parseHeader('global\n')).toBeUndefined();
  });
});
