// The native data path (native/engine/*.c, an N-API addon with its own libuv loop on its own
// thread) seen from the worker: JavaScript binds listeners, publishes each pool's selection
// table (tier, weights, scores, addresses), answers the choices C leaves to it (persistence,
// least load, peer groups: one call per connection), turns C's events into engine events and
// reads C's counters into the pools' members for stats.
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { PoolRef } from '../../../shared/api/engine';
import { CONNECT_BUCKETS_MS } from '../../../shared/api/engine';
import type { ListenerConfig, PoolAlgorithm } from './config';
import type { Client, Member, Pool } from './pool';
import type { Runtime } from './runtime';

interface NativeEvent {
  type: 'refused' | 'redispatch' | 'choose' | 'end' | 'error';
  pool: number;
  member: number;
  to: number;
  slot: number;
  gen: number;
  js: number;
  udp: number;
  secondary: number;
  lport: number;
  client?: string;
  clientPort?: number;
  reason?: string;
  tried?: number[];
}

/** What the addon and JavaScript agree on, exported by the addon itself (native/engine/engine.h). */
export interface AddonLayout {
  algorithms: Record<string, number>;
  rowFields: string[];
  memberFields: string[];
  connectBuckets: number;
  memberStats: number;
  poolFields: string[];
  poolStats: number;
}

/** The counters C keeps, by the names it exports them under. */
const MEMBER_COUNTERS = ['active', 'total', 'errors', 'bytesIn', 'bytesOut', 'chunksIn'] as const satisfies readonly (keyof Member)[];
const POOL_COUNTERS = ['accepted', 'refused', 'redispatched'] as const satisfies readonly (keyof Pool)[];
type MemberCounter = (typeof MEMBER_COUNTERS)[number];
type PoolCounter = (typeof POOL_COUNTERS)[number];

/** The addon's name for each pool algorithm (`js`: JavaScript chooses, one call per connection).
 * A complete record: a new algorithm does not compile until it says which. */
export const NATIVE_ALGORITHM: Record<PoolAlgorithm, string> = {
  'round-robin': 'round-robin',
  'weighted-round-robin': 'weighted-round-robin',
  'least-connections': 'least-connections',
  'health-weighted': 'health-weighted',
  'source-hash': 'hash',
  hash: 'hash',
  'least-load': 'js',
};

function understood(layout: AddonLayout | undefined): layout is AddonLayout {
  return layout?.connectBuckets === CONNECT_BUCKETS_MS.length + 1
    && Object.values(NATIVE_ALGORITHM).every((a) => layout.algorithms[a] !== undefined)
    && layout.memberFields.every((f) => (MEMBER_COUNTERS as readonly string[]).includes(f))
    && layout.poolFields.every((f) => (POOL_COUNTERS as readonly string[]).includes(f));
}

export interface Addon {
  layout: AddonLayout;
  /** `threads` loops, each on its own thread, sharing every listener's port (SO_REUSEPORT). */
  start(onEvents: (events: NativeEvent[]) => void, threads?: number): void;
  threads(): number;
  listen(id: number, address: string, port: number, udp: boolean): number;
  unlisten(id: number): void;
  setListener(id: number, pool: number, secondary: boolean): void;
  publish(pool: number, algo: number, idleMs: number, rows: (string | number)[][]): void;
  chosen(udp: boolean, slot: number, gen: number, member: number, reason: string): void;
  members(ids: Uint32Array): Float64Array;
  pools(ids: Uint32Array): Float64Array;
  live(): [number, number];
  /** Which loop moves TCP: `epoll` (Linux) or `libuv` (its handles; LBDESK_NATIVE_LOOP=uv forces it). */
  loop(): 'epoll' | 'libuv';
  stopAll(): void;
  close(): void;
}

/** Where the addon is looked for: LBDESK_ENGINE_ADDON, else prebuilds/<platform>-<arch>/ above this file (or its app.asar.unpacked twin). */
export function addonPaths(from = __dirname): string[] {
  if (process.env.LBDESK_ENGINE_ADDON) return [process.env.LBDESK_ENGINE_ADDON];
  const rel = join('prebuilds', `${process.platform}-${process.arch}`, 'node.napi.node');
  const out: string[] = [];
  let dir = from;
  for (let i = 0; i < 6; i++) {
    out.push(join(dir, rel));
    // Electron: native files are packed outside the archive (asarUnpack).
    if (dir.endsWith('.asar')) out.push(join(`${dir}.unpacked`, rel));
    const up = join(dir, '..');
    if (up === dir) break;
    dir = up;
  }
  return out.filter((p, i, a) => a.indexOf(p) === i && !p.includes(`${sep}node_modules${sep}`));
}

