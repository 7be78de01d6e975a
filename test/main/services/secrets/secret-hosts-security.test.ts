// A stored shared secret is sent only to the hosts it was first used with: the page edits the
// workspace, and must not be able to add a host of its own to a RADIUS (or LDAP) group and have
// lbdesk send the secret there. Real UDP listeners on loopback record what reaches them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocket, type Socket } from 'node:dgram';
import { join } from 'node:path';
import { dispatch } from '../../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../../helpers/app-ipc';

const GOOD = ['127.0.9.231', '127.0.9.232'];
const EVIL = '127.0.9.233';
const PORT = 31812;
let tmp: ReturnType<typeof tempDir>;
const got = new Map<string, number>();
const sockets: Socket[] = [];

beforeAll(async () => {
  tmp = tempDir('secret-hosts');
  for (const address of [...GOOD, EVIL]) {
    const s = createSocket('udp4');
    s.on('message', () => got.set(address, (got.get(address) ?? 0) + 1));
    await new Promise<void>((done) => s.bind(PORT, address, done));
    sockets.push(s);
  }
});
afterAll(() => {
  for (const s of sockets) s.close();
  tmp.cleanup();
});

const site = (addresses: string[]) => [
  'lbdesk: 1', 'name: radius',
  'servers:', ...addresses.map((a, i) => `  - { name: r${i}, address: ${a} }`),
  'groups:', '  - name: aaa', '    healthTimers: { timeout: 300ms }', `    members: [${addresses.map((_, i) => `{ server: r${i}, port: ${PORT} }`).join(', ')}]`,
  '    healthCheck: { type: radius, radius: { secret: corp-radius } }', '',
].join('\n');

describe('stored secrets and the hosts they go to', () => {
  it('binds a secret to every member of its first check, then refuses a host the page adds', async () => {
    const services = appServices(join(tmp.dir, 'data'));
    const call = (text: string) => dispatch(services.handlers, 'check.run', { path: join(tmp.dir, 'site.yaml'), text });
    const stored = await dispatch(services.handlers, 'secrets.set', { name: 'named/corp-radius', value: 'Sh4red-Secret' });
    expect(stored, JSON.stringify(stored)).toMatchObject({ ok: true });
    const first = await call(site(GOOD));
    expect(first, JSON.stringify(first)).toMatchObject({ ok: true });
    for (const a of GOOD) expect(got.get(a) ?? 0, JSON.stringify(first)).toBeGreaterThan(0);
    const sent = new Map(got);

    const edited = await call(site([...GOOD, EVIL]));
    expect(edited.ok).toBe(true);
    const statuses = (edited as { result: { server: string; reason: string }[] }).result;
    expect(statuses.find((s) => s.server === 'r2')?.reason).toMatch(/secret named\/corp-radius is only sent to 127\.0\.9\.231:31812, 127\.0\.9\.232:31812, where it was first used, not to 127\.0\.9\.233:31812/);
    expect(got.get(EVIL) ?? 0).toBe(0);
    // The first hosts still get their checks.
    for (const a of GOOD) expect(got.get(a)!, a).toBeGreaterThan(sent.get(a)!);

    // Another port on a bound host is another place (any local user may listen on a high port).
    const otherPort = await call(site(GOOD).replace(`{ server: r0, port: ${PORT} }`, `{ server: r0, port: ${PORT + 1} }`));
    expect((otherPort as { result: { server: string; reason: string }[] }).result.find((s) => s.server === 'r0')?.reason).toMatch(/is only sent to .* not to 127\.0\.9\.231:31813/);
    // Storing the secret again (the user's consent) lets it go to the new host.
    await dispatch(services.handlers, 'secrets.set', { name: 'named/corp-radius', value: 'Sh4red-Secret' });
    await call(site([...GOOD, EVIL]));
    expect(got.get(EVIL) ?? 0).toBeGreaterThan(0);
  });
});
