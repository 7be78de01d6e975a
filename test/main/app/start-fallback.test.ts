// `npm start` where Electron's binary is absent: it says so, starts browser mode, prints a
// loopback URL with a token, that URL serves the app and its API, and a SIGTERM stops it all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/built';
import { ROOT, tempDir } from '../../helpers/app-ipc';

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('npm start without the Electron binary', () => {
  let tmp: ReturnType<typeof tempDir>;
  let child: ChildProcess;
  let stdout = '';
  let url: URL;

  beforeAll(async () => {
    await ensureBuilt();
    tmp = tempDir('start');
    // ELECTRON_OVERRIDE_DIST_PATH makes `require('electron')` point at a folder without a binary,
    // so this is the fallback even on a machine where Electron is installed.
    child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--ui-port', '0'], {
      cwd: ROOT,
      env: { ...process.env, LBDESK_DATA_DIR: join(tmp.dir, 'data'), ELECTRON_OVERRIDE_DIST_PATH: join(tmp.dir, 'no-electron'), LBDESK_REBUILD: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.resume();
    url = await new Promise<URL>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL within 60 s; output so far:\n${stdout}`)), 60_000);
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(stdout);
        if (m) {
          clearTimeout(timer);
          done(new URL(m[1]!));
        }
      });
      child.on('exit', (code) => fail(new Error(`npm start exited ${code}:\n${stdout}`)));
    });
  }, 120_000);

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    tmp?.cleanup();
  });

  it('says why, and that it starts browser mode', () => {
    expect(stdout).toContain('lbdesk: the Electron binary is not installed');
    expect(stdout).toContain('starting browser mode instead (opened in your browser when there is a desktop, else open the URL below)');
    expect(stdout).toContain(`demo workspace: ${join(tmp.dir, 'data', 'demo', 'lab-site-a.yaml')}`);
  });

  it('prints a loopback URL with a random token that serves the app and its API', async () => {
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[\w-]{32,}$/);
    expect(url.port).not.toBe('0');
    const page = await get(url.href);
    expect(page.status).toBe(200);
    const api = `${url.origin}/api/call/app.info`;
    expect((await get(api, {}, 'POST')).status).toBe(401);
    const info = await get(api, { authorization: `Bearer ${token}`, origin: url.origin, 'content-type': 'application/json' }, 'POST');
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({ ok: true, result: { shell: 'browser' } });
  });

  it('stops cleanly on SIGTERM, taking browser mode down with it', async () => {
    const code = await new Promise<number | null>((done) => {
      child.once('exit', (c) => done(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    await expect(get(url.href)).rejects.toThrow(/ECONNREFUSED/);
  }, 30_000);
});
