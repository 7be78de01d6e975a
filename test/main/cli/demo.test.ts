// `lbdesk demo` as a user runs it: port checked before anything starts, a busy port is one line
// and exit 2 (nothing left running), the demo workspace exists before its path is printed, and
// the URL is opened only on a terminal with a desktop opener (a fake xdg-open here: nothing real
// is ever opened).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, lbdeskArgs, runCli, startCli } from '../../helpers/cli';
import { browserOpener } from '../../../main/cli/open';
import { findOnPath } from '../../../main/services/secrets/keyring';
import { skipBecause } from '../../helpers/skip';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-demo-'));
  mkdirSync(join(dir, 'home'));
  env = { LBDESK_DATA_DIR: join(dir, 'data'), HOME: join(dir, 'home') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A failed test must not leave a demo running: SIGTERM reaches lbdesk (through script).
const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
});

describe('lbdesk demo', () => {
  it('a bad --ui-port is a usage error: one line, exit 2, before anything starts', async () => {
    for (const port of ['abc', '99999', '-1', '8080x']) {
      const r = await runCli(['demo', '--ui-port', port], { env, timeoutMs: 20_000 });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lbdesk: option '--ui-port <port>' argument '${port}' is invalid: a port is a whole number from 0 to 65535 (0: any free port) (lbdesk demo --help for usage)\n`);
    }
    expect(existsSync(join(dir, 'data', 'demo'))).toBe(false);
  });

  it('a busy UI port: one clear line, exit 2, and the process ends', async () => {
    // The UI binds 127.0.0.1 only, so the blocker must too; port 0 lets the kernel pick a free one.
    const blocker: Server = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const { port } = blocker.address() as AddressInfo;
    try {
      const r = await runCli(['demo', '--ui-port', String(port)], { env, timeoutMs: 20_000 });
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: `lbdesk: cannot listen on 127.0.0.1:${port}: address in use\n` });
    } finally {
      blocker.close();
    }
  });

  it('the demo workspace exists when its path is printed; not a terminal: the URL is printed, and why', async () => {
    const child = startCli(['demo', '--ui-port', '0'], { env: { ...env, CI: '' } });
    running.push(child);
    let out = '';
    let existedWhenPrinted: boolean | undefined;
    let printedPath = '';
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL in time:\n${out}`)), 45_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d;
        const m = /^demo workspace: (.+)$/m.exec(out);
        if (m && existedWhenPrinted === undefined) {
          printedPath = m[1]!;
          existedWhenPrinted = existsSync(printedPath);
        }
        if (/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m.test(out)) {
          clearTimeout(timer);
          done();
        }
      });
      child.stderr!.on('data', (d: Buffer) => (out += d));
      child.on('exit', (code) => fail(new Error(`demo exited ${code}:\n${out}`)));
    });
    expect(printedPath).toBe(join(dir, 'data', 'demo', 'lab-site-a.yaml'));
    expect(existedWhenPrinted).toBe(true);
    expect(readFileSync(printedPath, 'utf8')).toBe(readFileSync(join(ROOT, 'assets', 'demo', 'lab-site-a.yaml'), 'utf8'));
    expect(out).toContain('lbdesk UI (browser mode), not opened (output is not a terminal); open:\n');
    // The demo's backends answer its checks: only dir1 (none on purpose, said so) and the
    // disabled dns1 are down.
    expect(out).toContain('demo backends: web1 http://127.0.0.21:8081, web2 http://127.0.0.22:8081, DA-MP 1 tcp://127.0.0.51:3868, DA-MP 2 tcp://127.0.0.52:3868\n');
    expect(out).toContain('dir1 (LDAP, 127.0.0.31:1389) has no demo backend');
    const check = await runCli(['check', printedPath, '--json'], { env, timeoutMs: 30_000 });
    const states = Object.fromEntries((JSON.parse(check.stdout) as { members: { server: string; state: string; reason: string }[] }).members.map((m) => [m.server, m.reason === 'disabled' ? 'disabled' : m.state]));
    expect(states).toEqual({ web1: 'available', web2: 'available', dir1: 'unavailable', dns1: 'disabled', '127.0.0.51': 'available', '127.0.0.52': 'available' });
    const code = await new Promise<number | null>((done) => {
      child.once('exit', (c) => done(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  }, 60_000);

  it('an edited demo copy is kept, and said to be edited (its addresses may not be the backends\' any more)', async () => {
    const copy = join(dir, 'data', 'demo', 'lab-site-a.yaml');
    const original = readFileSync(copy, 'utf8');
    writeFileSync(copy, original.replace('address: 127.0.0.21', 'address: 127.0.9.21'));
    try {
      const child = startCli(['demo', '--ui-port', '0'], { env: { ...env, CI: '' } });
      running.push(child);
      let out = '';
      await new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no URL in time:\n${out}`)), 45_000);
        child.stdout!.on('data', (d: Buffer) => {
          out += d;
          if (/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m.test(out)) {
            clearTimeout(timer);
            done();
          }
        });
      });
      expect(out).toContain(`demo workspace: ${copy} (edited since it was first copied; delete it to start again from ${join(ROOT, 'assets', 'demo', 'lab-site-a.yaml')})\n`);
      expect(readFileSync(copy, 'utf8')).toContain('address: 127.0.9.21');
      const code = await new Promise<number | null>((done) => {
        child.once('exit', (c) => done(c));
        child.kill('SIGTERM');
      });
      expect(code).toBe(0);
    } finally {
      writeFileSync(copy, original);
    }
  }, 60_000);

  it.skipIf(skipBecause(!findOnPath('script') && 'script is missing (apt-get install bsdutils)', 'demo on a terminal'))('on a terminal with a desktop opener: opens the URL with it (a fake xdg-open)', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const opened = join(dir, 'opened.txt');
    // Written whole, then moved into place: the test never reads a file the shell has only created.
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$*" > '${opened}.part' && mv '${opened}.part' '${opened}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}`, DISPLAY: ':97', TERM: 'dumb' };
    delete childEnv.CI;
    delete childEnv.WAYLAND_DISPLAY;
    // `exec`: without SHELL, script runs dash, which does not exec a lone command; the ^C below
    // would then kill the waiting dash (exit 130) whatever lbdesk does.
    const child = spawn('script', ['-q', '-e', '-c', `exec ${process.execPath} ${lbdeskArgs().join(' ')} demo --ui-port 0`, '/dev/null'], { cwd: ROOT, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    running.push(child);
    let transcript = '';
    const url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL in time:\n${transcript}`)), 45_000);
      child.stdout!.on('data', (d: Buffer) => {
        transcript += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(transcript);
        if (m) {
          clearTimeout(timer);
          done(m[1]!);
        }
      });
      child.on('exit', (code) => fail(new Error(`script exited ${code}:\n${transcript}`)));
    });
    expect(transcript).toContain('opened in your browser (xdg-open); if nothing opened, use:');
    for (let i = 0; i < 50 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 100));
    // The opener (and so the browser's command line, readable by every local user) gets a local
    // page that forwards to the URL, never the URL and its token.
    const arg = readFileSync(opened, 'utf8').trim();
    expect(arg).not.toContain(new URL(url).searchParams.get('token')!);
    const page = fileURLToPath(arg);
    expect(dirname(page)).toBe(join(dir, 'data', 'run'));
    expect(basename(page)).toMatch(/^open-ui-\d+\.html$/);
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(readFileSync(page, 'utf8')).toContain(`location.replace(${JSON.stringify(url)})`);
    // Ctrl-C on the terminal stops it cleanly.
    const code = await new Promise<number | null>((done) => {
      child.once('exit', (c) => done(c));
      child.stdin!.write('\u0003');
    });
    expect(code).toBe(0);
    // Stopped: the forwarding page (with its token) is gone.
    expect(existsSync(page)).toBe(false);
  }, 60_000);
});

describe('browserOpener', () => {
  const url = 'http://127.0.0.1:1234/?token=t';
  const base = { platform: 'linux' as const, env: { DISPLAY: ':0', PATH: '/nonexistent' }, stdoutIsTty: true };
  it('says why it does not open', () => {
    expect(browserOpener(url, { ...base, stdoutIsTty: false })).toEqual({ reason: 'output is not a terminal' });
    expect(browserOpener(url, { ...base, env: { ...base.env, CI: 'true' } })).toEqual({ reason: 'running in CI' });
    expect(browserOpener(url, { ...base, disabled: true })).toEqual({ reason: '--no-open' });
    expect(browserOpener(url, { ...base, env: { PATH: '/nonexistent' } })).toEqual({ reason: 'no desktop session (DISPLAY and WAYLAND_DISPLAY unset)' });
    expect(browserOpener(url, base)).toEqual({ reason: 'xdg-open not found' });
  });
  it('CI=false or 0 is not CI', () => {
    expect(browserOpener(url, { ...base, env: { ...base.env, CI: 'false' } })).toEqual({ reason: 'xdg-open not found' });
  });
});
