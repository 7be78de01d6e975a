// One pool of servers (a service's group, or a target set's IP list) inside the data path:
// current states, counters, persistence and the algorithm's memory. Picks a server per new
// connection with the pure functions of ./algorithms.
import type { MemberState } from '../../../shared/api/types';
import { CONNECT_BUCKETS_MS, type ServerStats } from '../../../shared/api/engine';
import {
  clientHash, hash32, healthWeighted, leastConnections, leastLoad, loadOf, newMemory, peerSpread, pruneCurrent,
  rendezvous, roundRobin, smoothWeighted, usableTier, type LoadCandidate,
} from './algorithms';
import type { MemberConfig, PoolConfig } from './config';

/** Time constant of the new-connection rate added to c (IPFE: smooths a sudden flood). */
const RATE_TAU_MS = 1000;

export interface AgentLoad {
  m?: number;
  mtotal?: number;
  c?: number;
  ctotal?: number;
  until: number;
}

export class Member implements LoadCandidate {
  health: MemberState = 'unknown';
  score = 1;
  active = 0;
  total = 0;
  errors = 0;
  /** Totals of finished connections; live ones are added at stats time. */
  bytesIn = 0;
  bytesOut = 0;
  chunksIn = 0;
  readonly connectMs = new Uint32Array(CONNECT_BUCKETS_MS.length + 1);
  /** Removed from the configuration but still carrying connections. */
  retired = false;
  readonly hash: number;
  // IPFE least-load inputs, refreshed before each least-load choice.
  m = 0;
  mtotal = 1;
  c = 0;
  ctotal = 1;
  /** Client reads per second over the last sample: the engine's own estimate of m. */
  chunkRate = 0;
  lastChunks = 0;
  private rate = 0;
  private rateAt = 0;
  agent: AgentLoad | undefined;

  constructor(public index: number, public cfg: MemberConfig) {
    this.hash = hash32(cfg.key);
  }

  get key(): string {
    return this.cfg.key;
  }
  get weight(): number {
    return this.retired ? 0 : this.cfg.weight;
  }
  /** Health as the algorithms see it: configuration (disabled, retired) wins over checks. */
  get state(): MemberState {
    return this.cfg.enabled && !this.retired ? this.health : 'disabled';
  }

  /** New connections per second, decayed exponentially. */
  connRate(now: number): number {
    return this.rate * Math.exp(-(now - this.rateAt) / RATE_TAU_MS);
  }
  bumpRate(now: number): void {
    this.rate = this.connRate(now) + 1000 / RATE_TAU_MS;
    this.rateAt = now;
  }

  /** m, mtotal, c and ctotal from a live heartbeat report, else counters and capacities. */
  refreshLoad(now: number): 'agent' | 'engine' {
    const a = this.agent && this.agent.until > now ? this.agent : undefined;
    this.mtotal = a?.mtotal ?? this.cfg.capacity.mps;
    this.ctotal = a?.ctotal ?? this.cfg.capacity.connections;
    this.m = a?.m ?? this.chunkRate;
    this.c = (a?.c ?? this.active) + this.connRate(now);
    return a ? 'agent' : 'engine';
  }

  recordConnect(ms: number): void {
    let i = 0;
    while (i < CONNECT_BUCKETS_MS.length && ms > CONNECT_BUCKETS_MS[i]!) i++;
    this.connectMs[i]! += 1;
  }
}

export interface Client {
  address?: string;
  port?: number;
}

export class Pool {
  members: Member[] = [];
  readonly retired = new Set<Member>();
  private byKey = new Map<string, Member>();
  private readonly memory = newMemory();
  private tier: Member[] | undefined;
  private readonly persist = new Map<string, { m: Member; until: number }>();
  private readonly peers = new Map<string, Map<Member, number>>();
  private whigh = 1;
  accepted = 0;
  refused = 0;
  redispatched = 0;

  constructor(public cfg: PoolConfig) {
    this.update(cfg);
  }

  /** Whether a choice needs the client's address (persistence, hashing, peer groups). */
  get needsClient(): boolean {
    return this.cfg.persistence.type === 'client-ip' || this.cfg.algorithm === 'source-hash' || this.cfg.algorithm === 'hash' || (this.cfg.peerThreshold ?? 0) > 0;
  }

  /** A reload: members are matched by key so counters, states and connections carry over. */
  update(cfg: PoolConfig): void {
    this.cfg = cfg;
    const next: Member[] = [];
    const keys = new Set<string>();
    cfg.members.forEach((mc, i) => {
      if (keys.has(mc.key)) return;
      keys.add(mc.key);
      let m = this.byKey.get(mc.key) ?? [...this.retired].find((r) => r.key === mc.key);
      if (m) {
        m.index = i;
        m.cfg = mc;
        m.retired = false;
        this.retired.delete(m);
      } else m = new Member(i, mc);
      next.push(m);
    });
    for (const m of this.members) {
      if (keys.has(m.key)) continue;
      m.retired = true;
      if (m.active > 0) this.retired.add(m);
    }
    this.members = next;
    this.byKey = new Map(next.map((m) => [m.key, m]));
    this.whigh = Math.max(1, ...cfg.members.map((m) => m.weight));
    pruneCurrent(this.memory, keys);
    this.tier = undefined;
  }

  member(key: string): Member | undefined {
    return this.byKey.get(key);
  }

  setHealth(m: Member, state: MemberState, score: number): void {
    m.health = state;
    m.score = score;
    this.tier = undefined;
  }

