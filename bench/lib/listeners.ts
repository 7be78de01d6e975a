// Loopback listeners for health-check benchmarks: one child process (so the checker keeps a core
// of its own) listening on many addresses and ports, accepting and closing at once.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The listener process: plain JS, run by node itself. It accepts and closes at once: the
 * kernel completes the handshake the check looks at before accept(), and the check has
 * usually reset the connection by the time the listener sees it. It uses libuv's TCP handles
 * where it can (a node:net Socket per accept would cost it more CPU than the checks it serves,
 * on the same two cores), else node:net.
 */
const LISTENER_JS = `
const net = require('node:net');
const { addrs, ports } = JSON.parse(process.argv[2]);
let pending = addrs.length * ports.length;
let accepted = 0;
let raw;
try {
  const tcp = process.binding('tcp_wrap');
  if (typeof tcp.TCP === 'function') raw = tcp;
} catch {}
const ready = () => { if (--pending === 0) process.send({ ready: true }); };
const failed = (where, code) => { process.send({ error: where + ' ' + code }); process.exit(1); };
for (const host of addrs) for (const port of ports) {
  if (raw) {
    const h = new raw.TCP(raw.constants.SERVER);
    const err = h.bind(host, port) || h.listen(4096);
    if (err) failed(host + ':' + port, err);
    h.onconnection = (status, client) => { if (client) { accepted++; client.close(); } };
    ready();
    continue;
  }
  const s = net.createServer({ pauseOnConnect: true }, (sock) => { accepted++; sock.on('error', () => {}); sock.destroy(); });
  s.on('error', (e) => failed(host + ':' + port, e.code));
  s.listen({ host, port, backlog: 4096 }, ready);
}
process.on('message', (m) => {
  if (m === 'stats') process.send({ cpu: process.cpuUsage(), accepted });
  if (m === 'stop') process.exit(0);
});
`;

export async function freePortOn(host: string): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, host, () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function ask<T>(child: ChildProcess, msg: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (key in m) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
    child.send(msg);
  });
}


export interface Listeners {
  child: ChildProcess;
  /** Ports with listeners on every address. */
  open: number[];
  /** A port free on the first address: nothing listens there. */
  closed: number;
  stop(): void;
}

/** Listens on each address at `openPorts` free ports (the same on all), plus one closed port. */
export async function startListeners(addrs: string[], openPorts: number): Promise<Listeners> {
  const ports: number[] = [];
  while (ports.length < openPorts + 1) {
    const p = await freePortOn(addrs[0]!);
    if (!ports.includes(p)) ports.push(p);
  }
  const closed = ports.pop()!;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-'));
  const script = join(dir, 'listeners.cjs');
  writeFileSync(script, LISTENER_JS);
  const child = fork(script, [JSON.stringify({ addrs, ports })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const ready = await new Promise<{ ready?: boolean; error?: string }>((r) => child.once('message', (m) => r(m as { ready?: boolean; error?: string })));
  rmSync(dir, { recursive: true, force: true });
  if (!ready.ready) throw new Error(`listeners: ${ready.error}`);
  return { child, open: ports, closed, stop: () => void child.send('stop') };
}
