// Opening a URL in the user's browser from the CLI (`lbdesk demo`): only with a desktop opener
// (xdg-open, open, start), a terminal on stdout and not in CI. Otherwise the URL is printed and
// the reason said, so a script, a pipe or a headless box never gets a browser (or a text browser
// taking over the terminal).
import { spawn } from 'node:child_process';
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
