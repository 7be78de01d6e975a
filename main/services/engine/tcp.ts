// TCP forwarding: accept, choose a server, connect (retrying on another server before the
// client sees anything), relay until both sides end; idle and connect timeouts by sweep.
import { performance } from 'node:perf_hooks';
import type { PoolRef } from '../../../shared/api/engine';
import type { ListenerConfig } from './config';
import type { Acceptor, Conn, Pipe, Prelude, Relay } from './io/types';
import type { Client, Member, Pool } from './pool';
import type { Runtime } from './runtime';

export class TcpListener {
  acceptor: Acceptor | undefined;
  constructor(public cfg: ListenerConfig, public pool: Pool) {}

  get ref(): PoolRef {
    return this.cfg.service !== undefined ? { service: this.cfg.service } : { targetSet: this.cfg.targetSet! };
  }
}

type Phase = 'connecting' | 'relaying' | 'closed';

export class TcpSession implements Pipe, Client {
  bytesIn = 0;
  bytesOut = 0;
  chunksIn = 0;
  address: string | undefined;
  port: number | undefined;
  phase: Phase = 'connecting';
  member: Member | undefined;
  /** The pool the connection was counted in (a reload may point the listener elsewhere). */
  pool: Pool;
  server: Conn | undefined;
  relay: Relay | undefined;
  tried: Set<Member> | undefined;
  /** What the client sent to a server that reset before answering: replayed to the next. */
  prelude: Prelude | undefined;
  connectStart = 0;
  deadline = 0;
  lastBytes = 0;
  lastActive: number;

  constructor(readonly tcp: TcpPath, readonly listener: TcpListener, readonly client: Conn, now: number) {
    this.pool = listener.pool;
    this.lastActive = now;
  }

  done(error: string | undefined, side: 'client' | 'server' | undefined): void {
    this.tcp.finished(this, error, side);
  }

  retry(error: string, prelude: Prelude): boolean {
    return this.tcp.serverReset(this, error, prelude);
  }
}

export class TcpPath {
  readonly sessions = new Set<TcpSession>();

  constructor(private readonly rt: Runtime) {}

  accept(l: TcpListener, conn: Conn): void {
    const now = Date.now();
    const s = new TcpSession(this, l, conn, now);
    const pool = s.pool;
    pool.accepted += 1;
    if (pool.needsClient) {
      const p = this.rt.io.peer(conn);
      s.address = p?.address;
      s.port = p?.port;
    }
    this.sessions.add(s);
    this.dispatch(s, now);
  }

  /** Picks a server and connects; with none left the client is refused at once (RST). */
  private dispatch(s: TcpSession, now: number): Member | undefined {
    const l = s.listener;
    const m = s.pool.choose(s, now, s.tried, l.cfg.secondary);
    if (!m) {
      this.refuse(s, s.tried ? 'every server failed to connect' : 'no available or degraded server');
      return undefined;
    }
    s.pool.begin(m, s, now);
    s.member = m;
    s.phase = 'connecting';
    s.connectStart = performance.now();
    s.deadline = now + m.cfg.connectTimeoutMs;
    const address = l.cfg.secondary ? m.cfg.secondaryAddress! : m.cfg.address;
    const server = this.rt.io.connect(address, m.cfg.port ?? l.cfg.port, (err) => this.connected(s, server, err));
    s.server = server;
    return m;
  }

  private connected(s: TcpSession, server: Conn, err: string | undefined): void {
    if (s.server !== server || s.phase !== 'connecting') return; // abandoned after a timeout
    if (err !== undefined) {
      this.rt.io.close(server, false);
      this.connectFailed(s, `connect ${err}`);
      return;
    }
    const m = s.member!;
    m.recordConnect(performance.now() - s.connectStart);
    m.total += 1;
    s.phase = 'relaying';
    const prelude = s.prelude;
    s.prelude = undefined;
    s.relay = this.rt.io.relay(s.client, server, s, prelude);
  }

  /**
   * The server reset the connection before sending anything (a server dying with connections
   * still in its accept queue): for the client that is a failed connect, so redispatch it.
   */
  serverReset(s: TcpSession, error: string, prelude: Prelude): boolean {
    if (s.phase !== 'relaying' || !s.member) return false;
    s.phase = 'connecting';
    s.relay = undefined;
    s.server = undefined;
    s.prelude = prelude;
    this.connectFailed(s, `reset before answering: ${error}`);
    return true;
  }