/** The addon, or why it cannot be used (said in a notice: the JavaScript path runs instead). */
export function loadAddon(): { addon: Addon } | { error: string } {
  const tried = addonPaths();
  const file = tried.find((p) => existsSync(p));
  if (!file) return { error: `no native data path for ${process.platform}-${process.arch} (looked for ${tried[0]})` };
  try {
    // A runtime require: the bundler must not try to inline a binary.
    const req = eval('require') as NodeJS.Require;
    const addon = req(file) as Addon;
    // A build whose counters do not match this code's buckets would misread every stat.
    if (!understood(addon.layout)) return { error: `the native data path at ${file} was built for another version (rebuild: npm run build:native)` };
    return { addon };
  } catch (err) {
    return { error: `the native data path did not load: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** The addon's number for a pool's algorithm (loadAddon checked that it has every one). */
function algorithmOf(layout: AddonLayout, algorithm: PoolAlgorithm | 'js'): number {
  return layout.algorithms[algorithm === 'js' ? 'js' : NATIVE_ALGORITHM[algorithm]]!;
}

export interface NativeListener {
  cfg: ListenerConfig;
  pool: Pool;
  nid?: number;
  readonly ref: PoolRef;
}

export class NativePath {
  private readonly ids = new WeakMap<object, number>();
  private readonly pools = new Map<number, Pool>();
  private readonly members = new Map<number, Member>();
  private nextId = 1;
  /** Connections and flows whose server JavaScript chose: ended here too. */
  private readonly chosen = new Map<string, { pool: Pool; m: Member; client: Client }>();

  constructor(private readonly addon: Addon, private readonly rt: Runtime, threads = 1) {
    addon.start((events) => this.onEvents(events), threads);
  }

  private id(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(o, id);
    }
    return id;
  }

  /** Binds now (an error names the address and errno, as the JavaScript layers do). */
  listen(l: NativeListener): number {
    const nid = this.id(l);
    l.nid = nid;
    try {
      const port = this.addon.listen(nid, l.cfg.address, l.cfg.port, l.cfg.protocol === 'udp');
      this.point(l);
      return port;
    } catch (err) {
      throw new Error(`cannot listen on ${l.cfg.address}:${l.cfg.port}/${l.cfg.protocol}: ${(err as Error).message}`);
    }
  }

  unlisten(l: NativeListener): void {
    if (l.nid !== undefined) this.addon.unlisten(l.nid);
  }

  /** A listener feeds this pool from now on (a reload may point it at another). */
  point(l: NativeListener): void {
    this.publish(l.pool);
    this.addon.setListener(l.nid!, this.id(l.pool), l.cfg.secondary);
  }

  /** The pool's table as C reads it per connection: the tier is JavaScript's (usableTier). */
  publish(pool: Pool): void {
    const pid = this.id(pool);
    this.pools.set(pid, pool);
    const tier = new Set(pool.usable());
    const rows = pool.members.map((m) => {
      const mid = this.id(m);
      this.members.set(mid, m);
      const row: Record<string, string | number> = { id: mid, index: m.index, weight: m.weight, score: Math.round(m.score), eligible: tier.has(m) ? 1 : 0, address: m.cfg.address, address2: m.cfg.secondaryAddress ?? '', port: m.cfg.port ?? 0, hash: m.hash, connectMs: m.cfg.connectTimeoutMs };
      return this.addon.layout.rowFields.map((f) => row[f]!);
    });
    for (const m of pool.retired) this.members.set(this.id(m), m);
    const c = pool.cfg;
    const js = c.persistence.type === 'client-ip' || c.algorithm === 'least-load' || (c.peerThreshold ?? 0) > 0;
    this.addon.publish(pid, algorithmOf(this.addon.layout, js ? 'js' : c.algorithm), c.idleTimeoutMs, rows);
  }

  /** C's counters into the members and pools (before stats, least-load samples and reloads). */
  sync(pools: Iterable<Pool>): void {
    const list = [...pools];
    const members = list.flatMap((p) => [...p.members, ...p.retired]);
    const { memberFields, memberStats, poolFields, poolStats } = this.addon.layout;
    const m = this.addon.members(Uint32Array.from(members, (x) => this.id(x)));
    members.forEach((x, i) => {
      const o = i * memberStats;
      memberFields.forEach((f, k) => (x[f as MemberCounter] = m[o + k]!));
      for (let k = 0; k < x.connectMs.length; k++) x.connectMs[k] = m[o + memberFields.length + k]!;
    });
    const p = this.addon.pools(Uint32Array.from(list, (x) => this.id(x)));
    list.forEach((x, i) => {
      poolFields.forEach((f, k) => (x[f as PoolCounter] = p[i * poolStats + k]!));
      // A server removed by a reload is kept while it still carries connections.
      for (const r of x.retired) if (r.active <= 0) x.retired.delete(r);
    });
  }

  /** Connections and UDP flows open now. */
  live(): { connections: number; flows: number } {
    const [connections, flows] = this.addon.live();
    return { connections, flows };
  }

  stopAll(): void {
    this.addon.stopAll();
  }

  close(): void {
    this.addon.close();
  }

  private onEvents(events: NativeEvent[]): void {
    const now = Date.now();
    for (const e of events) {
      const pool = this.pools.get(e.pool);
      const key = `${e.udp}:${e.slot}:${e.gen}`;
      if (e.type === 'error') {
        this.rt.emit({ type: 'error', ...(pool ? poolRef(pool) : {}), message: e.reason ?? 'native data path error' } as never);
        continue;
      }
      if (e.type === 'end' || (e.type === 'redispatch' && e.js)) {
        const c = this.chosen.get(key);
        this.chosen.delete(key);
        if (c) {
          c.pool.end(c.m, c.client, now);
          if (e.type === 'redispatch') c.pool.forget(c.client, c.m);
        }
      }
      if (!pool) continue;
      const client = e.client !== undefined ? `${e.client}:${e.clientPort}` : undefined;
      if (e.type === 'choose') this.choose(pool, e, key, now);
      else if (e.type === 'refused') {
        this.rt.limited(`refused:${pool.cfg.id}`, (count) => ({ type: 'refused', ...poolRef(pool), ...(client ? { client } : {}), reason: e.reason ?? '', count }));
      } else if (e.type === 'redispatch') this.redispatched(pool, e, client);
    }
  }

  private redispatched(pool: Pool, e: NativeEvent, client: string | undefined): void {
    const m = this.members.get(e.member);
    if (!m) return;
    const address = e.secondary ? m.cfg.secondaryAddress ?? m.cfg.address : m.cfg.address;
    const port = m.cfg.port ?? e.lport;
    const reason = e.reason ?? '';
    const to = e.to ? this.members.get(e.to) : undefined;
    this.rt.report(m.key, `${reason} (${address}:${port})`);
    this.rt.limited(`redispatch:${pool.cfg.id}:${m.key}`, (count) => ({
      type: 'redispatch', ...poolRef(pool), ...(client ? { client } : {}), server: m.cfg.server, address, port, reason, ...(to ? { to: to.cfg.server } : {}), count,
    }));
  }

  /** One call: JavaScript's algorithms over its own state choose, and C connects. */
  private choose(pool: Pool, e: NativeEvent, key: string, now: number): void {
    const client: Client = e.client !== undefined ? { address: e.client, port: e.clientPort } : {};
    const tried = e.tried && e.tried.length > 0 ? new Set(e.tried.map((id) => this.members.get(id)).filter((m): m is Member => m !== undefined)) : undefined;
    const m = pool.choose(client, now, tried, e.secondary === 1);
    if (!m) {
      const reason = tried ? (e.udp ? 'every server refused the flow' : 'every server failed to connect') : 'no available or degraded server';
      this.addon.chosen(e.udp === 1, e.slot, e.gen, 0, reason);
      return;
    }
    pool.begin(m, client, now);
    this.chosen.set(key, { pool, m, client });
    this.addon.chosen(e.udp === 1, e.slot, e.gen, this.id(m), '');
  }
}

function poolRef(p: Pool): PoolRef {
  return p.cfg.service !== undefined ? { service: p.cfg.service } : { targetSet: p.cfg.targetSet! };
}
