// The data path, in its own worker thread so forwarding never stalls the UI or the health
// checker: listeners, connections, flows and heartbeats. The controller (engine.ts) sends
// configs and health states; this thread answers with results, events, stats and failed
// connects (which the controller reports to the health checker).
import * as dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import type { EngineStats, ListenerStats, PoolStats } from '../../../shared/api/engine';
import type { MemberState } from '../../../shared/api/types';
import { normaliseAddress, type EngineConfig, type ListenerConfig, type PoolConfig } from './config';
import { parseLoadDatagram } from './heartbeat';
import { createNetIo } from './io/net';
import type { Io } from './io/types';
import { loadAddon, NativePath } from './native';
import { createUvIo } from './io/uv';
import { Pool, type Member } from './pool';
import { EventLimiter, type EventBody, type Runtime } from './runtime';
import { TcpListener, TcpPath } from './tcp';
import { UdpListener, UdpPath } from './udp';
import type { StateTuple, ToController, ToWorker, WorkerApplyResult, WorkerOptions } from './messages';

type Listener = TcpListener | UdpListener;

interface Heartbeat {
  id: string;
  pool: Pool;
  socket: dgram.Socket;
  ttlMs: number;
}

const SWEEP_MS = 250;

export class DataPath {
  readonly io: Io;
  /** The C data path, when asked for and loaded; else undefined and the JavaScript one runs. */
  readonly native: NativePath | undefined;
  /** Why the native data path was asked for but does not run. */
  readonly fallback: string | undefined;
  private readonly pools = new Map<string, Pool>();
  private readonly listeners = new Map<string, Listener>();
  private readonly heartbeats = new Map<string, Heartbeat>();
  private readonly states = new Map<string, { state: MemberState; score: number }>();
  private readonly tcp: TcpPath;
  private readonly udp: UdpPath;
  private readonly limiter: EventLimiter;
  private readonly started = Date.now();
  private sweepTimer: NodeJS.Timeout | undefined;
  private lastSample = Date.now();

