// The Operate view on a real HAProxy (master-worker, admin stats socket) behind a loopback sshd:
// every member as the box sees it, refreshed on ONE SSH login, drain with its confirmation and
// the session count falling, the lab's verdict beside the box's with a flag, rolling maintenance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VueWrapper } from '@vue/test-utils';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, storeContext, until } from '../helpers/renderer/mount';
import { freePort, noSshd, startSshd, type Sshd } from '../helpers/sshd';
import { skipBecause } from '../helpers/skip';
import { adminBits, HAPROXY, HaproxyBox, HeldBackends, hold, renderBox, type Held } from '../helpers/operate/box';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import { useOperate } from '../../renderer/src/stores/operate';
import { memberKey } from '../../shared/api/types';
import OperateView from '../../renderer/src/views/OperateView.vue';

const VIP = '127.0.33.1';
const WEB1 = '127.0.33.2';
const WEB2 = '127.0.33.3';

describe.skipIf(skipBecause(noSshd || (!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`), 'the Operate view'))('the Operate view', { timeout: 120_000 }, () => {
  let sshd: Sshd;
  let dir: string;
  let box: HaproxyBox;
  let real: RealApi;
  let w: VueWrapper | undefined;
  const backends = new HeldBackends();
  const held: Held[] = [];
  let webPort: number;
  let file: string;
  const socket = () => join(dir, 'admin.sock');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-ui-'));
    sshd = await startSshd({ host: '127.0.33.9' });
    box = new HaproxyBox(dir);
    webPort = await freePort(WEB1);
    const vipPort = await freePort(VIP);
    await backends.start([['web1', WEB1], ['web2', WEB2]], webPort);
    const yaml = [
      'lbdesk: 1', 'name: operate-ui',
      'servers:', `  - { name: web1, address: ${WEB1} }`, `  - { name: web2, address: ${WEB2} }`,
      'groups:', `  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${webPort} }, { server: web2, port: ${webPort} }] }`,
      'services:', `  - { name: web-vip, address: ${VIP}, port: ${vipPort}, group: web }`,
      'appliances:',
      `  - { name: box, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: key, keyFile: ${sshd.userKey.path}, driver: haproxy, hostKey: "${sshd.hostKey.fingerprint}", configPath: ${box.config}, statsSocket: ${socket()} }`,
      '',
    ].join('\n');
    file = join(dir, 'site.yaml');
    writeFileSync(file, yaml);
    await box.start(renderBox(yaml, 'box'));
    for (let i = 0; i < 4; i++) held.push(await hold(VIP, vipPort));
    real = realApi();
  });
  afterAll(async () => {
    w?.unmount();
    for (const h of held) h.socket.destroy();
    await real?.close();
    await box?.stop();
    await backends.stop();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const row = (label: string) => w!.find(`tr[data-member="${label}"]`);
  const cell = (label: string, id: string) => row(label).find(`[data-testid="${id}"]`).text();
  const web1 = () => `web/web1:${webPort}`;
  const web2 = () => `web/web2:${webPort}`;
  const logins = () => (sshd.log().match(/Accepted publickey for root/g) ?? []).length;

  it('every member as the box sees it, refreshed over one SSH login; drain asks first, the box drains, the count falls', async () => {
    const pinia = storeContext(real.api);
    await useWorkspace().open(file);
    w = mountWith(OperateView, real.api, pinia);
    await until(() => row(web1()).exists() && cell(web1(), 'health') === 'up' && cell(web2(), 'health') === 'up', 20_000, 'both members up on the box');
    expect(cell(web1(), 'admin')).toBe('ready');
    expect(Number(cell(web1(), 'sessions')) + Number(cell(web2(), 'sessions'))).toBe(4);
    expect(row(web1()).text()).toMatch(/L4OK/);
    expect(w.find('[data-testid="operate-via"]').text()).toMatch(new RegExp(`root@127\\.0\\.33\\.9:\\d+, stats socket ${socket()}`));
    const first = useOperate().live!.askedAt;
    await until(() => useOperate().live!.askedAt > first + 1500, 10_000, 'two more looks');
    expect(logins()).toBe(1);

    // The lab's verdict beside the box's: the lab runs this workspace and has web2 unavailable.
    const lab = useLab();
    const m = { group: 'web', server: 'web2', port: webPort };
    lab.setStatus({ running: true, path: file, listening: [], notes: [], members: [{ ...m, key: memberKey(m), address: WEB2, check: 'tcp', layer: 4, state: 'unavailable', score: 1, reason: 'connection refused', since: Date.now(), consecutiveFailures: 3, consecutivePasses: 0 }] });
    await until(() => row(web2()).find('[data-testid="disagree"]').exists(), 5_000, 'the disagreement flagged');
    expect(row(web2()).find('[data-testid="disagree"]').attributes('title')).toBe('the box has it up, the lab unavailable (connection refused)');
    expect(row(web1()).find('[data-testid="disagree"]').exists()).toBe(false);
    lab.setStatus({ running: false, listening: [], notes: [], members: [] });

    const open = Number(cell(web1(), 'sessions'));
    expect(open).toBeGreaterThan(0);
    await row(web1()).find('[data-testid="drain"]').trigger('click');
    const what = document.querySelector('[data-testid="confirm-what"]')!.textContent!;
    expect(what).toContain(`The ${open} open connection${open === 1 ? '' : 's'} go on until their clients close them`);
    expect(await adminBits(socket(), 'web-vip', 'web1')).toBe(0);
    (document.querySelector('[data-testid="confirm-change"]') as HTMLButtonElement).click();
    await until(() => cell(web1(), 'admin') === 'drain', 10_000, 'web1 drained in the view');
    expect(await adminBits(socket(), 'web-vip', 'web1')).toBe(8);
    expect(cell(web1(), 'sessions')).toBe(`${open} ↓ of ${open}`);
    // Its clients leave: the count falls on screen.
    for (const h of held.filter((x) => x.first === 'web1')) await h.close();
    await until(() => cell(web1(), 'sessions') === `0 ↓ of ${open}`, 10_000, 'no session left on web1');
    expect(logins()).toBe(1);
  });

  it('rolling maintenance: one member at a time, handed over drained, back up before the next', async () => {
    await w!.find('[data-testid="bulk-drain"]').trigger('click');
    expect(document.querySelector('[data-testid="confirm-what"]')).toBeNull();
    for (const l of [web1(), web2()]) await row(l).find('input[type="checkbox"]').setValue(true);
    await w!.find('[data-testid="bulk-rolling"]').trigger('click');
    expect(document.querySelector('[data-testid="confirm-what"]')!.textContent).toContain('One member at a time');
    (document.querySelector('[data-testid="confirm-change"]') as HTMLButtonElement).click();
    const stepText = () => w!.find('[data-testid="rolling-step"]').text();
    await until(() => w!.find('[data-testid="rolling-continue"]').exists(), 15_000, 'web1 handed over');
    expect(w!.find('[data-testid="rolling"]').text()).toContain(`1 of 2:${web1()}`);
    expect(cell(web1(), 'admin')).toBe('drain');
    await w!.find('[data-testid="rolling-continue"]').trigger('click');
    // web2 still holds its sessions: the helper waits for them, web1 back up first.
    await until(() => stepText().startsWith('waiting for its open connections'), 20_000, 'web2 draining');
    expect(cell(web1(), 'admin')).toBe('ready');
    expect(await adminBits(socket(), 'web-vip', 'web1')).toBe(0);
    expect(await adminBits(socket(), 'web-vip', 'web2')).toBe(8);
    for (const h of held.filter((x) => x.first === 'web2')) await h.close();
    await until(() => w!.find('[data-testid="rolling-continue"]').exists(), 15_000, 'web2 handed over');
    await w!.find('[data-testid="rolling-continue"]').trigger('click');
    await until(() => stepText().startsWith('done'), 20_000, 'rolling done');
    expect(await adminBits(socket(), 'web-vip', 'web2')).toBe(0);
    expect(logins()).toBe(1);

    // Closed with the view: its kept connection goes.
    expect(sshd.log()).not.toMatch(/Received disconnect|Disconnected from/);
    w!.unmount();
    w = undefined;
    await until(() => /Received disconnect|Disconnected from/.test(sshd.log()), 10_000, 'the SSH connection closed');
  });

  it('a kept connection nobody asks on closes by itself after the idle time', async () => {
    const idle = realApi({ operateIdleMs: 1500 });
    try {
      const disconnects = () => (sshd.log().match(/Received disconnect|Disconnected from/g) ?? []).length;
      const before = disconnects();
      const s = await idle.api.call('appliance.state', { path: file, appliance: 'box' });
      expect(s.members.map((m) => `${m.label} ${m.admin}`)).toEqual([`${web1()} ready`, `${web2()} ready`]);
      expect(disconnects()).toBe(before);
      await until(() => disconnects() > before, 10_000, 'the idle connection closed');
      expect(await idle.api.call('appliance.operateEnd', { appliance: 'box' })).toEqual({ closed: false });
    } finally {
      await idle.close();
    }
  });
});
