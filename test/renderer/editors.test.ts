import { describe, expect, it, vi } from 'vitest';
import { mountWith, settled, withDemo } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import ServerEditor from '../../renderer/src/editors/ServerEditor.vue';
import GroupEditor from '../../renderer/src/editors/GroupEditor.vue';
import ServiceEditor from '../../renderer/src/editors/ServiceEditor.vue';
import ApplianceEditor from '../../renderer/src/editors/ApplianceEditor.vue';
import ServersView from '../../renderer/src/views/ServersView.vue';
import ProblemsView from '../../renderer/src/views/ProblemsView.vue';
import OverviewView from '../../renderer/src/views/OverviewView.vue';
import type { MemberStatus } from '../../shared/api/types';
import { flushPromises } from '@vue/test-utils';
import { DRIVERS, driverFacts } from '../../shared/model/drivers';
import { getDriver } from '../../main/services/drivers';

describe('editors', () => {
  const t = withDemo();

  it('server: timers show the resolved value and where it comes from, and detection time', async () => {
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 1 });
    const row = (name: string) => w.find(`[data-field="servers.1.healthTimers.${name}"]`);
    expect(row('interval').text()).toContain('5 s set here');
    expect(row('retryInterval').text()).toContain('10 s from global');
    expect(w.find('[data-testid="detection"]').text()).toMatch(/Failure noticed by checks\s*5 s – 20 s/);
    await row('interval').find('input').setValue('');
    expect(row('interval').text()).toContain('30 s from global');
    await row('interval').find('input').setValue('fast');
    await settled();
    expect(row('interval').find('[data-testid="field-message"]').text()).toMatch(/not a duration/);
    w.unmount();
  });

  it('server: shows the check load it will receive', () => {
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 1 });
    const load = w.find('[data-testid="check-load"]');
    expect(load.text()).toContain('12/min from each checker while up');
    expect(load.text()).toContain('lab-haproxy');
    w.unmount();
  });

  it('server: a pasted address with spaces around it is the address (shown as stored once the field is left)', async () => {
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 0 });
    const input = w.find('[data-field="servers.0.address"] input');
    await input.setValue(' 127.0.0.29 ');
    await settled();
    expect(useWorkspace().get(['servers', 0, 'address'])).toBe('127.0.0.29');
    expect((input.element as HTMLInputElement).value).toBe(' 127.0.0.29 ');
    expect(useWorkspace().problemsAt('servers.0.address')).toEqual([]);
    // Left, it shows what is stored.
    await input.trigger('blur');
    expect((input.element as HTMLInputElement).value).toBe('127.0.0.29');
    // A description keeps its spaces.
    await w.find('[data-field="servers.0.description"] input').setValue('rack 2 ');
    expect(useWorkspace().get(['servers', 0, 'description'])).toBe('rack 2 ');
    w.unmount();
  });

  it('server: renaming follows its group members', async () => {
    const w = mountWith(ServerEditor, t.real.api, t.pinia, { index: 0 });
    expect(w.text()).toContain('Renaming also updates 1 reference.');
    await w.find('[data-field="servers.0.name"] input').setValue('web-a');
    expect(useWorkspace().get(['groups', 0, 'members', 0, 'server'])).toBe('web-a');
    w.unmount();
  });

  it('group: members with their share, the checks that will run and why', async () => {
    const w = mountWith(GroupEditor, t.real.api, t.pinia, { index: 1 });
    expect(w.find('[data-testid="resolved-checks"]').text()).toContain('dir1:1389 → LDAP (Layer 7) — protocol ldap');
    await w.find('[data-field="groups.1.healthCheck.type"] select').setValue('tcp');
    expect(w.find('[data-testid="resolved-checks"]').text()).toContain('TCP (Layer 4)');
    // The LDAP block stays visible while it is in the file, flagged as unused.
    expect(w.text()).toContain('not used by the checks that run');
    w.unmount();
    const web = mountWith(GroupEditor, t.real.api, t.pinia, { index: 0 });
    expect(web.text()).toMatch(/33\.3 %[\s\S]*66\.7 %/);
    await web.find('[data-testid="add-member"]').trigger('click');
    expect((useWorkspace().get(['groups', 0, 'members']) as unknown[]).length).toBe(3);
    web.unmount();
    // When every service of the group takes turns (round-robin), the shares are equal.
    useWorkspace().set(['services', 0, 'algorithm'], 'round-robin');
    const rr = mountWith(GroupEditor, t.real.api, t.pinia, { index: 0 });
    expect(rr.text()).toMatch(/33\.3 %[\s\S]*33\.3 %[\s\S]*33\.3 %/);
    expect(rr.text()).toContain('its services take turns (round-robin)');
    rr.unmount();
  });

  it('service: group choices come from the workspace', async () => {
    const w = mountWith(ServiceEditor, t.real.api, t.pinia, { index: 0 });
    const options = w.findAll('[data-field="services.0.group"] option').map((o) => o.text());
    expect(options).toEqual(expect.arrayContaining(['web', 'directory', 'resolvers']));
    await w.find('[data-field="services.0.group"] select').setValue('directory');
    expect(useWorkspace().get(['services', 0, 'group'])).toBe('directory');
    w.unmount();
  });

  it('appliance: a pingdirectory proxy is set by its server root and bind options, not a config path', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['appliances', 0, 'driver'], 'pingdirectory');
    const w = mountWith(ApplianceEditor, t.real.api, t.pinia, { index: 0 });
    await settled();
    expect(w.find('[data-field="appliances.0.configPath"]').exists()).toBe(false);
    await w.find('[data-field="appliances.0.dsconfig.serverRoot"] input').setValue('/opt/ping/PingDirectoryProxy');
    await w.find('[data-field="appliances.0.dsconfig.bindSecret"] input').setValue('proxy-admin');
    await settled();
    expect(workspaceStore.get(['appliances', 0, 'dsconfig'])).toEqual({ serverRoot: '/opt/ping/PingDirectoryProxy', bindSecret: 'proxy-admin' });
    w.unmount();
    workspaceStore.set(['appliances', 0, 'driver'], undefined);
    workspaceStore.set(['appliances', 0, 'dsconfig'], undefined);
  });

  it('appliance: a password goes to the keychain, never into the file', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['appliances', 0, 'auth'], 'password');
    const w = mountWith(ApplianceEditor, t.real.api, t.pinia, { index: 0 });
    await settled();
    const pw = w.find('input[type="password"]');
    await pw.setValue('s3cret-value');
    await w.findAll('button').find((b) => b.text() === 'Store')!.trigger('click');
    await settled();
    expect(await t.real.api.call('secrets.has', { name: 'appliance/lab-haproxy/password' })).toBe(true);
    expect(await workspaceStore.text()).not.toContain('s3cret-value');
    // A store without a keyring (browser mode on a machine without one) is named as memory only.
    await vi.waitFor(() => expect(w.text()).toContain('Not stored in a keychain: kept in memory only, until lbdesk stops'), { timeout: 5000 });
    w.unmount();
  });

  it('appliance: each driver\'s defaults and parts are the ones its driver in main has', async () => {
    const workspaceStore = useWorkspace();
    const w = mountWith(ApplianceEditor, t.real.api, t.pinia, { index: 0 });
    const placeholder = (field: string) => w.find(`[data-field="appliances.0.${field}"] input`).attributes('placeholder') ?? '';
    for (const name of DRIVERS) {
      workspaceStore.set(['appliances', 0, 'driver'], name);
      await settled();
      const d = getDriver(name);
      // A proxy changed by its own dsconfig has no config file or reload: its server root instead.
      expect(w.find('[data-field="appliances.0.dsconfig.serverRoot"]').exists(), name).toBe(driverFacts(name).dsconfig);
      if (driverFacts(name).dsconfig) continue;
      // keepalived once showed "keepalived -t -f {file}" here while its driver ran "-t -e -f".
      expect([placeholder('configPath'), placeholder('validateCommand'), placeholder('reloadCommand')], name)
        .toEqual([d.defaults.configPath, d.defaults.validateCommand, d.defaults.reloadCommand]);
      expect(w.find('[data-field="appliances.0.template"]').exists(), name).toBe(name === 'cli');
      expect(w.find('[data-testid="import-into"]').exists(), name).toBe(name === 'haproxy' || name === 'keepalived');
    }
    w.unmount();
  });
});

