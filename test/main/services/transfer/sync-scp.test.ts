// The sync service's push, pull and diff with `transfer: scp`: the file goes by the SCP
// protocol (main/services/transfer) to an sshd that refuses SFTP, byte for byte.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffConfig, pullConfig, pushConfig, type SyncTarget } from '../../../../main/services/sync';
import { openAppliance } from '../../../../main/services/sync/appliance';
import { workspaceSchema } from '../../../../shared/model/schema';
import { noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { connectSsh } from '../../../../main/services/ssh';
import { sshFor } from '../../../helpers/command-boxes/connect';
import { skipBecause } from '../../../helpers/skip';

describe.skipIf(skipBecause(noSshd, 'sync over SCP'))('sync over SCP (sshd without SFTP)', () => {
  let sshd: Sshd;
  let dir: string;

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.9.40', sftp: false });
    dir = mkdtempSync(join(tmpdir(), 'lbdesk-sync-scp-'));
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('maps transfer: scp from the workspace to the sync target', () => {
    const workspace = workspaceSchema.parse({ lbdesk: 1, name: 't', appliances: [{ name: 'a', host: '192.0.2.1', transfer: 'scp' }] });
    expect(openAppliance(workspace, workspace.appliances[0]!, join(dir, 'workspace.yaml')).target.transfer).toBe('scp');
  });

  it('pushes, pulls and diffs byte for byte, keeping the live file mode', async () => {
    const live = join(dir, 'app.cfg');
    writeFileSync(live, 'ok old\n');
    chmodSync(live, 0o640);
    const ssh = sshFor({ host: sshd.host, port: sshd.port, keyFile: sshd.userKey.path, knownHostsLine: sshd.knownHostsLine, user: userInfo().username }, 'scp-box');
    const target: SyncTarget = {
      appliance: 'scp-box', endpoint: ssh.endpoint, configPath: live, reloadCommand: 'true', transfer: 'scp',
    };
    // One real connection, its exec requests recorded to see which transfer ran.
    const conn = await connectSsh(ssh.endpoint, ssh.options);
    const commands: string[] = [];
    const exec = conn.client.exec.bind(conn.client) as unknown as (...args: unknown[]) => boolean;
    (conn.client as unknown as { exec: (...args: unknown[]) => boolean }).exec = (...args: unknown[]) => {
      commands.push(String(args[0]));
      return exec(...args);
    };
    const opts = { ...ssh.options, dataDir: join(dir, 'data'), connection: conn };
    try {
      const data = Buffer.concat([Buffer.from('ok\n'), randomBytes(300_000), Buffer.from('\n\0\r\n')]);
      const r = await pushConfig(target, data, opts);
      expect(r.outcome, r.reason).toBe('applied');
      expect(readFileSync(live).equals(data)).toBe(true);
      expect(statSync(live).mode & 0o777).toBe(0o640);
      expect(commands.some((c) => c.startsWith('scp -t '))).toBe(true);
      expect((await pullConfig(target, opts)).data.equals(data)).toBe(true);
      expect(commands.some((c) => c.startsWith(`scp -f ${live}`))).toBe(true);
      expect((await diffConfig(target, data, opts)).changed).toBe(false);
      expect((await diffConfig(target, 'ok new\n', opts)).changed).toBe(true);
    } finally {
      conn.close();
    }
  });
});
