// A real nginx on loopback for tests: a temp prefix with its own config, pid and logs, in the
// foreground (master_process off), serving files written by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './servers';

export const nginxPath = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p));
/** Why nginx tests must skip here, or undefined when they can run. */
export const nginxMissing = nginxPath ? undefined : 'nginx is not installed (apt-get install nginx)';

export interface Nginx {
  host: string;
  port: number;
  /** The single nginx process (master_process off): SIGSTOP freezes it, SIGCONT resumes it. */
  pid: number;
  stop(): Promise<void>;
}

/** `files` maps a URL path to its content; `location` holds extra directives for `location /`. */
export async function startNginx(host: string, files: Record<string, string>, location: string[] = []): Promise<Nginx> {
  if (!nginxPath) throw new Error(nginxMissing);
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-nginx-'));
  const root = join(dir, 'www');
  mkdirSync(root);
  for (const [path, body] of Object.entries(files)) writeFileSync(join(root, path), body);
  const port = await freePort(host);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, [
    'daemon off;',
    'master_process off;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    `  access_log off;`,
    `  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};`,
    '  default_type text/plain;',
    `  server { listen ${host}:${port}; root ${root}; location / { ${location.join(' ')} } }`,
    '}',
    '',
  ].join('\n'));
  const child: ChildProcess = spawn(nginxPath, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr.trim()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port }, () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > until) throw new Error(`nginx did not listen on ${host}:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    host,
    port,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGCONT');
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
