// A small workspace on loopback with free ports, so a lab test never collides with another run.
import { writeFile } from 'node:fs/promises';
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
