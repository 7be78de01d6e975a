// UDP forwarding: one flow per client address and port, each with its own socket connected to
// the chosen server so replies find their way back; flows close after the pool's idle
// timeout. An ICMP "port unreachable" from the server (ECONNREFUSED) is reported to the health
// checker and the flow moves to another server, resending its last datagram.
import * as dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { PoolRef } from '../../../shared/api/engine';
import type { ListenerConfig } from './config';
import type { Member, Pool } from './pool';
import type { Runtime } from './runtime';

const LISTENER_RCVBUF = 4 * 1024 * 1024;

/** Flows across all UDP listeners; beyond this new clients are refused (each flow holds a socket). */
export const MAX_FLOWS = 10_000;
/** Datagrams held per flow while its socket connects. */
const QUEUE = 64;

export class UdpFlow {
  bytesIn = 0;
  bytesOut = 0;
  chunksIn = 0;
  lastActive: number;
  socket: dgram.Socket | undefined;
  connected = false;
  queue: Buffer[] = [];
  last: Buffer | undefined;
  tried: Set<Member> | undefined;
  closed = false;
  member: Member | undefined;
  readonly pool: Pool;

  constructor(readonly listener: UdpListener, readonly address: string, readonly port: number, now: number) {
    this.pool = listener.pool;
    this.lastActive = now;
  }
}

export class UdpListener {
  socket: dgram.Socket | undefined;
  readonly flows = new Map<string, UdpFlow>();
  /** Clients refused lately (when, by key): their next datagrams are the same refused flow. */
  readonly refusedAt = new Map<string, number>();
  constructor(public cfg: ListenerConfig, public pool: Pool) {}

  get ref(): PoolRef {
    return this.cfg.service !== undefined ? { service: this.cfg.service } : { targetSet: this.cfg.targetSet! };
  }
}

export class UdpPath {
  readonly flows = new Set<UdpFlow>();

  constructor(private readonly rt: Runtime) {}