describe('Real servers table', () => {
  const t = withDemo();

  it('says "not checked" for a server the running lab does not check, never "enabled" as a state', async () => {
    const w = mountWith(ServersView, t.real.api, t.pinia);
    await flushPromises();
    expect(w.text()).toContain('enabled');
    t.real.services.events.send('lab.status', {
      running: true, listening: [], notes: [],
      members: [{ key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, check: 'http', layer: 7, state: 'unavailable', score: 1, reason: 'refused', since: 1, consecutiveFailures: 2, consecutivePasses: 0 }],
    });
    await flushPromises();
    const states = w.findAll('[role="row"]').map((r) => r.text());
    expect(states.find((t) => t.includes('web1'))).toContain('unavailable');
    expect(states.find((t) => t.includes('web2'))).toContain('not checked');
    expect(states.join(' ')).not.toMatch(/\benabled\b/);
    w.unmount();
  });
});

describe('Problems', () => {
  const t = withDemo();
  it('names places in words (server web2 address), the YAML path in the tooltip', async () => {
    const workspaceStore = useWorkspace();
    workspaceStore.set(['servers', 1, 'address'], '999.0.0.1');
    workspaceStore.set(['servers', 2, 'name'], 'web1');
    await settled();
    const w = mountWith(ProblemsView, t.real.api, t.pinia);
    await flushPromises();
    const text = w.text();
    expect(text).toContain('server web2 address');
    expect(text).not.toContain('servers[1]');
    // The clash names the other item the same way.
    expect(text).toMatch(/Duplicate server name "web1" \(first defined at server web1 \(no\. 1\)\)/);
    expect(w.find('button[title="servers[1].address"]').exists()).toBe(true);
    // A long message is cut to the row's width: whole in its tooltip.
    const msg = w.findAll('[data-testid="problem"]').map((b) => [b.text(), b.attributes('title')]);
    for (const [text, title] of msg) expect(title).toBe(text);
    w.unmount();
  });
});

