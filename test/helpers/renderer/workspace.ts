// A small workspace on loopback with free ports, so a lab test never collides with another run.
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function labWorkspace(dir: string, opts: { backendPort: number; vipPort: number; host?: string }): Promise<string> {
  const host = opts.host ?? '127.0.0.1';
  const file = join(dir, 'lab.yaml');
  await writeFile(
    file,
    [
      '# lab test site',
      'lbdesk: 1',
      'name: lab-test',
      'healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 1, timeout: 300ms }',
      'servers:',
      `  - { name: b1, address: ${host} }`,
      'groups:',
      '  - name: g',
      `    members: [{ server: b1, port: ${opts.backendPort} }]`,
      '    healthCheck: { type: tcp }',
      'services:',
      `  - { name: vip, address: ${host}, port: ${opts.vipPort}, group: g }`,
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * One HTTP member `web/w1` on `member` (answering `w1` to every request), checked every 500 ms with
 * a 2 s timeout (a loaded machine never times it out), and with `vip` a service `v` in front: the
 * workspace `file` is written in `dir`. Close the server when done.
 */
export async function httpMemberSite(dir: string, opts: { file: string; name: string; member: string; vip?: string }): Promise<{ file: string; port: number; close(): Promise<void> }> {
  const port = await freePort(opts.member);
  const server = createHttpServer((_req, res) => res.end('w1\n'));
  await new Promise<void>((r) => server.listen(port, opts.member, () => r()));
  const vport = opts.vip ? await freePort(opts.vip) : 0;
  const file = join(dir, opts.file);
  await writeFile(file, [
    'lbdesk: 1', `name: ${opts.name}`,
    'healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }',
    `servers: [ { name: w1, address: ${opts.member} } ]`,
    `groups: [ { name: web, members: [ { server: w1, port: ${port} } ], healthCheck: { type: http, http: { path: / } } } ]`,
    ...(opts.vip ? [`services: [ { name: v, address: ${opts.vip}, port: ${vport}, group: web } ]`] : []),
    '',
  ].join('\n'));
  return { file, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}
