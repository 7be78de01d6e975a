// A site to push to: a real sshd on loopback, a VIP that accepts (the push verifies it after the
// reload), and a workspace with one haproxy appliance whose validate and reload are scripts.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { dataDir } from './env';
import { freePort, haproxyApplianceLines, startSshd, type Sshd } from '../../helpers/sshd';

export interface PushSite { sshd: Sshd; workspaceFile: string; live: string; dir: string; stop(): Promise<void> }

/** `host`/`vip`: loopback addresses of this spec's own (specs run one after another, but keep apart). */
export async function startPushSite(name: string, host: string, vipHost: string): Promise<PushSite> {
  const sshd = await startSshd({ host });
  const vipPort = await freePort(vipHost);
  const vip: Server = createServer((c) => c.end());
  await new Promise<void>((r) => vip.listen(vipPort, vipHost, () => r()));
  const dir = mkdtempSync(join(dataDir(), `${name}-`));
  const live = join(dir, 'haproxy.cfg');
  writeFileSync(join(dir, 'validate.sh'), '#!/bin/sh\ngrep -q "^frontend\\|^listen" "$1" || { echo "no frontend in $1" >&2; exit 1; }\n');
  writeFileSync(join(dir, 'reload.sh'), `#!/bin/sh\necho reload >> '${join(dir, 'reloads')}'\n`);
  chmodSync(join(dir, 'validate.sh'), 0o755);
  chmodSync(join(dir, 'reload.sh'), 0o755);
  const workspaceFile = join(dir, `${name}.yaml`);
  writeFileSync(workspaceFile, [
    `# e2e ${name} site`,
    'lbdesk: 1',
    `name: ${name}`,
    'servers:',
    '  - { name: web1, address: 127.0.0.21 }',
    'groups:',
    '  - name: web',
    '    members: [{ server: web1, port: 8081 }]',
    '    healthCheck: { type: tcp }',
    'services:',
    `  - { name: web-vip, address: ${vipHost}, port: ${vipPort}, group: web }`,
    'appliances:',
    ...haproxyApplianceLines(sshd, 'e2e-sshd', live, { validate: `${join(dir, 'validate.sh')} {file}`, reload: join(dir, 'reload.sh') }),
    '',
  ].join('\n'));
  return {
    sshd, workspaceFile, live, dir,
    stop: async () => {
      await sshd.stop();
      await new Promise((r) => vip.close(r));
    },
  };
}
