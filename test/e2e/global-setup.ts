// Starts lbdesk in browser mode once for the run, on a private data folder.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export default async function globalSetup(): Promise<() => void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lbdesk-e2e-'));
  // Its own HOME too: known_hosts and ~/.ssh/config of the user running the tests stay untouched.
  const home = join(dataDir, 'home');
  mkdirSync(home, { recursive: true });
  const child = spawn(process.execPath, [join(ROOT, 'out/cli/lbdesk.cjs'), 'demo', '--ui-port', '0'], {
    env: { ...process.env, LBDESK_DATA_DIR: dataDir, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`lbdesk demo printed no URL:\n${out}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => fail(new Error(`lbdesk demo exited (${code}):\n${out}`)));
  });
  // First contact copies the demo workspace into the data folder, as the app's first start does.
  const token = new URL(url).searchParams.get('token') ?? '';
  await fetch(new URL('/api/call/app.info', url), { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
  process.env.LBDESK_URL = url;
  process.env.LBDESK_DATA_DIR = dataDir;
  writeFileSync(join(dataDir, 'e2e-url.txt'), url);
  return () => {
    child.kill('SIGTERM');
  };
}