describe('Overview shares', () => {
  const t = withDemo();
  const member = (server: string, state: MemberStatus['state']): MemberStatus => ({
    key: `g:web/${server}:8081`, group: 'web', server, address: '127.0.0.21', port: 8081, check: 'http', layer: 7,
    state, score: 5, reason: '', since: 1, consecutiveFailures: 0, consecutivePasses: 1,
  });
  it('with the lab running, a member out of the tier shows 0 % now and the others its share', async () => {
    const w = mountWith(OverviewView, t.real.api, t.pinia);
    await flushPromises();
    const share = (server: string) => w.find(`[data-member="g:web/${server}:8081"] [data-testid="share"]`);
    // Off: the weights' promise (100 : 200).
    expect(share('web1').text()).toBe('w 100 · 33 %');
    t.real.services.events.send('lab.status', { running: true, listening: [], members: [member('web1', 'degraded'), member('web2', 'available')], notes: [] });
    await flushPromises();
    expect(share('web1').text()).toBe('w 100 · 0 %');
    expect(share('web2').text()).toBe('w 200 · 100 %');
    expect(share('web1').attributes('title')).toMatch(/^0 % of new connections now .*weight 100: 33\.3 % of new connections when all are$/);
    // Only degraded ones left: they share by weight.
    t.real.services.events.send('lab.status', { running: true, listening: [], members: [member('web1', 'degraded'), member('web2', 'unavailable')], notes: [] });
    await flushPromises();
    expect(share('web1').text()).toBe('w 100 · 100 %');
    expect(share('web2').text()).toBe('w 200 · 0 %');
    w.unmount();
  });
});
