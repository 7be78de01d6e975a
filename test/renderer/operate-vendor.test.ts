// The Operate view on a vendor appliance (the ADX test box over loopback SSH): the same view and
// API as for HAProxy, its rows from `show server real`, and a drain from the view reaching the box.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VueWrapper } from '@vue/test-utils';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, storeContext, until } from '../helpers/renderer/mount';
import { startAdxBox, type AdxBox } from '../helpers/command-boxes/adx-box';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import OperateView from '../../renderer/src/views/OperateView.vue';

const CONFIG = [
  'server real web1 192.0.2.11', ' port http', '!',
  'server real web2 192.0.2.12', ' port http', '!',
  'server virtual vip1 192.0.2.100', ' port http', ' bind http web1 http web2 http', '!', '',
].join('\n');

describe('the Operate view on an ADX', { timeout: 90_000 }, () => {
  let box: AdxBox;
  let dir: string;
  let real: RealApi;
  let w: VueWrapper | undefined;

  beforeAll(async () => {
    box = await startAdxBox({ host: '127.0.33.21', config: CONFIG });
    box.sessions.set('web1:http', 2);
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-adx-ui-'));
    const key = Buffer.from(box.knownHostsLine.split(' ')[2]!, 'base64');
    const fingerprint = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
    writeFileSync(join(dir, 'site.yaml'), [
      'lbdesk: 1', 'name: operate-adx-ui',
      'servers:', '  - { name: web1, address: 192.0.2.11 }', '  - { name: web2, address: 192.0.2.12 }',
      'groups:', '  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: 80 }, { server: web2, port: 80 }] }',
      'services:', '  - { name: vip1, address: 192.0.2.100, port: 80, group: web }',
      'appliances:',
      `  - { name: adx1, host: ${box.host}, port: ${box.port}, user: admin, auth: key, keyFile: ${box.keyFile}, driver: adx, hostKey: "${fingerprint}" }`, '',
    ].join('\n'));
    real = realApi();
  });
  afterAll(async () => {
    w?.unmount();
    await real?.close();
    await box?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const row = (label: string) => w!.find(`tr[data-member="${label}"]`);
  const cell = (label: string, id: string) => row(label).find(`[data-testid="${id}"]`).text();

  it('shows each member as the ADX has it, and a drain from the view reaches the box, unsaved', async () => {
    const pinia = storeContext(real.api);
    await useWorkspace().open(join(dir, 'site.yaml'));
    w = mountWith(OperateView, real.api, pinia);
    await until(() => row('web/web1:80').exists() && cell('web/web1:80', 'health') === 'up', 20_000, 'web1 up on the box');
    expect(cell('web/web1:80', 'admin')).toBe('ready');
    expect(cell('web/web1:80', 'sessions')).toBe('2');
    expect(row('web/web1:80').text()).toMatch(/port http ACT \(active\)/);
    expect(w.find('[data-testid="operate-via"]').text()).toMatch(/adx CLI \(show server real\)/);

    await row('web/web1:80').find('[data-testid="drain"]').trigger('click');
    (document.querySelector('[data-testid="confirm-change"]') as HTMLButtonElement).click();
    await until(() => cell('web/web1:80', 'admin') === 'drain', 10_000, 'web1 drained in the view');
    expect(box.running()).toMatch(/server real web1 192\.0\.2\.11\n port http\n port http disable\n/);
    expect(box.saved()).toBe(CONFIG);
    expect(box.logins()).toBe(1);
  });
});
