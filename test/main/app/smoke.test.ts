// The real desktop app, through Playwright's Electron driver — only where Electron's binary is
// installed (it cannot be downloaded on offline machines; there this file says so and skips).
// On Linux without a display it starts Xvfb itself, or skips when Xvfb is missing too.
// Page functions run in the renderer; `globalThis` there is the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { ensureBuilt } from '../../helpers/built';
import { ROOT, tempDir } from '../../helpers/app-ipc';
import { findOnPath } from '../../../main/services/secrets/keyring';
import { skipBecause } from '../../helpers/skip';

const require = createRequire(import.meta.url);

function electronBinary(): string | undefined {
  try {
    const path = require('electron') as unknown;
    return typeof path === 'string' && existsSync(path) && statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

const binary = electronBinary();
const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const xvfb = needsDisplay ? findOnPath('Xvfb') : undefined;
const skipReason = !binary
  ? 'the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD / offline); the app is covered by the typecheck, the build, Electronegativity and the pure-part tests'
  : needsDisplay && !xvfb
    ? 'no display and no Xvfb (apt-get install xvfb)'
    : undefined;

describe.skipIf(skipBecause(skipReason, 'desktop app (real Electron)'))(`desktop app (real Electron)${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let display: ChildProcess | undefined;
  let app: ElectronApplication;
  let page: Page;
  let env: Record<string, string>;

  beforeAll(async () => {
    await ensureBuilt();
    tmp = tempDir('smoke');
    env = { ...(process.env as Record<string, string>), LBDESK_DATA_DIR: join(tmp.dir, 'data') };
    if (needsDisplay) {
      const n = 90 + (process.pid % 100);
      display = spawn(xvfb!, [`:${n}`, '-screen', '0', '1600x1000x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
      env.DISPLAY = `:${n}`;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // Chromium refuses to run as root with its OS sandbox; the renderer sandbox (no Node, isolated
    // preload) is what this test checks and stays on.
    const args = [ROOT, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
    app = await _electron.launch({ executablePath: binary, args, env, timeout: 60_000 });
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  }, 120_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    display?.kill('SIGTERM');
    tmp?.cleanup();
  });

  it('loads the UI from app://lbdesk in a hardened window', async () => {
    expect(page.url()).toMatch(/^app:\/\/lbdesk\//);
    expect(await page.title()).toMatch(/lbdesk/);
    const windows = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().map((w) => w.webContents.getURL()));
    expect(windows).toHaveLength(1);
  });

  it('gives the page no Node, only the contract bridge', async () => {
    const seen = await page.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      bridge: Object.keys((globalThis as unknown as { lbdesk: object }).lbdesk).sort(),
    }));
    expect(seen).toEqual({ require: 'undefined', process: 'undefined', bridge: ['methods', 'onEvent'] });
    const info = await page.evaluate(() => (globalThis as unknown as { lbdesk: { methods: Record<string, (a: unknown) => Promise<unknown>> } }).lbdesk.methods['app.info']!({}));
    expect(info).toMatchObject({ ok: true, result: { shell: 'electron' } });
  });

  it('blocks requests off app://, new windows and navigation away', async () => {
    const fetched = await page.evaluate(() => fetch('http://127.0.0.1:9/').then(() => 'loaded', () => 'blocked'));
    expect(fetched).toBe('blocked');
    const opened = await page.evaluate(() => (globalThis as unknown as { open(u: string): unknown }).open('file:///etc/passwd') === null);
    expect(opened).toBe(true);
    await page.evaluate(() => {
      (globalThis as unknown as { location: { href: string } }).location.href = 'file:///etc/passwd';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toMatch(/^app:\/\/lbdesk\//);
  });

  it('quits cleanly and remembers the window', async () => {
    await app.close();
    const { loadWindowState } = await import('../../../main/app/window-state');
    expect(await loadWindowState(join(tmp.dir, 'data'))).toBeDefined();
  }, 30_000);
});
