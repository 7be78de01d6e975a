// A drain on HAProxy moves persistent clients too: HAProxy's own drain still sends a client its
// stick table holds to the drained server, so lbdesk clears those entries (open sessions stay).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { allMembers, connectRuntime, resolveMembers, setAdmin, type Operation } from '../../../../main/services/operate';
import { freePort, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { testOptions } from '../../../helpers/sync/fixture';
import { HAPROXY, HaproxyBox, HeldBackends, hold, renderBox, type Held } from '../../../helpers/operate/box';

describe.skipIf(skipBecause(noSshd || (!existsSync(HAPROXY) && `${HAPROXY} is missing`), 'drain with persistence'))('drain with persistence (stick on src)', () => {
  let dir: string;
  let sshd: Sshd;
  let box: HaproxyBox;
  const backends = new HeldBackends();
  let workspace: Workspace;
  let vip: number;
  let op: Operation;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-stick-'));
    sshd = await startSshd({ host: '127.0.33.9' });
    const port = await freePort('127.0.33.2');
    vip = await freePort('127.0.33.1');
    await backends.start([['web1', '127.0.33.2'], ['web2', '127.0.33.3']], port);
    box = new HaproxyBox(dir);
    const yaml = [
      'lbdesk: 1', 'name: stick',
      'servers: [{ name: web1, address: 127.0.33.2 }, { name: web2, address: 127.0.33.3 }]',
      `groups: [{ name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${port} }, { server: web2, port: ${port} }] }]`,
      `services: [{ name: web-vip, address: 127.0.33.1, port: ${vip}, group: web, persistence: { type: client-ip, timeout: 30m } }]`,
      'appliances:',
      `  - { name: box, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: key, keyFile: ${sshd.userKey.path}, driver: haproxy, configPath: ${box.config}, statsSocket: ${join(dir, 'admin.sock')} }`,
      '',
    ].join('\n');
    workspace = workspaceSchema.parse(parse(yaml));
    await box.start(renderBox(yaml, 'box'));
    const appliance = workspace.appliances[0]!;
    op = await connectRuntime({ workspace, appliance, target: openAppliance(workspace, appliance, join(dir, 'site.yaml')).target }, testOptions(sshd, dir));
  }, 30_000);

  afterAll(async () => {
    op?.close();
    await box?.stop();
    await backends.stop();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the client stuck to the drained server is balanced elsewhere; its open session goes on', async () => {
    await expect.poll(async () => (await op.runtime.state(allMembers(workspace))).map((m) => m.health).join(), { timeout: 20_000 }).toBe('up,up');
    const open: Held = await hold('127.0.33.1', vip);
    const stuck = open.first;
    for (let i = 0; i < 3; i++) {
      const h = await hold('127.0.33.1', vip);
      expect(h.first, 'persistence').toBe(stuck);
      await h.close();
    }
    const appliance = workspace.appliances[0]!;
    const ctx = { workspace, appliance, target: openAppliance(workspace, appliance, join(dir, 'site.yaml')).target };
    expect(await setAdmin(ctx, op, resolveMembers(workspace, [stuck]), 'drain', join(dir, 'data'))).toEqual({ ok: true });
    const other = stuck === 'web1' ? 'web2' : 'web1';
    for (let i = 0; i < 3; i++) {
      const h = await hold('127.0.33.1', vip);
      expect(h.first, 'after the drain').toBe(other);
      await h.close();
    }
    expect(await open.say('still')).toBe(`${stuck}:still`);
    await open.close();
  }, 60_000);
});
