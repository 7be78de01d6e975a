// The pure parts of the runtime: which stats socket a config declares (and the render declares), and MEMBER arguments.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workspaceSchema } from '../../../../shared/model/schema';
import { declaredSockets } from '../../../../main/services/operate/haproxy-socket';
import { resolveMembers } from '../../../../main/services/operate';
import { renderForAppliance } from '../../../../main/services/drivers';

describe('declaredSockets', () => {
  it('finds the UNIX sockets of global, level admin first; TCP ones are named apart; other sections do not count', () => {
    const cfg = [
      'global',
      '    stats socket /run/haproxy/oper.sock mode 660 level operator',
      '    stats socket unix@/run/haproxy/admin.sock mode 600 level admin expose-fd listeners # ours',
      '    stats socket ipv4@127.0.0.1:9999 level admin',
      'defaults',
      '    mode tcp',
      'backend x',
      '    stats socket /not/here.sock',
    ].join('\n');
    expect(declaredSockets(cfg)).toEqual({
      sockets: [{ path: '/run/haproxy/admin.sock', level: 'admin', line: 3 }, { path: '/run/haproxy/oper.sock', level: 'operator', line: 2 }],
      other: ['ipv4@127.0.0.1:9999'],
    });
    expect(declaredSockets('global\n    daemon\n')).toEqual({ sockets: [], other: [] });
  });
});

describe('resolveMembers', () => {
  const workspace = workspaceSchema.parse(parse([
    'lbdesk: 1', 'name: m',
    'servers: [{ name: a, address: 192.0.2.1 }, { name: b, address: 192.0.2.2 }, { name: lone, address: 192.0.2.3 }]',
    'groups:',
    '  - { name: web, members: [{ server: a, port: 80 }, { server: a, port: 81 }, { server: b, port: 80 }] }',
    '  - { name: api, members: [{ server: a, port: 90 }] }',
  ].join('\n')));
  it('GROUP/SERVER:PORT, GROUP/SERVER, and SERVER alone (each group it is in), each once', () => {
    expect(resolveMembers(workspace, ['web/b', 'a', 'web/a:80']).map((m) => m.label)).toEqual(['web/b:80', 'web/a:80', 'web/a:81', 'api/a:90']);
  });
  it('says what is wrong in one line', () => {
    expect(() => resolveMembers(workspace, ['web/a'])).toThrow('web/a is in group web on 2 ports: name one (web/a:80, web/a:81)');
    expect(() => resolveMembers(workspace, ['web/a:82'])).toThrow('unknown member "web/a:82": group web has web/a:80, web/a:81, web/b:80');
    expect(() => resolveMembers(workspace, ['db/a'])).toThrow('unknown member "db/a": no group db (groups: web, api)');
    expect(() => resolveMembers(workspace, ['lone'])).toThrow('server lone is in no group');
  });
});

describe('statsSocket', () => {
  const site = (statsSocket: string) => parse([
    'lbdesk: 1', 'name: s',
    'servers: [{ name: a, address: 192.0.2.1 }]',
    'groups: [{ name: web, members: [{ server: a, port: 80 }] }]',
    'services: [{ name: web-vip, address: 192.0.2.10, port: 80, group: web }]',
    `appliances: [{ name: box, host: 192.0.2.20, driver: haproxy, statsSocket: "${statsSocket}" }]`,
  ].join('\n')) as unknown;
  it('is declared in the rendered global at level admin, and must be an absolute path', () => {
    const workspace = workspaceSchema.parse(site('/run/haproxy/admin.sock'));
    const text = renderForAppliance(workspace, workspace.appliances[0]!, { workspacePath: '/nowhere/site.yaml' }).text;
    expect(text).toMatch(/^global\n {4}stats socket \/run\/haproxy\/admin\.sock mode 600 level admin\n/m);
    expect(declaredSockets(text).sockets).toEqual([{ path: '/run/haproxy/admin.sock', level: 'admin', line: 5 }]);
    expect(workspaceSchema.safeParse(site('run/admin.sock')).error?.issues[0]).toMatchObject({ path: ['appliances', 0, 'statsSocket'], message: 'must be an absolute path without spaces' });
  });
});
