// `lbdesk demo`: sample backends on loopback and the app (browser mode) on the demo workspace.
import type { Command } from 'commander';
import { join } from 'node:path';
import { startDemoBackends } from '../../services/demo/backends';
import { startBrowserUi } from '../ui';

export function register(program: Command): void {
  program
    .command('demo')
    .description('start sample backends on loopback and open the app on a demo workspace')
    .option('--ui-port <port>', 'port for the browser UI (default: a free port)', (v) => Number(v))
    .action(async (opts: { uiPort?: number }) => {
      const backends = await startDemoBackends();
      for (const f of backends.failed) process.stderr.write(`lbdesk: demo backend not started: ${f}\n`);
      const ui = await startBrowserUi({ port: opts.uiPort });
      process.stdout.write(`demo backends: ${backends.started.map((b) => `${b.name} http://${b.address}:${b.port}`).join(', ') || 'none'}\n`);
      process.stdout.write(`demo workspace: ${join(ui.dataDir, 'demo', 'lab-site-a.yaml')}\n`);
      process.stdout.write(`lbdesk UI (browser mode), open:\n${ui.url}\n`);
      await waitForStop();
      await ui.close();
      await backends.close();
    });
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
