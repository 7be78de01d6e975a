// Opening a URL in the user's browser from the CLI (`lbdesk demo`): only with a desktop opener
// (xdg-open, open, start), a terminal on stdout and not in CI. Otherwise the URL is printed and
// the reason said, so a script, a pipe or a headless box never gets a browser (or a text browser
// taking over the terminal).
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findOnPath } from '../services/secrets/keyring';

export interface OpenerContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (a person is watching). */
  stdoutIsTty: boolean;
  /** `--no-open`. */
  disabled?: boolean;
}

export type Opener = { command: string; args: string[]; name: string } | { reason: string };

export function inCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** The command that opens `url` in a desktop browser, or why there is none. */
export function browserOpener(url: string, c: OpenerContext): Opener {
  if (c.disabled) return { reason: '--no-open' };
  if (inCi(c.env)) return { reason: 'running in CI' };
  if (!c.stdoutIsTty) return { reason: 'output is not a terminal' };
  if (c.platform === 'win32') return { command: c.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', 'start', '""', `"${url}"`], name: 'start' };
  const name = c.platform === 'darwin' ? 'open' : 'xdg-open';
  // xdg-open without a display falls back to a text browser in this very terminal.
  if (c.platform !== 'darwin' && !c.env.DISPLAY && !c.env.WAYLAND_DISPLAY) return { reason: 'no desktop session (DISPLAY and WAYLAND_DISPLAY unset)' };
  const command = findOnPath(name, c.env);
  if (!command) return { reason: `${name} not found` };
  return { command, args: [url], name };
}

/** Starts the opener, detached; resolves false when it could not even be started. */
export function openInBrowser(o: { command: string; args: string[] }): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(o.command, o.args, { detached: true, stdio: 'ignore', windowsVerbatimArguments: true });
    child.once('error', () => done(false));
    child.once('spawn', () => {
      child.unref();
      done(true);
    });
  });
}

/**
 * A page that sends the browser on to `url`, in a 0600 file under `dir`: what the opener is
 * given instead of the URL, whose token would otherwise sit on the opener's and the browser's
 * command lines, readable by every local user in /proc. Removed by `remove()` (at stop).
 */
export async function launcherPage(url: string, dir: string): Promise<{ path: string; fileUrl: string; remove(): Promise<void> }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `open-ui-${process.pid}.html`);
  const target = JSON.stringify(url).replace(/</g, '\\u003c');
  const attr = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  await writeFile(path, `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${attr}"><title>lbdesk</title><script>location.replace(${target})</script>\n`, { mode: 0o600 });
  return { path, fileUrl: pathToFileURL(path).href, remove: () => rm(path, { force: true }) };
}

