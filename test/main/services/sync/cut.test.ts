// The connection is cut at random points during many pushes (a loopback TCP proxy drops it):
// the live file must always be exactly the old or the new version, never partial.
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { pushConfig } from '../../../../main/services/sync';
import { makeAppliance, testOptions } from '../../../helpers/sync/fixture';
import { skipBecause } from '../../../helpers/skip';

if (!haveSshd) console.warn('skipping connection-cut tests: /usr/sbin/sshd is not installed');

/** A TCP proxy to the sshd whose live connections can be cut at once. */
async function startProxy(host: string, to: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(to.port, to.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => { for (const s of sockets) s.destroy(); },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe.skipIf(skipBecause(noSshd, 'connection cut during push'))('connection cut during push', () => {
  let sshd: Sshd;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.8.3' });
    proxy = await startProxy('127.0.8.3', sshd);
  });
  afterAll(async () => {
    await proxy?.close();
    await sshd?.stop();
  });

  it('always leaves the live file old or new, never partial', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lbdesk-cut-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const app = makeAppliance(sshd, 'cut', root);
    // Through the proxy; the host key is pinned, so the proxy's port needs no known_hosts entry.
    const target = { ...app.target, endpoint: { ...app.target.endpoint, port: proxy.port, hostKey: sshd.hostKey.fingerprint } };
    const opts = testOptions(sshd, app.dir, { readyTimeoutMs: 5000 });
    const version = (i: number) => Buffer.concat([Buffer.from(`ok version ${i}\n`), Buffer.alloc(256 * 1024, String.fromCharCode(97 + (i % 26)))]);
    writeFileSync(app.live, version(0));

    // How long an uncut push takes, to spread the cuts over all of its steps.
    const t0 = Date.now();
    expect((await pushConfig(target, version(1), opts)).outcome).toBe('applied');
    const full = Date.now() - t0;

    const seen: Record<string, number> = {};
    let live = version(1);
    const rounds = 24;
    for (let i = 2; i < 2 + rounds; i++) {
      const next = version(i);
      const at = Math.floor(Math.random() * full * 1.1);
      const timer = setTimeout(() => proxy.cut(), at);
      const r = await pushConfig(target, next, opts);
      clearTimeout(timer);
      if (process.env.CUT_DEBUG) console.log(i, at, r.outcome, r.durationMs, r.reason.slice(0, 100));
      seen[r.outcome] = (seen[r.outcome] ?? 0) + 1;
      expect(r.reason, `round ${i}`).not.toMatch(/changed on the appliance since/);
      if (r.outcome === 'failed') {
        // Cut while the rename was in flight: let the appliance finish it (or not) before looking.
        await vi.waitFor(() => expect(app.extras().filter((f) => f.includes('tmp'))).toEqual([]), { timeout: 3000, interval: 20 }).catch(() => undefined);
      }
      const now = readFileSync(app.live);
      const isOld = now.equals(live);
      const isNew = now.equals(next);
      expect(isOld || isNew, `round ${i} (cut at ${at} ms, ${r.outcome}: ${r.reason}): live file is ${now.length} bytes, sha ${sha(now).slice(0, 12)}`).toBe(true);
      if (r.outcome === 'applied') expect(isNew).toBe(true);
      if (r.outcome === 'refused') expect(isOld).toBe(true);
      if (isNew) live = next;
    }
    // Some pushes were cut and some got through: the test really exercised both sides.
    expect(Object.keys(seen).length, JSON.stringify(seen)).toBeGreaterThan(1);

    // Afterwards a clean push works (no lock left held) and sweeps the interrupted temps.
    const final = await pushConfig(target, version(99), opts);
    expect(final.outcome, final.reason).toBe('applied');
    expect(readFileSync(app.live).equals(version(99))).toBe(true);
    expect(app.extras().filter((f) => f.includes('tmp'))).toEqual([]);
  }, 120_000);
});
