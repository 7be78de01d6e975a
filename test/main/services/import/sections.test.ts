// manage: sections: lbdesk's own sections are marked and re-rendered whole; references from kept
// sections are checked before anything is sent; owned sections edited on the box are conflicts.
import { describe, expect, it } from 'vitest';
import { renderOnto } from '../../../../main/services/drivers/sections';
import { changedLines, corpus, haproxyValid, importCase, keepalivedValid, TOOLS } from '../../../helpers/import';

const ctx = { workspacePath: '/dev/null' };
const HAP = { file: 'debian-tls.cfg', driver: 'haproxy' as const };
const KA = { file: 'keepalived-pair.conf', driver: 'keepalived' as const };

function withNewService<T extends ReturnType<typeof importCase>['workspace']>(workspace: T, address: string): T {
  workspace.services.push({ ...workspace.services[0]!, name: 'intranet', address, port: 8088, group: workspace.groups[0]!.name, description: undefined });
  return workspace;
}

describe('manage: sections (HAProxy)', () => {
  const { text } = corpus(HAP);

  it('adds a new service as marked sections at the end; rendering again onto the result changes nothing', () => {
    const { workspace } = importCase(HAP);
    withNewService(workspace, '192.0.2.12');
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: 'haproxy.cfg' });
    expect(r.errors).toEqual([]);
    expect(r.text.startsWith(text.trimEnd())).toBe(true);
    const added = r.text.slice(text.trimEnd().length);
    expect(added).toMatch(/\n# lbdesk: owned, sha256 [0-9a-f]{16}\nfrontend intranet\n/);
    expect(added).toMatch(/\n# lbdesk: owned, sha256 [0-9a-f]{16}\nbackend intranet\n/);
    expect(renderOnto(workspace, workspace.appliances[0]!, r.text, ctx, { file: 'haproxy.cfg' }).text).toBe(r.text);
    if (TOOLS.haproxy) expect(haproxyValid(r.text).code).toBe(0);

    // A weight change re-renders lbdesk's own section: its server line and its marker change.
    workspace.groups[0]!.members[0]!.weight = 9;
    const again = renderOnto(workspace, workspace.appliances[0]!, r.text, ctx, { file: 'haproxy.cfg' });
    const lines = changedLines(r.text, again.text).map((n) => again.text.split('\n')[n - 1]);
    expect(lines.filter((l) => l?.includes('lbdesk: owned'))).toHaveLength(1);
    expect(lines.filter((l) => l?.includes('weight 9'))).toHaveLength(2);

    // Removing the service removes exactly what lbdesk added.
    workspace.services.pop();
    const web1 = (t: string) => t.replace('server web1 198.51.100.11:8080 weight 10', 'server web1 198.51.100.11:8080 weight 9');
    expect(renderOnto(workspace, workspace.appliances[0]!, again.text, ctx, { file: 'haproxy.cfg' }).text).toBe(web1(text));
  });

  it('an owned section edited on the appliance is a conflict, refused unless forced', () => {
    const { workspace } = importCase(HAP);
    withNewService(workspace, '192.0.2.12');
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: 'haproxy.cfg' });
    const edited = r.text.replace(/(backend intranet\n(?:.*\n)*?.*timeout server) \S+/, '$1 1h');
    expect(edited).not.toBe(r.text);
    const refused = renderOnto(workspace, workspace.appliances[0]!, edited, ctx, { file: 'haproxy.cfg' });
    expect(refused.conflicts).toEqual([expect.stringMatching(/^haproxy\.cfg:\d+: backend intranet was edited on the appliance since lbdesk wrote it$/)]);
    expect(refused.text).toBe('');
    expect(refused.errors[0]!.message).toMatch(/--force/);
    const forced = renderOnto(workspace, workspace.appliances[0]!, edited, ctx, { file: 'haproxy.cfg', force: true });
    expect(forced.errors).toEqual([]);
    expect(forced.text).toBe(r.text);
  });

  it('against the last version lbdesk saw, an edit of an imported section is a conflict; of a kept one is not', () => {
    const { workspace } = importCase(HAP);
    const keptEdit = text.replace('stats refresh 10s', 'stats refresh 30s');
    expect(renderOnto(workspace, workspace.appliances[0]!, keptEdit, ctx, { file: 'haproxy.cfg', base: text }).text).toBe(keptEdit);
    const ownedEdit = text.replace('server web3 198.51.100.13:8080 weight 20', 'server web3 198.51.100.13:8080 weight 25');
    const r = renderOnto(workspace, workspace.appliances[0]!, ownedEdit, ctx, { file: 'haproxy.cfg', base: text });
    expect(r.conflicts).toEqual(['haproxy.cfg:52: backend web was edited on the appliance since lbdesk\'s last pull or push']);
    expect(r.errors).toHaveLength(1);
  });

  it('removing a backend a kept frontend uses is an error before anything is sent', () => {
    const { workspace } = importCase(HAP);
    workspace.groups = workspace.groups.filter((g) => g.name !== 'api');
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: 'haproxy.cfg' });
    expect(r.text).toBe('');
    expect(r.errors.map((e) => e.message)).toContain('haproxy.cfg:43: frontend https-in (kept as written) uses backend api, which the workspace no longer has: removing or renaming it would break that section');
  });

  it('a removed service takes its frontend (and its comment) away; nothing else changes', () => {
    const { workspace } = importCase(HAP);
    workspace.services = workspace.services.filter((s) => s.name !== 'www');
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: 'haproxy.cfg' });
    expect(r.errors).toEqual([]);
    expect(r.text).toBe(text.replace('# Plain HTTP on the second address, straight to the web farm.\nfrontend www\n\tbind 192.0.2.11:80\n\tdefault_backend web\n\n', ''));
  });
});

describe('manage: sections (keepalived)', () => {
  const { text } = corpus(KA);

  it('VRRP, groups and fwmark stay byte for byte while real servers change', () => {
    const { workspace } = importCase(KA);
    const web = workspace.groups.find((g) => g.name === 'vs-192.0.2.10-80')!;
    web.members[0]!.weight = 11;
    web.members.push({ server: '198.51.100.11', port: 8081, weight: 4 });
    workspace.groups.find((g) => g.name === 'vs-192.0.2.10-3306')!.members.pop();
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: 'keepalived.conf' });
    expect(r.errors).toEqual([]);
    const before = text.split('\n');
    const vrrpEnd = before.findIndex((l) => l.startsWith('virtual_server 192.0.2.10 80'));
    expect(r.text.split('\n').slice(0, vrrpEnd)).toEqual(before.slice(0, vrrpEnd));
    expect(r.text).toContain('virtual_server fwmark 1 {');
    expect(r.text).toContain('        weight 11\n');
    expect(r.text).toMatch(/real_server 198\.51\.100\.11 8081 \{\n\s+weight 4\n\s+HTTP_GET \{/);
    expect(r.text).not.toContain('MISC_CHECK');
    expect(r.text.endsWith('include keepalived.d/*.conf\n')).toBe(true);
    if (TOOLS.keepalived) expect(keepalivedValid(r.text).code).toBe(0);
    expect(renderOnto(importCase(KA, r.text).workspace, workspace.appliances[0]!, r.text, ctx, { file: 'keepalived.conf' }).text).toBe(r.text);
  });
});
