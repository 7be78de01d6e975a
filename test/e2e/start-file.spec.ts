// Issue 30 item 14: `npm start -- site.yaml` opens that file. npm runs the script in the package
// folder, so the name is the user's, relative to where they typed it (INIT_CWD); where the
// desktop app cannot start, browser mode opens it (here: Electron's binary hidden).
import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';

const ROOT = resolve(__dirname, '../..');
let child: ChildProcess | undefined;
test.afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGTERM');
});

test('npm start -- site.yaml in browser mode opens site.yaml from the folder it was typed in', async ({ page }) => {
  const dir = mkdtempSync(join(dataDir(), 'start-'));
  const cwd = join(dir, 'where-the-user-is');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'site.yaml'), ['lbdesk: 1', 'name: typed-here', 'servers:', '  - { name: web1, address: 192.0.2.10 }', ''].join('\n'));
  child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), 'site.yaml', '--ui-port', '0', '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, INIT_CWD: cwd, LBDESK_DATA_DIR: join(dir, 'data'), HOME: dir, LBDESK_KEYRING: 'off', ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'no-electron'), LBDESK_REBUILD: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL in 30 s:\n${out}`)), 30_000);
    child!.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    child!.once('exit', (code) => fail(new Error(`npm start exited ${code}:\n${out}`)));
  });
  expect(out).toContain(`workspace: ${join(cwd, 'site.yaml')}`);
  const app = new LbdeskPage(page);
  await page.goto(url);
  await expect(app.name).toHaveText('typed-here');
  await expect(page.getByTestId('nav-servers')).toContainText('1');
  app.expectNoErrors();
});