  listen(l: UdpListener): Promise<number> {
    return new Promise((resolve, reject) => {
      // One socket takes every client's datagrams while each new client's flow socket is being
      // opened: a burst of new clients overflows the default 208 KiB queue. Ask for 4 MiB (the
      // kernel caps it at net.core.rmem_max).
      const sock = dgram.createSocket({ type: isIPv6(l.cfg.address) ? 'udp6' : 'udp4', recvBufferSize: LISTENER_RCVBUF });
      sock.once('error', (err) => {
        sock.close();
        reject(new Error(`cannot listen on ${l.cfg.address}:${l.cfg.port}/udp: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      });
      sock.bind(l.cfg.port, l.cfg.address, () => {
        sock.removeAllListeners('error');
        sock.on('error', () => {});
        sock.on('message', (msg, rinfo) => this.datagram(l, msg, rinfo.address, rinfo.port));
        l.socket = sock;
        resolve(sock.address().port);
      });
    });
  }

  close(l: UdpListener): void {
    l.socket?.close();
    l.socket = undefined;
  }

  private datagram(l: UdpListener, msg: Buffer, address: string, port: number): void {
    const now = Date.now();
    const key = `${address}|${port}`;
    let f = l.flows.get(key);
    if (!f) {
      f = new UdpFlow(l, address, port, now);
      // A client refused lately sending again is the same flow: counted (accepted, refused) once.
      const again = l.refusedAt.has(key) && now - l.refusedAt.get(key)! < l.pool.cfg.idleTimeoutMs;
      if (!again) f.pool.accepted += 1;
      if (this.flows.size >= MAX_FLOWS) {
        this.refuse(f, `flow table full (${MAX_FLOWS} flows)`, again);
        return;
      }
      if (!this.open(f, now, again)) {
        l.refusedAt.set(key, now);
        // Bounded: past the flow limit, refusals older than the idle timeout are forgotten.
        if (l.refusedAt.size > MAX_FLOWS) for (const [k, at] of l.refusedAt) if (now - at >= l.pool.cfg.idleTimeoutMs) l.refusedAt.delete(k);
        if (l.refusedAt.size > MAX_FLOWS) l.refusedAt.clear();
        return;
      }
      l.refusedAt.delete(key);
      l.flows.set(key, f);
      this.flows.add(f);
    }
    f.lastActive = now;
    f.bytesIn += msg.length;
    f.chunksIn += 1;
    f.last = msg;
    this.send(f, msg);
  }

  private send(f: UdpFlow, msg: Buffer): void {
    if (f.connected) f.socket!.send(msg);
    else if (f.queue.length < QUEUE) f.queue.push(msg);
  }

  /** Chooses a server and opens the flow's socket to it; false when refused. */
  private open(f: UdpFlow, now: number, counted = false): boolean {
    const l = f.listener;
    const m = f.pool.choose(f, now, f.tried);
    if (!m) {
      this.refuse(f, f.tried ? 'every server refused the flow' : 'no available or degraded server', counted);
      return false;
    }
    f.pool.begin(m, f, now);
    m.total += 1;
    f.member = m;
    const port = m.cfg.port ?? l.cfg.port;
    const sock = dgram.createSocket({ type: isIPv6(m.cfg.address) ? 'udp6' : 'udp4' });
    f.socket = sock;
    f.connected = false;
    sock.on('message', (reply) => {
      if (f.closed || f.socket !== sock) return;
      f.lastActive = Date.now();
      f.bytesOut += reply.length;
      l.socket?.send(reply, f.port, f.address);
    });
    sock.on('error', (err) => {
      if (f.closed || f.socket !== sock) return;
      this.serverFailed(f, m, (err as NodeJS.ErrnoException).code ?? err.message);
    });
    sock.connect(port, m.cfg.address, () => {
      if (f.closed || f.socket !== sock) return;
      f.connected = true;
      for (const q of f.queue.splice(0)) sock.send(q);
    });
    return true;
  }

  private serverFailed(f: UdpFlow, m: Member, code: string): void {
    const now = Date.now();
    const port = m.cfg.port ?? f.listener.cfg.port;
    m.errors += 1;
    this.release(f, now);
    f.pool.forget(f, m);
    f.pool.redispatched += 1;
    this.rt.report(m.key, `udp ${code} (${m.cfg.address}:${port})`);
    (f.tried ??= new Set()).add(m);
    const reopened = this.open(f, now);
    if (reopened && f.last) this.send(f, f.last);
    if (!reopened) this.drop(f);
    this.rt.limited(`redispatch:${f.pool.cfg.id}:${m.key}`, (count) => ({
      type: 'redispatch',
      ...f.listener.ref,
      client: `${f.address}:${f.port}`,
      server: m.cfg.server,
      address: m.cfg.address,
      port,
      reason: `udp ${code}`,
      ...(reopened && f.member ? { to: f.member.cfg.server } : {}),
      count,
    }));
  }

  /** Closes the flow's server socket and returns its counts to the member. */
  private release(f: UdpFlow, now: number): void {
    const m = f.member;
    if (f.socket) {
      const s = f.socket;
      f.socket = undefined;
      s.close();
    }
    if (!m) return;
    f.member = undefined;
    m.bytesIn += f.bytesIn;
    m.bytesOut += f.bytesOut;
    m.chunksIn += f.chunksIn;
    f.bytesIn = 0;
    f.bytesOut = 0;
    f.chunksIn = 0;
    f.pool.end(m, f, now);
  }

  private drop(f: UdpFlow): void {
    f.closed = true;
    f.listener.flows.delete(`${f.address}|${f.port}`);
    this.flows.delete(f);
  }

  private refuse(f: UdpFlow, reason: string, counted = false): void {
    if (counted) return;
    f.pool.refused += 1;
    this.rt.limited(`refused:${f.pool.cfg.id}`, (count) => ({ type: 'refused', ...f.listener.ref, client: `${f.address}:${f.port}`, reason, count }));
  }

  sweep(now: number): void {
    for (const f of this.flows) {
      if (now - f.lastActive >= f.listener.pool.cfg.idleTimeoutMs) {
        this.release(f, now);
        this.drop(f);
      }
    }
  }

  live(into: Map<Member, { bytesIn: number; bytesOut: number; chunksIn: number }>): void {
    for (const f of this.flows) {
      if (!f.member) continue;
      const v = into.get(f.member);
      if (v) {
        v.bytesIn += f.bytesIn;
        v.bytesOut += f.bytesOut;
        v.chunksIn += f.chunksIn;
      } else into.set(f.member, { bytesIn: f.bytesIn, bytesOut: f.bytesOut, chunksIn: f.chunksIn });
    }
  }

  stopAll(): void {
    const now = Date.now();
    for (const f of [...this.flows]) {
      this.release(f, now);
      this.drop(f);
    }
  }
}
