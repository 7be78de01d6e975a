// The runtime over `become: sudo`: a non-root login reaches a root-only admin socket (0600
// root) through sudo, as push does; without become the box's own refusal is the one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { allMembers, connectRuntime, resolveMembers, setAdmin } from '../../../../main/services/operate';
import { listOperations } from '../../../../main/services/sync';
import { createUser, haveRoot, haveUseradd, type TestUser } from '../../../helpers/boxes';
import { freePort, haveSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { testOptions } from '../../../helpers/sync/fixture';
import { HAPROXY, HaproxyBox, HeldBackends, renderBox } from '../../../helpers/operate/box';

const SUDO = '/usr/bin/sudo';
const why = !haveRoot ? 'not root (useradd, /etc/sudoers.d)' : !haveUseradd ? 'no useradd' : !haveSshd ? 'no sshd' : !existsSync(SUDO) ? 'no sudo' : !existsSync(HAPROXY) ? `no ${HAPROXY}` : '';

describe.skipIf(skipBecause(why, 'runtime operations through become: sudo'))('runtime operations through become: sudo', () => {
  let dir: string;
  let sshd: Sshd;
  let user: TestUser;
  let rules: string;
  let box: HaproxyBox;
  const backends = new HeldBackends();
  let yaml: string;
  let workspace: Workspace;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-sudo-'));
    chmodSync(dir, 0o755);
    user = createUser('op', '/bin/sh', join(dir, 'home'));
    rules = join('/etc/sudoers.d', `lbdesk-test-${randomBytes(4).toString('hex')}`);
    writeFileSync(rules, `${user.name} ALL=(root) NOPASSWD: ALL\n`, { mode: 0o440 });
    execFileSync('/usr/sbin/visudo', ['-c', '-q', '-f', rules]);
    sshd = await startSshd({ host: '127.0.32.9' });
    chmodSync(sshd.dir, 0o755);
    chmodSync(join(sshd.dir, 'authorized_keys'), 0o644);
    const port = await freePort('127.0.32.2');
    const vip = await freePort('127.0.32.1');
    await backends.start([['web1', '127.0.32.2'], ['web2', '127.0.32.3']], port);
    box = new HaproxyBox(dir);
    const app = (name: string, become: boolean) => [
      `  - { name: ${name}, host: ${sshd.host}, port: ${sshd.port}, user: ${user.name}, auth: key, keyFile: ${sshd.userKey.path}, driver: haproxy,`,
      `      configPath: ${box.config}, statsSocket: ${join(dir, 'admin.sock')}${become ? ', become: sudo' : ''} }`,
    ];
    yaml = [
      'lbdesk: 1', 'name: sudo-operate',
      'servers: [{ name: web1, address: 127.0.32.2 }, { name: web2, address: 127.0.32.3 }]',
      `groups: [{ name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${port} }, { server: web2, port: ${port} }] }]`,
      `services: [{ name: web-vip, address: 127.0.32.1, port: ${vip}, group: web }]`,
      'appliances:', ...app('box', true), ...app('plain', false), '',
    ].join('\n');
    workspace = workspaceSchema.parse(parse(yaml));
    await box.start(renderBox(yaml, 'box'));
  }, 30_000);

  afterAll(async () => {
    await box?.stop();
    await backends.stop();
    await sshd?.stop();
    if (rules) rmSync(rules, { force: true });
    user?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ctx = (name: string) => {
    const appliance = workspace.appliances.find((a) => a.name === name)!;
    return { workspace, appliance, target: openAppliance(workspace, appliance, join(dir, 'site.yaml')).target };
  };

  it('as a sudo user: state, drain and ready on the root-only socket, recorded as operations', async () => {
    const c = ctx('box');
    const op = await connectRuntime(c, testOptions(sshd, dir));
    try {
      const members = allMembers(workspace);
      await expect.poll(async () => (await op.runtime.state(members)).map((m) => `${m.admin} ${m.health}`).join(', '), { timeout: 20_000 }).toBe('ready up, ready up');
      expect(await op.runtime.via()).toMatch(/^stats socket \S+admin\.sock via (socat|nc|python3)$/);
      const web1 = resolveMembers(workspace, ['web1']);
      expect(await setAdmin(c, op, web1, 'drain', join(dir, 'data'))).toEqual({ ok: true });
      expect((await op.runtime.state(members)).map((m) => m.admin)).toEqual(['drain', 'ready']);
      expect(await setAdmin(c, op, web1, 'ready', join(dir, 'data'))).toEqual({ ok: true });
      expect((await op.runtime.state(members)).map((m) => m.admin)).toEqual(['ready', 'ready']);
      const ops = await listOperations(join(dir, 'data'), 'box');
      expect(ops.map((o) => `${o.operation} ${o.members.join(',')} ${o.outcome} ${o.target}`)).toEqual([
        `drain web/web1:${members[0]!.port} done ${user.name}@127.0.32.9:${sshd.port}`,
        `ready web/web1:${members[0]!.port} done ${user.name}@127.0.32.9:${sshd.port}`,
      ]);
      expect(ops[1]!.outFor?.[members[0]!.label]).toBeGreaterThanOrEqual(0);
    } finally {
      op.close();
    }
  }, 60_000);

  it('the same login without become: the socket refuses it, and says so', async () => {
    const op = await connectRuntime(ctx('plain'), testOptions(sshd, dir));
    try {
      await expect(op.runtime.state(allMembers(workspace))).rejects.toThrow(/^cannot reach the stats socket \S+admin\.sock with (socat|nc|python3): \S+admin\.sock: Permission denied$/);
    } finally {
      op.close();
    }
  }, 60_000);
});
