// Starts the built CLI in browser mode (`lbdesk demo`) on a private data folder and HOME
// (known_hosts and ~/.ssh/config of whoever runs it stay untouched), and waits for its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export async function startDemoUi(dataDir: string, timeoutMs: number): Promise<{ url: string; child: ChildProcess }> {
  const home = join(dataDir, 'home');
  mkdirSync(home, { recursive: true });
  const child = spawn(process.execPath, [join(ROOT, 'out/cli/lbdesk.cjs'), 'demo', '--ui-port', '0'], {
    // LBDESK_KEYRING=off: the page's secrets must never reach the keyring of the session running the tests.
    env: { ...process.env, LBDESK_DATA_DIR: dataDir, HOME: home, LBDESK_KEYRING: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`lbdesk demo printed no URL:\n${out}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => fail(new Error(`lbdesk demo exited (${code}):\n${out}`)));
  });
  return { url, child };
}
