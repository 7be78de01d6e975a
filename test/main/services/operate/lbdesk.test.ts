// `lbdesk state | drain | maint | ready` on the lbdesk daemon: a real `lbdesk serve --control` on
// loopback behind a real sshd, reached through its control socket; held client connections show
// that a drain keeps open sessions and sends new ones elsewhere, and that it lasts through SIGHUP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema } from '../../../../shared/model/schema';
import { renderForAppliance } from '../../../../main/services/drivers';
import { runCli, startCli } from '../../../helpers/cli';
import { freePort, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { waitFor } from '../../../helpers/sync/fixture';
import { HeldBackends, hold, type Held } from '../../../helpers/operate/box';

/** The lab (this machine's serve of the site file) listens on VIP; the box's daemon on BOX_VIP. */
const VIP = '127.0.36.1';
const BOX_VIP = '127.0.36.5';
const WEB1 = '127.0.36.2';
const WEB2 = '127.0.36.3';

interface JsonState { appliance: string; driver: string; members: { group: string; server: string; port?: number; admin?: string; health: string; sessions?: number; weight?: number; check?: string; lab?: string; disagree?: string }[] }

describe.skipIf(skipBecause(noSshd, 'lbdesk daemon runtime'))('lbdesk state / drain / maint / ready on the lbdesk daemon', { timeout: 180_000 }, () => {
  let sshd: Sshd;
  let dir: string;
  let file: string;
  let boxFile: string;
  let sock: string;
  let env: NodeJS.ProcessEnv;
  let webPort: number;
  let vipPort: number;
  let daemon: ChildProcess;
  let lab: ChildProcess | undefined;
  let events = '';
  const backends = new HeldBackends();
  const held: Held[] = [];

  const workspace = () => [
    'lbdesk: 1', 'name: daemon',
    // Checks often enough that a fault in the lab is seen within seconds.
    'healthTimers: { interval: 1s, retryInterval: 500ms, timeout: 500ms }',
    'servers:', `  - { name: web1, address: ${WEB1} }`, `  - { name: web2, address: ${WEB2} }`,
    'groups:',
    `  - { name: web, healthCheck: { type: tcp }, members: [{ server: web1, port: ${webPort} }, { server: web2, port: ${webPort} }] }`,
    'services:',
    `  - { name: web-vip, address: ${VIP}, port: ${vipPort}, group: web, algorithm: round-robin }`,
    'appliances:',
    '  - name: box', `    host: ${sshd.host}`, `    port: ${sshd.port}`, '    user: root', '    auth: key', `    keyFile: ${sshd.userKey.path}`,
    '    driver: lbdesk', `    configPath: ${boxFile}`, `    statsSocket: ${sock}`,
    '',
  ].join('\n');
  const ssh = () => ['--known-hosts', join(dir, 'known_hosts'), '--ssh-config', join(dir, 'ssh_config')];
  const cli = (args: string[]) => runCli(args, { env, timeoutMs: 90_000 });
  const state = async (extra: string[] = []) => {
    const r = await cli(['state', file, '--appliance', 'box', '--json', ...extra, ...ssh()]);
    expect(r.stderr, r.stdout).toBe('');
    return { code: r.code, json: JSON.parse(r.stdout) as JsonState };
  };
  const web = (s: JsonState, server: string) => s.members.find((m) => m.group === 'web' && m.server === server)!;
  const fresh = async (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const h = await hold(BOX_VIP, vipPort);
      out.push(h.first);
      await h.close();
    }
    return out;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-operate-daemon-'));
    sshd = await startSshd({ host: '127.0.36.9' });
    [webPort, vipPort] = await Promise.all([freePort(WEB1), freePort(VIP)]);
    await backends.start([['web1', WEB1], ['web2', WEB2]], webPort);
    writeFileSync(join(dir, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    file = join(dir, 'site.yaml');
    boxFile = join(dir, 'box.yaml');
    sock = join(dir, 'control.sock');
    writeFileSync(file, workspace());
    // What a push would put on the box: the served part, rendered by the lbdesk driver.
    const parsed = workspaceSchema.parse(parse(workspace()));
    const r = renderForAppliance(parsed, parsed.appliances[0]!, { workspacePath: file });
    expect(r.errors).toEqual([]);
    writeFileSync(boxFile, r.text.replaceAll(VIP, BOX_VIP));
    env = { LBDESK_DATA_DIR: join(dir, 'data') };
    daemon = startCli(['serve', boxFile, '--events', '--control', sock]);
    daemon.stdout!.on('data', (d) => (events += d));
    daemon.stderr!.on('data', (d) => (events += d));
    if (!(await waitFor(() => events.includes(`control channel on ${sock}`), 30_000))) throw new Error(`the daemon did not start: ${events}`);
  });
  const stopChild = async (c: ChildProcess | undefined) => {
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await gone;
  };
  afterAll(async () => {
    for (const h of held) h.socket.destroy();
    await stopChild(lab);
    await stopChild(daemon);
    await backends.stop();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('state: every member with admin state, health, sessions, weight and the checker\'s words; the socket is 0600', async () => {
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    for (let i = 0; i < 4; i++) held.push(await hold(BOX_VIP, vipPort));
    expect(held.map((h) => h.first).sort()).toEqual(['web1', 'web1', 'web2', 'web2']);
    let s!: JsonState;
    await expect.poll(async () => {
      const r = await state();
      s = r.json;
      return `${r.code} ${web(s, 'web1').health} ${web(s, 'web1').sessions}`;
    }, { timeout: 30_000, interval: 300 }).toBe('0 up 2');
    expect(s).toMatchObject({ appliance: 'box', driver: 'lbdesk' });
    expect(web(s, 'web2')).toMatchObject({ port: webPort, admin: 'ready', health: 'up', sessions: 2, weight: 100 });
    expect(web(s, 'web2').check).toMatch(/^available: /);
    const text = await cli(['state', file, '--appliance', 'box', ...ssh()]);
    expect(text.stderr).toMatch(new RegExp(`box: root@127\\.0\\.36\\.9:\\d+, control socket ${sock} via (socat|python3)`));
  });

  it('drain: open sessions go on, new ones go elsewhere, no reload; --wait ends with 4 and the count', async () => {
    const reloads = events.split('"type":"reload"').length;
    const r = await cli(['drain', file, '--appliance', 'box', `web/web1:${webPort}`, '--wait', '1s', ...ssh()]);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain(`box: drain: web/web1:${webPort}: done`);
    expect(r.stderr.trim()).toBe(`lbdesk: box: --wait 1s ended with sessions left: 2 on web/web1:${webPort}`);
    for (const h of held.filter((x) => x.first === 'web1')) expect(await h.say('still there')).toBe('web1:still there');
    expect(await fresh(6)).toEqual(Array(6).fill('web2'));
    const s = (await state()).json;
    expect(web(s, 'web1')).toMatchObject({ admin: 'drain', health: 'up', sessions: 2 });
    expect(events.split('"type":"reload"').length).toBe(reloads);
  });

  it('a reload of the daemon (SIGHUP) during the drain keeps it until ready', async () => {
    const before = events.split('"type":"reload","ok":true').length;
    daemon.kill('SIGHUP');
    await expect.poll(() => events.split('"type":"reload","ok":true').length, { timeout: 20_000 }).toBe(before + 1);
    expect(web((await state()).json, 'web1')).toMatchObject({ admin: 'drain', sessions: 2 });
    expect(await fresh(4)).toEqual(Array(4).fill('web2'));
    for (const h of held.filter((x) => x.first === 'web1')) expect(await h.say('after reload')).toBe('web1:after reload');
  });

  it('drain --wait follows the sessions down and returns when none are left', async () => {
    const child = startCli(['drain', file, '--appliance', 'box', `web/web1:${webPort}`, '--wait', '60s', ...ssh()], { env });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await expect.poll(() => out, { timeout: 30_000 }).toContain(`web/web1:${webPort}: 2 sessions`);
    const onWeb1 = held.filter((h) => h.first === 'web1');
    await onWeb1[0]!.close();
    await expect.poll(() => out, { timeout: 20_000 }).toContain(`web/web1:${webPort}: 1 session\n`);
    await onWeb1[1]!.close();
    expect(await exited, out).toBe(0);
    expect(out).toMatch(/box: no sessions left after \S+/);
  });

  it('maint takes the member out of health checks; ready puts it back into checks and new connections', async () => {
    const m = await cli(['maint', file, '--appliance', 'box', 'web1', ...ssh()]);
    expect(m.code, m.stderr).toBe(0);
    expect(web((await state()).json, 'web1')).toMatchObject({ admin: 'maint', health: 'no-check' });
    expect(await fresh(3)).toEqual(Array(3).fill('web2'));
    const r = await cli(['ready', file, '--appliance', 'box', 'web1', ...ssh()]);
    expect(r.code, r.stderr).toBe(0);
    await expect.poll(async () => {
      const w = web((await state()).json, 'web1');
      return `${w.admin} ${w.health}`;
    }, { timeout: 30_000, interval: 300 }).toBe('ready up');
    expect((await fresh(4)).sort()).toEqual(['web1', 'web1', 'web2', 'web2']);
  });

  it('state --lab: the verdict of the lab that runs the same workspace beside the box\'s, flagged where they disagree (the view\'s rule)', async () => {
    const labSock = join(dir, 'lab.sock');
    let said = '';
    lab = startCli(['serve', file, '--events', '--control', labSock]);
    lab.stdout!.on('data', (d) => (said += d));
    lab.stderr!.on('data', (d) => (said += d));
    if (!(await waitFor(() => said.includes(`control channel on ${labSock}`), 30_000))) throw new Error(`the lab did not start: ${said}`);
    const both = async () => {
      const s = (await state(['--lab', labSock])).json;
      return ['web1', 'web2'].map((n) => `${n} ${web(s, n).health} ${web(s, n).lab} ${web(s, n).disagree ?? '-'}`).join(', ');
    };
    await expect.poll(both, { timeout: 30_000, interval: 300 }).toBe('web1 up available -, web2 up available -');
    // The lab's path to web2 refuses (the real server is untouched): the box still has it up.
    lab.stdin!.write(`fault web/web2:${webPort} refuse\n`);
    await expect.poll(both, { timeout: 30_000, interval: 300 }).toMatch(/^web1 up available -, web2 up unavailable the box has it up, the lab unavailable \(/);
    const text = await cli(['state', file, '--appliance', 'box', '--lab', labSock, ...ssh()]);
    expect(text.stdout).toMatch(new RegExp(`web/web2:${webPort}  ready  up .*  lab unavailable  DISAGREE: the box has it up, the lab unavailable`));
    // Without --lab, no verdict; a lab that runs another file is refused in one line.
    expect('lab' in web((await state()).json, 'web2')).toBe(false);
    const other = await cli(['state', file, '--appliance', 'box', '--lab', sock, ...ssh()]);
    expect(other.code).toBe(2);
    expect(other.stderr.trim()).toBe(`lbdesk: --lab ${sock}: that lab runs ${boxFile}, not ${file}: no verdict to compare`);
  });
});
