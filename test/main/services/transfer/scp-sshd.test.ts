// SCP over exec against the real OpenSSH sshd with its SFTP subsystem disabled (so `auto`
// must fall back to SCP), and SFTP against one that has it: byte-identical round trips,
// modes kept, errors named, and a cut connection that never leaves a partial live file.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../../../main/services/ssh';
import { openTransfer, scpTransfer, sftpTransfer, TransferError } from '../../../../main/services/transfer';
import { haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { connectTo } from '../../../helpers/command-boxes/connect';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.log('skipping SCP tests against sshd: /usr/sbin/sshd or ssh-keygen is missing');

const endpointOf = (s: Sshd) => ({ host: s.host, port: s.port, keyFile: s.userKey.path, knownHostsLine: s.knownHostsLine, user: userInfo().username });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitQuiet(dir: string, ms = 300): Promise<void> {
  // The remote scp may still be writing what was in flight when the connection was cut.
  let last = '';
  for (let i = 0; i < 40; i++) {
    const now = readdirSync(dir).map((f) => `${f}:${statSync(join(dir, f)).size}`).join(',');
    if (now === last) return;
    last = now;
    await sleep(ms / 3);
  }
}

describe.skipIf(skipBecause(noSshd, 'SCP against sshd'))('SCP against sshd without SFTP', () => {
  let sshd: Sshd;
  let conn: SshConnection;
  let root: string;

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.9.1', sftp: false });
    conn = await connectTo(endpointOf(sshd));
    root = mkdtempSync(join(tmpdir(), 'lbdesk-scp-'));
  });
  afterAll(async () => {
    conn?.close();
    await sshd?.stop();
  });

  it('falls back to SCP when the SFTP subsystem is refused; forced SFTP says so', async () => {
    const t = await openTransfer(conn, 'auto');
    expect(t.kind).toBe('scp');
    await expect(openTransfer(conn, 'sftp')).rejects.toThrow(/no SFTP/);
    expect(await t.hasShell()).toBe(true);
  });

  it('round-trips empty, text and binary files byte for byte', async () => {
    const t = await openTransfer(conn, 'auto');
    const cases: [string, Buffer][] = [
      ['empty.cfg', Buffer.alloc(0)],
      ['one.cfg', Buffer.from('x')],
      ['text.cfg', Buffer.from('global\n  maxconn 100\n\ndefaults\r\n  mode tcp\n')],
      ['binary.bin', Buffer.concat([Buffer.from([0, 1, 2, 10, 13, 255, 0]), randomBytes(3 * 1024 * 1024 + 17)])],
      ["name with spaces and 'quotes'.cfg", Buffer.from('odd name\n')],
      ['-leading-dash.cfg', Buffer.from('dash\n')],
    ];
    for (const [name, data] of cases) {
      const path = join(root, name);
      const w = await t.write(path, data);
      expect(w).toMatchObject({ path, bytes: data.length, atomic: true, verified: 'sha256' });
      expect(readFileSync(path).equals(data), name).toBe(true);
      expect((await t.read(path)).equals(data), name).toBe(true);
    }
    // Every temp file was renamed into place.
    expect(readdirSync(root).filter((f) => f.includes('lbdesk-tmp'))).toEqual([]);
  });

  it('keeps the mode of the file it replaces, and gives new files 0644', async () => {
    const t = scpTransfer(conn);
    const live = join(root, 'haproxy.cfg');
    writeFileSync(live, 'old\n');
    chmodSync(live, 0o640);
    await t.write(live, Buffer.from('new\n'));
    expect(statSync(live).mode & 0o777).toBe(0o640);
    expect(readFileSync(live, 'utf8')).toBe('new\n');
    const fresh = join(root, 'fresh.cfg');
    await t.write(fresh, Buffer.from('fresh\n'));
    expect(statSync(fresh).mode & 0o777).toBe(0o644);
  });

  it('names what went wrong', async () => {
    const t = scpTransfer(conn);
    const missing = await t.read(join(root, 'nope.cfg')).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(TransferError);
    expect(missing).toMatchObject({ kind: 'not-found' });
    expect((missing as Error).message).toMatch(/nope\.cfg: No such file or directory/);
    mkdirSync(join(root, 'adir'), { recursive: true });
    await expect(t.read(join(root, 'adir'))).rejects.toMatchObject({ kind: 'refused' });
    await expect(t.write(join(root, 'no-such-dir', 'x.cfg'), Buffer.from('x'))).rejects.toBeInstanceOf(TransferError);
    writeFileSync(join(root, 'big.cfg'), randomBytes(4096));
    await expect(t.read(join(root, 'big.cfg'), { maxBytes: 1000 })).rejects.toMatchObject({ kind: 'too-large' });
    await t.remove(join(root, 'big.cfg'));
    expect(existsSync(join(root, 'big.cfg'))).toBe(false);
  });

  it('a connection cut mid-upload leaves the live file as it was', async () => {
    const live = join(root, 'live.cfg');
    const old = Buffer.from('the running config\n'.repeat(1000));
    writeFileSync(live, old);
    const cutConn = await connectTo(endpointOf(sshd));
    const big = randomBytes(24 * 1024 * 1024);
    let cut = false;
    const err = await scpTransfer(cutConn).write(live, big, {
      onProgress: (sent) => { if (!cut && sent > 2 * 1024 * 1024) { cut = true; cutConn.destroy(); } },
    }).catch((e: unknown) => e);
    expect(cut).toBe(true);
    expect(err instanceof TransferError ? `${err.kind}: ${err.message}` : String(err)).toMatch(/^(closed|timeout): /);
    await waitQuiet(root);
    expect(readFileSync(live).equals(old)).toBe(true);
    // At most a stray temp file stays (the sync service sweeps them under its lock); a new write succeeds.
    const again = await openTransfer(conn, 'scp');
    await again.write(live, Buffer.from('next\n'));
    expect(readFileSync(live, 'utf8')).toBe('next\n');
  });

  it('written in place (atomic: never), the same cut leaves a partial file: why the temp-and-mv matters', async () => {
    const live = join(root, 'inplace.cfg');
    const old = Buffer.from('the running config\n'.repeat(1000));
    writeFileSync(live, old);
    const cutConn = await connectTo(endpointOf(sshd));
    const big = randomBytes(24 * 1024 * 1024);
    let cut = false;
    await scpTransfer(cutConn).write(live, big, {
      atomic: 'never',
      onProgress: (sent) => { if (!cut && sent > 2 * 1024 * 1024) { cut = true; cutConn.destroy(); } },
    }).catch(() => undefined);
    await waitQuiet(root);
    const after = readFileSync(live);
    expect(after.equals(old)).toBe(false);
    expect(after.equals(big)).toBe(false);
  });

  it('writes in place when asked (atomic: never), still checked by sha256', async () => {
    const t = scpTransfer(conn);
    const w = await t.write(join(root, 'direct.cfg'), Buffer.from('direct\n'), { atomic: 'never' });
    expect(w).toMatchObject({ atomic: false, verified: 'sha256' });
  });
});

