// Every rendered file passes the appliance's own validator (haproxy -c, keepalived -t).
import { describe, expect, it } from 'vitest';
import { renderForAppliance } from '../../../../main/services/drivers';
import { HAPROXY, KEEPALIVED, RICH_PATH, appliance, haproxyCheck, keepalivedCheck, loadRich, missing, workspace } from '../../../helpers/drivers';
import type { Workspace } from '../../../../shared/model/schema';
import { skipBecause } from '../../../helpers/skip';

const ctx = { workspacePath: RICH_PATH };

function render(site: Workspace, name: string): string {
  const r = renderForAppliance(site, appliance(site, name), ctx);
  expect(r.errors).toEqual([]);
  return r.text;
}

/**
 * Strings that need quoting in both languages, in every place a user's text lands (as far as
 * validate lets them: a line break or tab it refuses, test/shared/model/text-rules.test.ts).
 */
function awkward(driver: 'haproxy' | 'keepalived'): Workspace {
  return workspace({
    servers: [{ name: 's1', address: '192.0.2.21', description: 'rack "A" # 1 slot $2 {x}' }, { name: 's2', address: '2001:db8::22' }],
    groups: [
      { name: 'g', members: [{ server: 's1', port: 8080 }], healthCheck: { type: 'http', http: { path: "/health check?a=1&b='x'#top", expect: 'it\'s "up" $HOME \\ 100% [ok]', host: 'www.example.test' } } },
      { name: 'g6', members: [{ server: 's2', port: 8443 }], healthCheck: { type: 'https', http: { path: '/', expect: 'OK' }, tls: { serverName: 'v6.example.test' } } },
    ],
    services: [
      { name: 'svc', description: 'one # line; with {braces}', address: '192.0.2.10', port: 80, group: 'g', algorithm: 'source-hash', persistence: { type: 'client-ip', timeout: '1500ms' } },
      { name: 'svc6', address: '2001:db8::10', port: 443, group: 'g6', algorithm: 'least-connections', idleTimeout: '90s' },
    ],
    appliances: [{ name: 'a', host: '192.0.2.1', driver }],
  });
}

/** Shapes at the edges: an empty group, a group whose only server is disabled, a set without ports. */
function edges(driver: 'haproxy' | 'keepalived'): Workspace {
  return workspace({
    servers: [{ name: 'off', address: '192.0.2.21', enabled: false }],
    groups: [{ name: 'empty' }, { name: 'dark', members: [{ server: 'off', port: 80 }] }],
    services: [
      { name: 'nobody', address: '192.0.2.10', port: 80, group: 'empty' },
      { name: 'dark-vip', address: '192.0.2.10', port: 81, group: 'dark' },
    ],
    targetSets: [{ number: 1, address: '203.0.113.1', algorithm: 'hash', protocols: 'tcp' }],
    appliances: [{ name: 'a', host: '192.0.2.1', driver }],
  });
}

/** Timers at the top of the workspace's ranges (Delete Age 36 days: past both tools' limits). */
function longest(driver: 'haproxy' | 'keepalived'): Workspace {
  return workspace({
    targetSets: [{ number: 1, address: '203.0.113.50', ports: [3868], algorithm: 'hash', protocols: 'tcp', deleteAge: 3_110_400, servers: [{ address: '203.0.113.51' }] }],
    appliances: [{ name: 'a', host: '192.0.2.1', driver }],
  });
}

describe.skipIf(skipBecause(!HAPROXY && 'haproxy is not installed (apt-get install haproxy)', 'haproxy -c'))('haproxy -c accepts every rendered haproxy.cfg', () => {
  if (!HAPROXY) missing('haproxy');

  it('the rich workspace, in zero-warning mode', () => {
    const r = haproxyCheck(render(loadRich(), 'edge-haproxy'));
    expect(r.output).toContain('Configuration file is valid');
    expect(r.code).toBe(0);
  });

  it('quotes, spaces, # and $ in user text', () => {
    const r = haproxyCheck(render(awkward('haproxy'), 'a'));
    expect(r.output).toContain('Configuration file is valid');
    expect(r.code).toBe(0);
  });

  it('empty and all-disabled groups, a target set without ports', () => {
    const r = haproxyCheck(render(edges('haproxy'), 'a'));
    expect(r.output).toContain('Configuration file is valid');
    expect(r.code).toBe(0);
  });

  it('the longest Delete Age the workspace allows', () => {
    const r = haproxyCheck(render(longest('haproxy'), 'a'));
    expect(r.output).toContain('Configuration file is valid');
    expect(r.code).toBe(0);
  });

  it('really checks: a broken render is refused', () => {
    const r = haproxyCheck(render(loadRich(), 'edge-haproxy').replace('balance leastconn', 'balance most-loved'));
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/balance only supports/);
  });
});

describe.skipIf(skipBecause(!KEEPALIVED && 'keepalived is not installed (apt-get install keepalived)', 'keepalived -t'))('keepalived -t accepts every rendered keepalived.conf', () => {
  if (!KEEPALIVED) missing('keepalived');

  it('the rich workspace, without one complaint', () => {
    const r = keepalivedCheck(render(loadRich(), 'lvs'));
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('quotes, spaces, # and $ in user text', () => {
    const r = keepalivedCheck(render(awkward('keepalived'), 'a'));
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('empty and all-disabled groups, a target set without ports (left out, and said)', () => {
    const site = edges('keepalived');
    const result = renderForAppliance(site, appliance(site, 'a'), ctx);
    expect(result.warnings.map((w) => w.subject)).toEqual(['service nobody', 'service dark-vip', 'target set 1']);
    const r = keepalivedCheck(result.text);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('the longest Delete Age the workspace allows', () => {
    const r = keepalivedCheck(render(longest('keepalived'), 'a'));
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('really checks: a broken render is refused', () => {
    const r = keepalivedCheck(render(loadRich(), 'lvs').replace('lb_algo wrr', 'lb_algo most-loved'));
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/most-loved/);
  });
});
