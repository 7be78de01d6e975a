// `lbdesk state | drain | maint | ready` end to end: the real CLI, a real sshd, a real HAProxy
// in master-worker mode with an admin stats socket; held client connections show what a drain
// does to open and new sessions; a push during a drain keeps it; bad input changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startCli } from '../../../helpers/cli';
import { freePort, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { HAPROXY, HaproxyBox, HeldBackends, hold, renderBox, type Held } from '../../../helpers/operate/box';

const VIP = '127.0.31.1';
const WEB1 = '127.0.31.2';
const WEB2 = '127.0.31.3';

interface JsonState { appliance: string; driver: string; askedAt: string; members: { group: string; server: string; port?: number; admin?: string; health: string; sessions?: number; weight?: number; check?: string; why?: string }[] }

describe.skipIf(skipBecause(noSshd || (!existsSync(HAPROXY) && `${HAPROXY} is missing (apt-get install haproxy)`), 'lbdesk state / drain / maint / ready'))('lbdesk state / drain / maint / ready', { timeout: 180_000 }, () => {
  let sshd: Sshd;
  let dir: string;
  let box: HaproxyBox;
  const backends = new HeldBackends();
  let webPort: number;
  let apiPort: number;
  let vipPort: number;
  let apiVipPort: number;
  let closedPort: number;
  let file: string;
  let env: NodeJS.ProcessEnv;
  const held: Held[] = [];

  function workspace(idle = '10m', web3 = false): string {
    const app = (name: string, extra: string[]) => [
      `  - name: ${name}`, `    host: ${sshd.host}`, `    port: ${extra.includes('gone') ? closedPort : sshd.port}`,
      '    user: root', '    auth: key', `    keyFile: ${sshd.userKey.path}`, '    driver: haproxy',
      ...extra.filter((l) => l !== 'gone').map((l) => `    ${l}`),
    ];
    return [
      'lbdesk: 1', 'name: operate',
      'servers:', `  - { name: web1, address: ${WEB1} }`, `  - { name: web2, address: ${WEB2} }`, '  - { name: web3, address: 127.0.31.4 }',
      'groups:',
      `  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${webPort} }, { server: web2, port: ${webPort} }${web3 ? `, { server: web3, port: ${webPort} }` : ''}] }`,
      `  - { name: api, healthCheck: { type: tcp }, members: [{ server: web1, port: ${apiPort} }] }`,
      'services:',
      `  - { name: web-vip, address: ${VIP}, port: ${vipPort}, group: web, idleTimeout: ${idle} }`,
      `  - { name: api-vip, address: ${VIP}, port: ${apiVipPort}, group: api }`,
      'appliances:',
      ...app('box', [`configPath: ${box.config}`, `statsSocket: ${join(dir, 'admin.sock')}`, `validateCommand: "${HAPROXY} -c -q -f {file}"`, `reloadCommand: "${box.reload}"`]),
      // The same box through the socket its config declares at level operator.
      ...app('oper', [`configPath: ${box.config}`, `statsSocket: ${join(dir, 'oper.sock')}`]),
      // A config that declares no stats socket at all.
      ...app('bare', [`configPath: ${join(dir, 'bare.cfg')}`]),
      ...app('gone', [`configPath: ${box.config}`, 'gone']),
      '',
    ].join('\n');
  }
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli(args, { env, timeoutMs: 90_000 });
  const state = async (appliance = 'box') => {
    const r = await cli(['state', file, '--appliance', appliance, '--json', ...ssh()]);
    expect(r.stderr, r.stdout).toBe('');
    return { code: r.code, json: JSON.parse(r.stdout) as JsonState };
  };
  const member = (s: JsonState, group: string, server: string) => s.members.find((m) => m.group === group && m.server === server)!;
  /** Admin states only: what a refused or bad command must leave as it was. */
  const admins = async () => (await state()).json.members.map((m) => `${m.group}/${m.server}=${m.admin}`).join(' ');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-'));
    sshd = await startSshd({ host: '127.0.31.9' });
    box = new HaproxyBox(dir);
    [webPort, apiPort, vipPort, apiVipPort, closedPort] = await Promise.all([freePort(WEB1), freePort(WEB1), freePort(VIP), freePort(VIP), freePort('127.0.31.9')]);
    await backends.start([['web1', WEB1], ['web2', WEB2]], webPort);
    await backends.start([['api1', WEB1]], apiPort);
    writeFileSync(join(dir, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    writeFileSync(file, workspace());
    writeFileSync(join(dir, 'bare.cfg'), renderBox(workspace(), 'bare'));
    await box.start(renderBox(workspace(), 'box', [`stats socket ${join(dir, 'oper.sock')} mode 600 level operator`]));
    env = { LBDESK_DATA_DIR: join(dir, 'data') };
  });
  afterAll(async () => {
    for (const h of held) h.socket.destroy();
    await box?.stop();
    await backends.stop();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('state: every member as the box sees it (admin, health, sessions, weight, last check); exit 0 when all are ready and up', async () => {
    for (let i = 0; i < 4; i++) held.push(await hold(VIP, vipPort));
    expect(held.map((h) => h.first).sort()).toEqual(['web1', 'web1', 'web2', 'web2']);
    let s!: JsonState;
    await expect.poll(async () => {
      const r = await state();
      s = r.json;
      return `${r.code} ${member(s, 'web', 'web1').sessions} ${member(s, 'web', 'web1').check ?? ''}`;
    }, { timeout: 20_000, interval: 200 }).toMatch(/^0 2 L4OK in \d+ms$/);
    expect(s).toMatchObject({ appliance: 'box', driver: 'haproxy' });
    expect(Date.parse(s.askedAt)).toBeGreaterThan(0);
    expect(s.members).toHaveLength(3);
    expect(member(s, 'web', 'web2')).toMatchObject({ port: webPort, admin: 'ready', health: 'up', sessions: 2, weight: 1 });
    expect(member(s, 'api', 'web1')).toMatchObject({ port: apiPort, admin: 'ready', health: 'up', sessions: 0 });
    expect('lab' in member(s, 'api', 'web1')).toBe(false);

    const text = await cli(['state', file, '--appliance', 'box', ...ssh()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`web/web1:${webPort}  ready  up  2 sessions  weight 1  L4OK in`);
    expect(text.stderr).toMatch(new RegExp(`box: root@127\\.0\\.31\\.9:\\d+, stats socket ${dir}/admin\\.sock via (socat|nc|python3), at `));
  });

  it('a socket at level operator reads, but a change is refused in the box\'s words (exit 1), nothing changed', async () => {
    const before = await admins();
    expect((await state('oper')).code).toBe(0);
    const r = await cli(['drain', file, '--appliance', 'oper', 'web2', ...ssh()]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe('lbdesk: oper: refused by the box: web-vip/web2: "Permission denied"');
    expect(await admins()).toBe(before);
    const h = await cli(['pull', file, '--appliance', 'oper', '--history', ...ssh()]);
    expect(h.stdout).toMatch(/operation:drain:refused {2}web\/web2:\d+ {2}by \S+ {2}root@127\.0\.31\.9:\d+ {2}\(web-vip\/web2: "Permission denied"\)/);
  });

  it('drain: open sessions go on, new ones go elsewhere; --wait ends with 4 and the count while sessions are left', async () => {
    const t0 = Date.now();
    const r = await cli(['drain', file, '--appliance', 'box', `web/web1:${webPort}`, '--wait', '1s', ...ssh()]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain(`box: drain: web/web1:${webPort}: done`);
    expect(r.stdout).toContain(`box: web/web1:${webPort}: 2 sessions`);
    expect(r.stderr.trim()).toBe(`lbdesk: box: --wait 1s ended with sessions left: 2 on web/web1:${webPort}`);
    expect(Date.now() - t0).toBeLessThan(60_000);

    // The held sessions on web1 still answer; every new connection goes to web2.
    for (const h of held.filter((x) => x.first === 'web1')) expect(await h.say('still there')).toBe('web1:still there');
    const fresh: Held[] = [];
    for (let i = 0; i < 6; i++) fresh.push(await hold(VIP, vipPort));
    expect(fresh.map((h) => h.first)).toEqual(Array(6).fill('web2'));
    for (const h of fresh) await h.close();

    const s = (await state()).json;
    expect(s.members.find((m) => m.group === 'web' && m.server === 'web1')).toMatchObject({ admin: 'drain', health: 'up', sessions: 2 });
    expect((await state()).code).toBe(1);
  });

  it('a push during the drain keeps it: named in the preview and the report, set again on the new worker', async () => {
    writeFileSync(file, workspace('5m'));
    const dry = await cli(['push', file, '--appliance', 'box', '--dry-run', ...ssh()]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(new RegExp(`lbdesk: box: would keep drain on web/web1:${webPort} \\(since \\S+, by \\S+@\\S+\\)`));

    const pushed = await cli(['push', file, '--appliance', 'box', ...ssh()]);
    expect(pushed.code, pushed.stdout + pushed.stderr + box.log).toBe(0);
    expect(pushed.stdout).toMatch(/box: applied: /);
    expect(pushed.stdout).toMatch(new RegExp(`box: note: kept drain on web/web1:${webPort} \\(since .*\\): set again after the reload`));
    expect(readFileSync(box.config, 'utf8')).toContain('timeout client 5m');
    expect(readFileSync(box.config, 'utf8')).not.toContain('drain');

    const s = (await state()).json;
    expect(member(s, 'web', 'web1')).toMatchObject({ admin: 'drain' });
    // The change report names who drained it, since when.
    const report = await cli(['report', file, '--appliance', 'box', '--offline', '--print', 'md']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`Drained.*web/web1:${webPort}.* since \\S+Z \\(\\d+ (s|min)\\) by \\S+@\\S+; pushes keep it until lbdesk ready`));
    const fresh: Held[] = [];
    for (let i = 0; i < 4; i++) fresh.push(await hold(VIP, vipPort));
    expect(fresh.map((h) => h.first)).toEqual(Array(4).fill('web2'));
    for (const h of fresh) await h.close();
    // The sessions held before the reload are still served (by the old worker).
    for (const h of held.filter((x) => x.first === 'web1')) expect(await h.say('after push')).toBe('web1:after push');
  });

  it('a commit-confirmed push left unconfirmed: the box\'s own timer restores the file, and sets the drain again on the worker its reload starts', async () => {
    const before = readFileSync(box.config, 'utf8');
    const fired = join(dir, `.${box.config.split('/').pop()}.lbdesk-fired`);
    writeFileSync(file, workspace('7m'));
    const pushed = await cli(['push', file, '--appliance', 'box', '--confirm-within', '10s', ...ssh()]);
    expect(pushed.code, pushed.stdout + pushed.stderr + box.log).toBe(0);
    expect(pushed.stdout + pushed.stderr).toMatch(new RegExp(`unless confirmed, then sets drain on web/web1:${webPort} \\(since [^)]*\\) again`));
    expect(readFileSync(box.config, 'utf8')).toContain('timeout client 7m');
    expect(member((await state()).json, 'web', 'web1')).toMatchObject({ admin: 'drain' });
    // The timer writes its record after its reload and its keeper: then the new worker is the one to ask.
    await expect.poll(() => (existsSync(fired) ? readFileSync(fired, 'utf8') : ''), { timeout: 30_000, interval: 250 }).toMatch(/^keep=0$/m);
    expect(readFileSync(fired, 'utf8')).toMatch(/^rc=0$/m);
    expect(readFileSync(box.config, 'utf8')).toBe(before);
    const s = (await state()).json;
    expect(member(s, 'web', 'web1')).toMatchObject({ admin: 'drain' });
    expect(member(s, 'web', 'web2')).toMatchObject({ admin: 'ready' });
    // The next contact with the box says what the timer did, the kept state included.
    writeFileSync(file, workspace('5m'));
    const dry = await cli(['push', file, '--appliance', 'box', '--dry-run', ...ssh()]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).toMatch(/was not confirmed: the appliance restored the previous config at \S+ \(reload exit 0\); the kept runtime states were set again after it/);
  });

  it('drain --wait follows the sessions down and returns when none are left', async () => {
    // After the reload the new worker counts only its own sessions: hold two there first.
    await cli(['ready', file, '--appliance', 'box', `web/web1:${webPort}`, ...ssh()]);
    const mine: Held[] = [];
    for (let i = 0; i < 4; i++) mine.push(await hold(VIP, vipPort));
    const onWeb1 = mine.filter((h) => h.first === 'web1');
    expect(onWeb1.length).toBe(2);
    const child = startCli(['drain', file, '--appliance', 'box', `web/web1:${webPort}`, '--wait', '60s', ...ssh()], { env });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await expect.poll(() => out, { timeout: 30_000 }).toContain(`web/web1:${webPort}: 2 sessions`);
    await onWeb1[0]!.close();
    await expect.poll(() => out, { timeout: 20_000 }).toContain(`web/web1:${webPort}: 1 session\n`);
    const closedAt = Date.now();
    await onWeb1[1]!.close();
    expect(await exited, out).toBe(0);
    expect(Date.now() - closedAt).toBeLessThan(20_000);
    expect(out).toMatch(/box: no sessions left after \S+/);
    for (const h of mine.filter((x) => x.first === 'web2')) await h.close();
  });

  it('SERVER alone is each group it is in; maint, then ready; every change is an operation in the history', async () => {
    const m = await cli(['maint', file, '--appliance', 'box', 'web1', ...ssh()]);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout.trim()).toBe(`box: maint: web/web1:${webPort}, api/web1:${apiPort}: done`);
    let s = (await state()).json;
    expect(member(s, 'web', 'web1').admin).toBe('maint');
    expect(member(s, 'api', 'web1').admin).toBe('maint');

    const r = await cli(['ready', file, '--appliance', 'box', 'web1', ...ssh()]);
    expect(r.code, r.stderr).toBe(0);
    const after = await state();
    s = after.json;
    expect(s.members.map((x) => x.admin)).toEqual(['ready', 'ready', 'ready']);

    const h = await cli(['pull', file, '--appliance', 'box', '--history', ...ssh()]);
    expect(h.code).toBe(0);
    const ops = h.stdout.split('\n').filter((l) => l.includes('operation:'));
    expect(ops.map((l) => /operation:(\S+)/.exec(l)![1])).toEqual(['drain', 'kept', 'kept', 'ready', 'drain', 'maint', 'ready']);
    expect(ops[6]).toMatch(/out for web\/web1:\d+ \d+ (s|min), api\/web1:\d+ \d+ (s|min)$/);
    expect(h.stdout).toMatch(/push:applied/);
    // A later push keeps nothing: every member is ready again.
    const again = await cli(['push', file, '--appliance', 'box', '--dry-run', ...ssh()]);
    expect(again.stderr).not.toMatch(/keep/);
  });

  it('bad input: one line each, exit 2 (1 for a refusal), and nothing changed on the box', async () => {
    const before = await admins();
    const cases: [string[], number, RegExp][] = [
      [['drain', file, '--appliance', 'box', 'web/web9'], 2, /^lbdesk: unknown member "web\/web9": group web has web\/web1:\d+, web\/web2:\d+$/],
      [['drain', file, '--appliance', 'box', 'web2', 'nosuch'], 2, /^lbdesk: unknown member "nosuch": no server of that name/],
      [['drain', file, '--appliance', 'nobox', 'web2'], 2, /^lbdesk: unknown appliance "nobox" \(known: box, oper, bare, gone\)$/],
      [['state', file, '--appliance', 'bare'], 2, /^lbdesk: bare: \S+bare\.cfg declares no stats socket in global: add "stats socket \/run\/haproxy\/admin\.sock mode 600 level admin", or set statsSocket on appliance bare$/],
      [['drain', file, '--appliance', 'bare', 'web2'], 2, /declares no stats socket in global/],
      [['state', file, '--appliance', 'gone'], 2, /^lbdesk: gone: .*(refused|ECONNREFUSED)/i],
      [['drain', file, '--appliance', 'gone', 'web2', '--wait', 'soon'], 2, /^lbdesk: --wait "soon" is not a duration/],
    ];
    for (const [args, code, line] of cases) {
      const r = await cli([...args, ...ssh()]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trim(), args.join(' ')).toMatch(line);
    }
    expect(await admins()).toBe(before);
  });

  it('a member the workspace has and the box does not: unknown, and why; a change to it is refused before anything is sent', async () => {
    writeFileSync(file, workspace('5m', true));
    try {
      const r = await state();
      expect(r.code).toBe(1);
      expect(member(r.json, 'web', 'web3')).toEqual({ group: 'web', server: 'web3', port: webPort, health: 'unknown', why: `the box has no server 127.0.31.4:${webPort} in backend web-vip or web` });
      const before = await admins();
      const d = await cli(['drain', file, '--appliance', 'box', 'web2', 'web3', ...ssh()]);
      expect(d.code).toBe(2);
      expect(d.stderr).toBe(`lbdesk: box: web/web3:${webPort}: the box has no server 127.0.31.4:${webPort} in backend web-vip or web; nothing was changed\n`);
      expect(await admins()).toBe(before);
    } finally {
      writeFileSync(file, workspace('5m'));
    }
  });
});