  /** Redispatch: report the server, try another; the client sees nothing unless all fail. */
  private connectFailed(s: TcpSession, reason: string): void {
    const m = s.member!;
    const now = Date.now();
    const l = s.listener;
    const address = l.cfg.secondary ? m.cfg.secondaryAddress! : m.cfg.address;
    const port = m.cfg.port ?? l.cfg.port;
    m.errors += 1;
    s.pool.end(m, s, now);
    s.pool.forget(s, m);
    s.pool.redispatched += 1;
    this.rt.report(m.key, `${reason} (${address}:${port})`);
    (s.tried ??= new Set()).add(m);
    s.member = undefined;
    s.server = undefined;
    const next = this.dispatch(s, now);
    const client = s.address !== undefined ? `${s.address}:${s.port}` : undefined;
    this.rt.limited(`redispatch:${s.pool.cfg.id}:${m.key}`, (count) => ({
      type: 'redispatch',
      ...l.ref,
      ...(client ? { client } : {}),
      server: m.cfg.server,
      address,
      port,
      reason,
      ...(next ? { to: next.cfg.server } : {}),
      count,
    }));
  }

  private refuse(s: TcpSession, reason: string): void {
    s.phase = 'closed';
    this.sessions.delete(s);
    s.pool.refused += 1;
    if (s.address === undefined) {
      const p = this.rt.io.peer(s.client);
      s.address = p?.address;
      s.port = p?.port;
    }
    this.rt.io.close(s.client, true);
    const client = s.address !== undefined ? `${s.address}:${s.port}` : undefined;
    this.rt.limited(`refused:${s.pool.cfg.id}`, (count) => ({ type: 'refused', ...s.listener.ref, ...(client ? { client } : {}), reason, count }));
  }

  finished(s: TcpSession, error: string | undefined, _side: 'client' | 'server' | undefined): void {
    if (s.phase === 'closed') return;
    s.phase = 'closed';
    this.sessions.delete(s);
    const m = s.member;
    if (!m) return;
    if (error !== undefined) m.errors += 1;
    m.bytesIn += s.bytesIn;
    m.bytesOut += s.bytesOut;
    m.chunksIn += s.chunksIn;
    s.pool.end(m, s, Date.now());
  }

  /** Idle connections past their pool's timeout are closed; connects past their deadline fail over. */
  sweep(now: number): void {
    for (const s of this.sessions) {
      if (s.phase === 'relaying') {
        const bytes = s.bytesIn + s.bytesOut;
        if (bytes !== s.lastBytes) {
          s.lastBytes = bytes;
          s.lastActive = now;
        } else if (now - s.lastActive >= s.listener.pool.cfg.idleTimeoutMs) {
          s.relay!.stop(false);
        }
      } else if (s.phase === 'connecting' && s.server && now >= s.deadline) {
        this.rt.io.close(s.server, false);
        this.connectFailed(s, 'connect timed out');
      }
    }
  }

  /** Live bytes per member, for stats. */
  live(): Map<Member, { bytesIn: number; bytesOut: number; chunksIn: number }> {
    const out = new Map<Member, { bytesIn: number; bytesOut: number; chunksIn: number }>();
    for (const s of this.sessions) {
      if (!s.member) continue;
      const v = out.get(s.member);
      if (v) {
        v.bytesIn += s.bytesIn;
        v.bytesOut += s.bytesOut;
        v.chunksIn += s.chunksIn;
      } else out.set(s.member, { bytesIn: s.bytesIn, bytesOut: s.bytesOut, chunksIn: s.chunksIn });
    }
    return out;
  }

  /** Engine stop: every connection closes now. */
  stopAll(): void {
    for (const s of [...this.sessions]) {
      if (s.phase === 'relaying') s.relay!.stop(false);
      else {
        if (s.server) this.rt.io.close(s.server, false);
        this.rt.io.close(s.client, false);
        s.phase = 'closed';
        if (s.member) s.pool.end(s.member, s, Date.now());
        this.sessions.delete(s);
      }
    }
  }
}
