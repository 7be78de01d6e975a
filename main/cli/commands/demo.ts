// `lbdesk demo`: sample backends on loopback and the app (browser mode) on the demo workspace.
import type { Command } from 'commander';
import { dispatch } from '../../services/api/dispatch';
import { startDemoBackends } from '../../services/demo/backends';
import { CliError } from '../errors';
import { join, resolve } from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { packageRoot } from '../root';
import { dataDir } from '../../services/paths';
import { browserOpener, launcherPage, openInBrowser } from '../open';
import { parsePort } from '../options';
import { startBrowserUi } from '../ui';

interface DemoOptions {
  uiPort?: number;
  open: boolean;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description('start sample backends on loopback and open the app on a demo workspace')
    .argument('[workspace]', 'open this workspace file instead (`npm start -- site.yaml` without a desktop); the sample backends still start')
    .option('--ui-port <port>', 'port for the browser UI on 127.0.0.1 (default: a free port)', parsePort)
    .option('--no-open', 'print the URL only; never start a browser')
    .addHelpText('after', '\nThe URL is opened in the desktop browser (xdg-open, open or start) when stdout is a\nterminal and CI is not set; otherwise it is printed, with the reason.')
    .action(async (workspace: string | undefined, opts: DemoOptions) => {
      const startPath = workspace === undefined ? undefined : resolve(workspace);
      if (startPath && !(await stat(startPath).then((s) => s.isFile(), () => false))) throw new CliError(`${workspace}: no such workspace file`, 2);
      // The UI first: when its port is taken, nothing else has been started.
      const ui = await startBrowserUi({ port: opts.uiPort, startPath });
      // Listen for the stop before printing anything: a Ctrl-C right after a line must end cleanly.
      const stopped = waitForStop();
      let backends: Awaited<ReturnType<typeof startDemoBackends>> | undefined;
      let cleanup: (() => Promise<void>) | undefined;
      try {
        // The page opens the demo workspace through this same call; the file exists before it is named.
        const demo = await dispatch(ui.services.handlers, 'workspace.demo', {});
        if (!demo.ok) throw new CliError(`cannot create the demo workspace: ${demo.error.message}`, 2);
        const { path: demoPath, text: demoText } = demo.result as { path: string; text: string };
        backends = await startDemoBackends();
        for (const f of backends.failed) process.stderr.write(`lbdesk: demo backend not started: ${f}\n`);
        process.stdout.write(`demo backends: ${backends.started.map((b) => `${b.name} ${b.kind ?? 'http'}://${b.address}:${b.port}`).join(', ') || 'none'}\n`);
        process.stdout.write('dir1 (LDAP, 127.0.0.31:1389) has no demo backend: it stays unavailable, to show a server that is down and why\n');
        // A copy edited in an earlier session is kept (it is the user's), but said: its addresses
        // may no longer be the sample backends'.
        const original = join(packageRoot(), 'assets', 'demo', 'lab-site-a.yaml');
        const edited = await readFile(original, 'utf8').then((t) => t !== demoText, () => false);
        if (startPath) process.stdout.write(`workspace: ${startPath}\n`);
        process.stdout.write(`demo workspace: ${demoPath}${edited ? ` (edited since it was first copied; delete it to start again from ${original})` : ''}\n`);
        cleanup = await showUrl(ui.url, opts.open);
        await stopped;
      } finally {
        await cleanup?.();
        await ui.close();
        await backends?.close();
      }
    });
}

/** Prints the URL, and opens it where a desktop browser can be; returns what to clean up at stop. */
async function showUrl(url: string, open: boolean): Promise<(() => Promise<void>) | undefined> {
  const ctx = { platform: process.platform, env: process.env, stdoutIsTty: process.stdout.isTTY === true, disabled: !open };
  let opener = browserOpener(url, ctx);
  if ('command' in opener) {
    // The opener gets a local page that forwards to the URL, not the URL and its token.
    const page = await launcherPage(url, join(dataDir(), 'run'));
    opener = browserOpener(page.fileUrl, ctx);
    if ('command' in opener && (await openInBrowser(opener))) {
      process.stdout.write(`lbdesk UI (browser mode), opened in your browser (${opener.name}); if nothing opened, use:\n${url}\n`);
      return page.remove;
    }
    await page.remove();
  }
  const why = 'reason' in opener ? opener.reason : `${opener.name} could not be started`;
  process.stdout.write(`lbdesk UI (browser mode), not opened (${why}); open:\n${url}\n`);
  return undefined;
}

export function waitForStop(): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