describe.skipIf(skipBecause(noSshd, 'SFTP and SCP against sshd'))('SFTP and SCP against sshd with SFTP', () => {
  let sshd: Sshd;
  let conn: SshConnection;
  let root: string;

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.9.21' });
    conn = await connectTo(endpointOf(sshd));
    root = mkdtempSync(join(tmpdir(), 'lbdesk-sftp-'));
  });
  afterAll(async () => {
    conn?.close();
    await sshd?.stop();
  });

  it('auto picks SFTP; both transfers round-trip and replace atomically', async () => {
    const auto = await openTransfer(conn, 'auto');
    expect(auto.kind).toBe('sftp');
    const data = randomBytes(512 * 1024);
    const live = join(root, 'keepalived.conf');
    writeFileSync(live, 'old\n');
    chmodSync(live, 0o600);
    expect(await auto.write(live, data)).toMatchObject({ atomic: true, verified: 'sha256' });
    expect(readFileSync(live).equals(data)).toBe(true);
    expect(statSync(live).mode & 0o777).toBe(0o600);
    expect((await sftpTransfer(conn).read(live)).equals(data)).toBe(true);
    const scp = await openTransfer(conn, 'scp');
    expect(scp.kind).toBe('scp');
    expect((await scp.read(live)).equals(data)).toBe(true);
    await scp.write(live, Buffer.from('by scp\n'));
    expect((await auto.read(live)).toString()).toBe('by scp\n');
    await expect(auto.read(join(root, 'missing'))).rejects.toMatchObject({ kind: 'not-found' });
    expect(readdirSync(root).filter((f) => f.includes('lbdesk-tmp'))).toEqual([]);
  });
});