  constructor(private readonly send: (m: ToController) => void, opts: WorkerOptions) {
    const uv = opts.io === 'net' ? undefined : createUvIo();
    const io = uv ?? createNetIo();
    this.io = io;
    const emit = (e: EventBody) => this.send({ t: 'event', event: { ts: new Date().toISOString(), ...e } as never });
    this.limiter = new EventLimiter(emit);
    const rt: Runtime = {
      io,
      emit,
      report: (key, reason) => this.send({ t: 'failed', key, reason }),
      limited: (key, make) => this.limiter.push(key, make, Date.now()),
    };
    if (opts.io === 'native') {
      const loaded = loadAddon();
      if ('addon' in loaded) this.native = new NativePath(loaded.addon, rt, opts.threads ?? 1);
      else this.fallback = loaded.error;
    }
    if (!this.native && (opts.threads ?? 1) > 1) this.fallback = `${this.fallback ? `${this.fallback}; ` : ''}one data thread (${opts.threads} asked: only the native path has more)`;
    // Asked for uv (or native, which fell back to it) and got net: said as well.
    if (!this.native && opts.io !== 'net' && !uv) this.fallback = `${this.fallback ? `${this.fallback}; ` : ''}libuv handles are not reachable from JavaScript (process.binding)`;
    this.tcp = new TcpPath(rt);
    this.udp = new UdpPath(rt);
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_MS);
  }

  /** The data path that forwards: native (C), or the JavaScript one's socket layer. */
  get ioName(): 'native' | 'uv' | 'net' {
    return this.native ? 'native' : this.io.name;
  }

  private emit(e: EventBody): void {
    this.send({ t: 'event', event: { ts: new Date().toISOString(), ...e } as never });
  }

  setStates(list: StateTuple[]): void {
    for (const [key, state, score] of list) this.states.set(key, { state, score });
    for (const pool of this.pools.values()) this.withStates(pool);
    if (this.native) for (const pool of this.pools.values()) this.native.publish(pool);
  }

  private withStates(pool: Pool): Pool {
    for (const m of [...pool.members, ...pool.retired]) {
      const s = this.states.get(m.key);
      if (s && (s.state !== m.health || s.score !== m.score)) pool.setHealth(m, s.state, s.score);
    }
    return pool;
  }

  /**
   * Applies a config as one step: new listeners are bound first, and if any cannot be, those
   * are closed again and the running config stays as it was. Unchanged listeners keep their
   * sockets; removed ones stop accepting; established connections are never cut.
   */
  async apply(cfg: EngineConfig): Promise<WorkerApplyResult> {
    if (cfg.problems.length > 0) return { ok: false, reason: cfg.problems.join('; '), added: 0, removed: 0, kept: 0 };
    // New pools get their states before any listener can feed them; existing ones are updated at commit.
    const next = new Map<string, Pool>();
    for (const pc of cfg.pools) {
      const existing = this.pools.get(pc.id);
      next.set(pc.id, existing ?? this.withStates(new Pool(pc)));
    }
    const fresh: Listener[] = [];
    const freshHb: Heartbeat[] = [];
    try {
      for (const lc of cfg.listeners) {
        if (!this.listeners.has(lc.id)) fresh.push(await this.bind(lc, next.get(lc.pool)!));
      }
      for (const pc of cfg.pools) {
        if (!pc.heartbeat) continue;
        const id = heartbeatId(pc.heartbeat);
        if (!this.heartbeats.has(id) && !freshHb.some((h) => h.id === id)) {
          freshHb.push(await this.bindHeartbeat(id, next.get(pc.id)!, pc.heartbeat.address, pc.heartbeat.port, pc.heartbeat.ttlMs));
        }
      }
    } catch (err) {
      for (const l of fresh) this.unbind(l);
      for (const h of freshHb) h.socket.close();
      return { ok: false, reason: (err as Error).message, added: 0, removed: 0, kept: 0 };
    }

    // Commit: update kept pools, point listeners at them, drop what is gone.
    this.native?.sync(this.pools.values());
    for (const pc of cfg.pools) if (this.pools.get(pc.id) === next.get(pc.id)) next.get(pc.id)!.update(pc);
    this.pools.clear();
    for (const [id, p] of next) this.pools.set(id, this.withStates(p));
    const poolFor = (id: string) => next.get(id)!;

    const wanted = new Set(cfg.listeners.map((l) => l.id));
    let removed = 0;
    let kept = 0;
    for (const [id, l] of this.listeners) {
      if (wanted.has(id)) continue;
      this.unbind(l);
      this.listeners.delete(id);
      removed += 1;
      this.emit({ type: 'closed', address: l.cfg.address, port: l.cfg.port, protocol: l.cfg.protocol, ...l.ref });
    }
    for (const lc of cfg.listeners) {
      const l = this.listeners.get(lc.id);
      if (!l) continue;
      kept += 1;
      l.cfg = l instanceof UdpListener ? { ...lc, port: l.cfg.port } : lc;
      l.pool = poolFor(lc.pool);
      this.native?.point(l);
    }
    for (const l of fresh) {
      this.listeners.set(l.cfg.id, l);
      const port = l instanceof TcpListener ? l.acceptor!.port : l.cfg.port;
      this.emit({ type: 'listening', address: l.cfg.address, port, protocol: l.cfg.protocol, ...l.ref });
    }

    const wantedHb = new Map<string, { pool: Pool; ttlMs: number }>();
    for (const pc of cfg.pools) if (pc.heartbeat) wantedHb.set(heartbeatId(pc.heartbeat), { pool: poolFor(pc.id), ttlMs: pc.heartbeat.ttlMs });
    for (const [id, h] of this.heartbeats) {
      const w = wantedHb.get(id);
      if (!w) {
        h.socket.close();
        this.heartbeats.delete(id);
      } else {
        h.pool = w.pool;
        h.ttlMs = w.ttlMs;
      }
    }
    for (const h of freshHb) this.heartbeats.set(h.id, h);
    if (this.native) for (const p of this.pools.values()) this.native.publish(p);
    return { ok: true, added: fresh.length, removed, kept };
  }

  private async bind(lc: ListenerConfig, pool: Pool): Promise<Listener> {
    const native = this.native;
    if (native) {
      if (lc.protocol === 'udp') {
        const l = new UdpListener(lc, pool);
        l.cfg = { ...lc, port: native.listen(l) };
        return l;
      }
      const l = new TcpListener(lc, pool);
      const port = native.listen(l);
      l.acceptor = { address: lc.address, port, close: () => native.unlisten(l) };
      return l;
    }
    if (lc.protocol === 'udp') {
      const l = new UdpListener(lc, pool);
      const port = await this.udp.listen(l);
      l.cfg = { ...lc, port };
      return l;
    }
    const l = new TcpListener(lc, pool);
    l.acceptor = await this.io.listen(lc.address, lc.port, (conn) => this.tcp.accept(l, conn));
    return l;
  }

  private unbind(l: Listener): void {
    if (this.native) this.native.unlisten(l);
    else if (l instanceof TcpListener) l.acceptor?.close();
    else {
      this.udp.close(l);
      // A UDP flow cannot answer without its listener's socket: it ends with it.
      for (const f of [...this.udp.flows]) if (f.listener === l) f.lastActive = -Infinity;
    }
  }

  private bindHeartbeat(id: string, pool: Pool, address: string, port: number, ttlMs: number): Promise<Heartbeat> {
    return new Promise((resolve, reject) => {
      const socket = dgram.createSocket({ type: isIPv6(address) ? 'udp6' : 'udp4' });
      const h: Heartbeat = { id, pool, socket, ttlMs };
      socket.once('error', (err) => {
        socket.close();
        reject(new Error(`cannot listen for heartbeats on ${address}:${port}/udp: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      });
      socket.bind(port, address, () => {
        socket.removeAllListeners('error');
        socket.on('error', () => {});
        socket.on('message', (msg, rinfo) => this.heartbeat(h, msg.toString('utf8'), rinfo.address));
        resolve(h);
      });
    });
  }

  private heartbeat(h: Heartbeat, text: string, from: string): void {
    const { reports, errors } = parseLoadDatagram(text);
    const now = Date.now();
    for (const e of errors) {
      this.limiter.push(`hb:${h.id}:${from}`, () => ({ type: 'error', ...poolRef(h.pool), message: `heartbeat from ${from}: ${e}` }), now);
    }
    for (const r of reports) {
      const who = normaliseAddress(r.server ?? from);
      const m = h.pool.members.find((x) => normaliseAddress(x.cfg.address) === who || (x.cfg.secondaryAddress !== undefined && normaliseAddress(x.cfg.secondaryAddress) === who));
      if (!m) {
        this.limiter.push(`hb:${h.id}:${who}`, () => ({ type: 'error', ...poolRef(h.pool), message: `heartbeat for ${who}: not a server of ${h.pool.cfg.name}` }), now);
        continue;
      }
      m.agent = { ...(r.m !== undefined ? { m: r.m } : {}), ...(r.mtotal !== undefined ? { mtotal: r.mtotal } : {}), ...(r.c !== undefined ? { c: r.c } : {}), ...(r.ctotal !== undefined ? { ctotal: r.ctotal } : {}), until: now + (r.ttlMs ?? h.ttlMs) };
    }
  }

  private sweep(): void {
    const now = Date.now();
    this.tcp.sweep(now);
    this.udp.sweep(now);
    for (const p of this.pools.values()) p.sweep(now);
    this.limiter.flush(now);
    if (now - this.lastSample >= 1000) this.sample(now);
  }

  /** Client reads per second per server: m for least load when no heartbeat reports it. */
  private sample(now: number): void {
    const dt = (now - this.lastSample) / 1000;
    this.lastSample = now;
    const live = this.live();
    for (const p of this.pools.values()) {
      if (p.cfg.algorithm !== 'least-load') continue;
      for (const m of p.members) {
        const chunks = m.chunksIn + (live.get(m)?.chunksIn ?? 0);
        m.chunkRate = Math.max(0, (chunks - m.lastChunks) / dt);
        m.lastChunks = chunks;
      }
    }
  }

  /** Live counts of open connections per member (the native path counts them into the members). */
  private live(): Map<Member, { bytesIn: number; bytesOut: number; chunksIn: number }> {
    if (this.native) {
      this.native.sync(this.pools.values());
      return new Map();
    }
    const live = this.tcp.live();
    this.udp.live(live);
    return live;
  }

  stats(): EngineStats {
    const now = Date.now();
    const live = this.live();
    const listeners: ListenerStats[] = [...this.listeners.values()].map((l) => ({
      address: l.cfg.address,
      port: l instanceof TcpListener ? l.acceptor!.port : l.cfg.port,
      protocol: l.cfg.protocol,
      ...l.ref,
    }));
    const pools: PoolStats[] = [...this.pools.values()].map((p) => {
      const servers = [...p.members, ...p.retired].map((m) => p.serverStats(m, live.get(m), now));
      const sum = (f: (s: (typeof servers)[number]) => number) => servers.reduce((a, s) => a + f(s), 0);
      return {
        kind: p.cfg.kind,
        name: p.cfg.name,
        ...poolRef(p),
        algorithm: p.cfg.algorithm,
        active: sum((s) => s.active),
        total: p.accepted,
        bytesIn: sum((s) => s.bytesIn),
        bytesOut: sum((s) => s.bytesOut),
        errors: sum((s) => s.errors),
        refused: p.refused,
        redispatched: p.redispatched,
        servers,
      };
    });
    return { at: now, uptimeMs: now - this.started, threadId, io: this.ioName, listeners, pools };
  }

  /** Stops accepting and closes every connection and flow. */
  stop(): void {
    clearInterval(this.sweepTimer);
    for (const l of this.listeners.values()) {
      this.unbind(l);
      this.emit({ type: 'closed', address: l.cfg.address, port: l instanceof TcpListener ? l.acceptor!.port : l.cfg.port, protocol: l.cfg.protocol, ...l.ref });
    }
    this.listeners.clear();
    for (const h of this.heartbeats.values()) h.socket.close();
    this.heartbeats.clear();
    this.tcp.stopAll();
    this.udp.stopAll();
    // Closes every connection and flow, then ends the native loop thread.
    this.native?.close();
  }
}

function poolRef(p: Pool): { service: string } | { targetSet: number } {
  return p.cfg.service !== undefined ? { service: p.cfg.service } : { targetSet: p.cfg.targetSet! };
}

function heartbeatId(hb: NonNullable<PoolConfig['heartbeat']>): string {
  return `hb:${normaliseAddress(hb.address)}:${hb.port}`;
}

if (parentPort) {
  const port = parentPort;
  const dp = new DataPath((m) => port.postMessage(m), (workerData ?? {}) as WorkerOptions);
  port.postMessage({ t: 'ready', io: dp.ioName, threadId, ...(dp.fallback ? { fallback: dp.fallback } : {}) } satisfies ToController);
  // Applies wait for each other: binding is asynchronous and must not interleave.
  let applying: Promise<unknown> = Promise.resolve();
  port.on('message', (msg: ToWorker) => {
    switch (msg.t) {
      case 'apply':
        // States now, in message order: a later 'states' message must not be overwritten.
        dp.setStates(msg.states);
        applying = applying.then(async () => {
          const result = await dp.apply(msg.config).catch((err: Error) => ({ ok: false, reason: err.message, added: 0, removed: 0, kept: 0 }));
          port.postMessage({ t: 'applied', id: msg.id, result } satisfies ToController);
        });
        break;
      case 'states':
        dp.setStates(msg.states);
        break;
      case 'stats':
        port.postMessage({ t: 'stats', id: msg.id, stats: dp.stats() } satisfies ToController);
        break;
      case 'stop':
        dp.stop();
        port.postMessage({ t: 'stopped', id: msg.id } satisfies ToController);
        break;
    }
  });
}
