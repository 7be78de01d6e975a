// Drives the native data path through its paths in one process, for native.test.ts to run
// under AddressSanitizer + UBSan: round-robin with a dead server (redispatch), a server that
// resets before answering (replay), half-close, a pool JavaScript decides (persistence),
// idle timeout, UDP flows with port unreachable, a reload, and the stop. Exits 1 on any miss.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { memberKey } from '../../../shared/api/types';
import { ForwardingEngine } from '../../../main/services/engine';
import { StaticHealth, freePort, roundTrip, startBackend, until, whoAnswers, workspace } from '.';

const VIP = '127.0.5.200';

function check(ok: boolean, what: string): void {
  if (process.env.ASAN_RUN_TRACE) console.error('check', what, ok);
  if (!ok) throw new Error(`native-asan-run: ${what}`);
}

async function main(): Promise<void> {
  const a = await startBackend('a', '127.0.5.201');
  const b = await startBackend('b', '127.0.5.202');
  const dead = await freePort('127.0.5.203');
  const rst = net.createServer((s) => s.resetAndDestroy());
  await new Promise<void>((r) => rst.listen(0, '127.0.5.204', r));
  const rstPort = (rst.address() as net.AddressInfo).port;
  const udpA = dgram.createSocket('udp4');
  udpA.on('message', (m, r) => udpA.send(`a:${m}`, r.port, r.address));
  await new Promise<void>((r) => udpA.bind(0, '127.0.5.201', r));
  const udpDead = await freePort('127.0.5.203');

  const health = new StaticHealth();
  const members = [
    { server: 'a', port: a.port }, { server: 'b', port: b.port }, { server: 'd', port: dead }, { server: 'r', port: rstPort },
  ];
  const udpMembers = [{ server: 'd', port: udpDead }, { server: 'a', port: udpA.address().port }];
  for (const m of members) health.set(memberKey({ group: 'g', ...m }), 'available');
  for (const m of udpMembers) health.set(memberKey({ group: 'u', ...m }), 'available');
  const engine = new ForwardingEngine({ health, io: 'native', statsIntervalMs: 0 });
  if (process.env.ASAN_RUN_TRACE) engine.on('event', (e) => console.error(JSON.stringify(e)));
  const [p1, p2, p3] = [await freePort(VIP), await freePort(VIP), await freePort(VIP)];
  const config = (extra: boolean) => workspace({
    servers: [{ name: 'a', address: '127.0.5.201' }, { name: 'b', address: '127.0.5.202' }, { name: 'd', address: '127.0.5.203' }, { name: 'r', address: '127.0.5.204' }],
    groups: [{ name: 'g', members }, { name: 'u', members: udpMembers }],
    services: [
      { name: 'rr', address: VIP, port: p1, group: 'g', algorithm: 'round-robin', idleTimeout: '1s' },
      { name: 'sticky', address: VIP, port: p2, group: 'g', algorithm: 'least-connections', persistence: { type: 'client-ip', timeout: '10s' } },
      { name: 'dns', address: VIP, port: p1, protocol: 'udp', group: 'u', algorithm: 'round-robin' },
      { name: 'dns-sticky', address: VIP, port: p2, protocol: 'udp', group: 'u', persistence: { type: 'client-ip', timeout: '10s' } },
      ...(extra ? [{ name: 'more', address: VIP, port: p3, group: 'g' }] : []),
    ],
  });
  check((await engine.apply(config(false))).ok, 'first apply');
  check((await engine.refreshStats()).io === 'native', 'the native path runs');

  const names = await Promise.all(Array.from({ length: 40 }, () => whoAnswers(VIP, p1)));
  check(names.every((n) => n === 'a' || n === 'b'), `only a and b answer (${names.join(',')})`);
  // Within the replay limit (64 KiB), so a server that resets first does not reach the client.
  const echoed = await roundTrip(VIP, p1, Buffer.alloc(50_000, 3));
  check(echoed.length >= 50_000, 'half-close echo');
  const sticky = await Promise.all(Array.from({ length: 10 }, () => whoAnswers(VIP, p2)));
  check(new Set(sticky).size === 1, `persistence keeps one server (${sticky.join(',')})`);

  // Idle timeout: a held connection is closed by the engine.
  const held = net.connect(p1, VIP).resume();
  held.on('error', () => {});
  await new Promise((r) => held.once('close', r));

  // UDP: the dead server answers port unreachable; the flow moves to a.
  const c = dgram.createSocket('udp4');
  const got = new Promise<string>((r) => c.once('message', (m) => r(String(m))));
  await new Promise<void>((r) => c.bind(0, '127.0.5.205', r));
  const send = setInterval(() => c.send('q', p1, VIP), 100);
  const answer = await Promise.race([got, new Promise<string>((r) => setTimeout(() => r('none'), 3000))]);
  clearInterval(send);
  check(answer === 'a:q', `udp answered by a (${answer})`);
  // The same through a pool JavaScript decides (persistence): one call per new flow.
  const got2 = new Promise<string>((r) => c.once('message', (m) => r(String(m))));
  const send2 = setInterval(() => c.send('p', p2, VIP), 100);
  const answer2 = await Promise.race([got2, new Promise<string>((r) => setTimeout(() => r('none'), 3000))]);
  clearInterval(send2);
  check(answer2 === 'a:p', `udp through a JavaScript-decided pool answered by a (${answer2})`);
  c.close();

  // Reloads with connections open, then the stop with some still open.
  const open = Array.from({ length: 20 }, () => net.connect(p2, VIP).on('error', () => {}));
  for (let i = 0; i < 4; i++) check((await engine.apply(config(i % 2 === 0))).ok, `reload ${i}`);
  await until(async () => (await engine.refreshStats()).pools.find((p) => p.name === 'sticky')!.active === 20, 3000, 'connections held');
  await engine.stop();
  for (const s of open) s.destroy();
  await Promise.all([a.close(), b.close(), new Promise((r) => rst.close(r))]);
  udpA.close();
  console.log('native-asan-run: ok');
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