  /** The servers new connections may go to (cached until a state or config change). */
  usable(): Member[] {
    return (this.tier ??= usableTier(this.members));
  }

  choose(client: Client, now: number, exclude?: ReadonlySet<Member>, secondary = false): Member | undefined {
    let cands = this.usable();
    if (secondary) cands = cands.filter((m) => m.cfg.secondaryAddress !== undefined);
    if (exclude && exclude.size > 0) cands = cands.filter((m) => !exclude.has(m));
    if (cands.length === 0) return undefined;
    const sticky = this.cfg.persistence.type === 'client-ip' && client.address !== undefined ? this.persist.get(client.address) : undefined;
    if (sticky && sticky.until > now && (cands.includes(sticky.m) || this.stillUsable(sticky.m, exclude, secondary))) {
      sticky.until = now + this.cfg.persistence.timeoutMs;
      return sticky.m;
    }
    const m = this.pick(cands, client, now);
    if (m && this.cfg.persistence.type === 'client-ip' && client.address !== undefined) {
      this.persist.set(client.address, { m, until: now + this.cfg.persistence.timeoutMs });
    }
    return m;
  }

  /** A persisted server outside the current tier (degraded while others are available) still serves its clients. */
  private stillUsable(m: Member, exclude: ReadonlySet<Member> | undefined, secondary: boolean): boolean {
    return this.byKey.get(m.key) === m && m.weight > 0 && (m.state === 'available' || m.state === 'degraded')
      && !exclude?.has(m) && (!secondary || m.cfg.secondaryAddress !== undefined);
  }

  private pick(cands: Member[], client: Client, now: number): Member | undefined {
    switch (this.cfg.algorithm) {
      case 'round-robin':
        return roundRobin(cands, this.memory);
      case 'weighted-round-robin':
        return smoothWeighted(cands, this.memory);
      case 'least-connections':
        return leastConnections(cands, this.memory);
      case 'health-weighted':
        return healthWeighted(cands, this.memory);
      case 'source-hash':
      case 'hash':
        return rendezvous(cands, clientHash(client.address ?? '', client.port ?? 0), (m) => m.hash);
      case 'least-load': {
        for (const m of cands) m.refreshLoad(now);
        const peers = this.cfg.peerThreshold && client.address !== undefined ? this.peers.get(client.address) : undefined;
        const spread = peers ? peerSpread(cands, (m) => peers.get(m) ?? 0, this.cfg.peerThreshold!) : cands;
        const ll = this.cfg.leastLoad ?? { fm: 50, fc: 50, deviation: 5 };
        return leastLoad(spread, { ...ll, whigh: this.whigh }, this.memory);
      }
    }
  }

  /** A connection is on its way to `m` (counted from the connect, so bursts spread). */
  begin(m: Member, client: Client, now: number): void {
    m.active += 1;
    m.bumpRate(now);
    if (this.cfg.peerThreshold && client.address !== undefined) {
      let g = this.peers.get(client.address);
      if (!g) this.peers.set(client.address, (g = new Map()));
      g.set(m, (g.get(m) ?? 0) + 1);
    }
  }

  /** The connection to `m` ended (or its connect failed). */
  end(m: Member, client: Client, now: number): void {
    m.active -= 1;
    if (m.retired && m.active <= 0) this.retired.delete(m);
    if (this.cfg.peerThreshold && client.address !== undefined) {
      const g = this.peers.get(client.address);
      const n = (g?.get(m) ?? 0) - 1;
      if (g && n > 0) g.set(m, n);
      else if (g) {
        g.delete(m);
        if (g.size === 0) this.peers.delete(client.address);
      }
    }
    if (this.cfg.persistence.type === 'client-ip' && client.address !== undefined) {
      const p = this.persist.get(client.address);
      if (p && p.m === m) p.until = now + this.cfg.persistence.timeoutMs;
    }
  }

  /** Drops a client's persistence entry (its server failed: the next connection chooses again). */
  forget(client: Client, m: Member): void {
    if (client.address === undefined) return;
    const p = this.persist.get(client.address);
    if (p && p.m === m) this.persist.delete(client.address);
  }

  sweep(now: number): void {
    for (const [k, p] of this.persist) if (p.until <= now) this.persist.delete(k);
  }

  persistedCount(): number {
    return this.persist.size;
  }

  serverStats(m: Member, live: { bytesIn: number; bytesOut: number } | undefined, now: number): ServerStats {
    const stats: ServerStats = {
      key: m.key,
      server: m.cfg.server,
      address: m.cfg.address,
      ...(m.cfg.port !== undefined ? { port: m.cfg.port } : {}),
      weight: m.cfg.weight,
      state: m.state,
      score: m.score,
      // Draining while connections it may no longer take are still open (docs/engine.md).
      draining: (m.retired || !m.cfg.enabled) && m.active > 0,
      active: m.active,
      total: m.total,
      bytesIn: m.bytesIn + (live?.bytesIn ?? 0),
      bytesOut: m.bytesOut + (live?.bytesOut ?? 0),
      errors: m.errors,
      connectMs: [...m.connectMs],
    };
    if (this.cfg.algorithm === 'least-load') {
      const source = m.refreshLoad(now);
      const ll = this.cfg.leastLoad ?? { fm: 50, fc: 50, deviation: 5 };
      const L = loadOf(m, { ...ll, whigh: this.whigh });
      stats.load = { m: m.m, mtotal: m.mtotal, c: m.c, ctotal: m.ctotal, L: Number.isFinite(L) ? L : -1, source };
    }
    return stats;
  }
}
