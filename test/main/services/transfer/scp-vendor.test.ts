// SCP to a vendor box that has SCP but no SFTP and no shell (the in-process vendor CLI):
// files are written in place (there is no rename), checked by reading them back.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../../../main/services/ssh';
import { openTransfer, probeShell, scpTransfer } from '../../../../main/services/transfer';
import { connectTo } from '../../../helpers/command-boxes/connect';
import { startFakeAppliance, type FakeAppliance } from '../../../helpers/command-boxes/fake-appliance';

describe('SCP to a vendor appliance without shell', () => {
  let box: FakeAppliance;
  let conn: SshConnection;

  beforeAll(async () => {
    box = await startFakeAppliance({ host: '127.0.9.30' });
    conn = await connectTo(box);
  });
  afterAll(async () => {
    conn?.close();
    await box?.stop();
  });

  it('finds no SFTP and no shell, writes in place and verifies by reading back', async () => {
    const t = await openTransfer(conn, 'auto');
    expect(t.kind).toBe('scp');
    expect(await probeShell(conn, 2000)).toBe(false);
    const data = Buffer.concat([Buffer.from('server real web1 192.0.2.21\n'), randomBytes(200_000)]);
    const w = await t.write('flash/lbdesk.cfg', data);
    expect(w).toMatchObject({ atomic: false, verified: 'read-back', bytes: data.length });
    expect(box.files.get('flash/lbdesk.cfg')!.equals(data)).toBe(true);
    expect((await t.read('flash/lbdesk.cfg')).equals(data)).toBe(true);
    // No exec other than scp itself was tried beyond the one shell probe.
    expect(box.execs.filter((c) => !c.startsWith('scp ')).length).toBeLessThanOrEqual(1);
  });

  it('says plainly what such a box cannot do', async () => {
    const t = scpTransfer(conn);
    await expect(t.write('startup.cfg', Buffer.from('x'), { atomic: 'always' })).rejects.toMatchObject({ kind: 'unsupported' });
    await expect(t.remove('startup.cfg')).rejects.toMatchObject({ kind: 'unsupported' });
    await expect(t.write('readonly.cfg', Buffer.from('x'))).rejects.toMatchObject({ kind: 'refused', message: expect.stringMatching(/readonly\.cfg: Permission denied/) });
    await expect(t.read('nothing.cfg')).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('reads the running config the box exposes as a file', async () => {
    const text = (await scpTransfer(conn).read('runConfig')).toString();
    expect(text).toMatch(/^!Current configuration/);
  });
});
