// The forwarding engine's controller, on the caller's thread (the app's main process, the CLI,
// the UI host). It turns workspaces into configs, feeds health states to the data path in its
// worker thread, reports failed connects back to the health checker, and relays events and stats.
import type { Worker } from 'node:worker_threads';
import type { ApplyResult, EngineEvent, EngineStats } from '../../../shared/api/engine';
import type { StateChange } from '../../../shared/api/types';
import type { Workspace } from '../../../shared/model/schema';
import type { HealthView } from '../health/types';
import { TCP_IO_FALLBACK } from '../health/probes/tcp';
import { buildConfig, type EngineConfig, type ListenerConfig } from './config';
import type { StateTuple, ToController, ToWorker, WorkerApplyResult } from './messages';
import { startEngineWorker } from './worker-path';
import { Emitter } from '../../../shared/emitter';

export interface ForwardingEngineOptions {
  health: HealthView;
  /**
   * Data path in the worker (default: LBDESK_ENGINE_IO, else `native`): `native` is the C addon
   * (the JavaScript path on `uv` runs instead, with a notice, where it cannot load); `uv` and
   * `net` force the JavaScript path on that socket layer.
   */
  io?: EngineIo;
  /** Data threads of the native path, each a loop of its own sharing the listeners' ports (default 1). */
  threads?: number;
  /** How often stats() is refreshed from the data path, in ms (default 1000; 0 = only by refreshStats). */
  statsIntervalMs?: number;
  /**
   * Where the lab's path to a member goes instead of its own address (a fault proxy,
   * services/lab/faults): consulted at every apply and by `reroute()`.
   */
  route?: (key: string) => string | undefined;
}

type Reply = WorkerApplyResult | EngineStats | undefined;
export type EngineIo = 'native' | 'uv' | 'net';

/** The data path asked for: the option, else LBDESK_ENGINE_IO, else native. */
export function engineIo(io?: EngineIo): EngineIo {
  if (io) return io;
  const env = process.env.LBDESK_ENGINE_IO;
  return env === 'uv' || env === 'net' || env === 'native' ? env : 'native';
}

const emptyStats = (): EngineStats => ({ at: Date.now(), uptimeMs: 0, threadId: -1, io: 'uv', listeners: [], pools: [] });

export function stateEvent(c: StateChange): EngineEvent {
  return {
    ts: new Date(c.at).toISOString(),
    type: 'state',
    ...(c.group !== undefined ? { group: c.group } : {}),
    ...(c.targetSet !== undefined ? { targetSet: c.targetSet } : {}),
    server: c.server,
    address: c.address,
    ...(c.port !== undefined ? { port: c.port } : {}),
    from: c.from,
    to: c.to,
    score: c.score,
    reason: c.reason,
  };
}

/** Which listener addresses to bind, and extra listeners (a box's own address) to add. */
export interface ListenFilter {
  keep(address: string): boolean;
  extra?(l: ListenerConfig): ListenerConfig[];
}

function narrow(config: EngineConfig, filter: ListenFilter): EngineConfig {
  const listeners = config.listeners.filter((l) => filter.keep(l.address));
  const ids = new Set(listeners.map((l) => l.id));
  for (const l of config.listeners) {
    for (const x of filter.extra?.(l) ?? []) {
      if (ids.has(x.id)) continue;
      ids.add(x.id);
      listeners.push(x);
    }
  }
  const pools = config.pools.map((p) => (p.heartbeat && !filter.keep(p.heartbeat.address) ? { ...p, heartbeat: undefined } : p));
  return { ...config, listeners, pools };
}

/** Every event of the contract (`serve --events` lines): listening, state, reload, refused, ... */
export class ForwardingEngine extends Emitter<{ event: EngineEvent }> {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, (r: Reply) => void>();
  private nextId = 1;
  private config: EngineConfig | undefined;
  /** The last applied config before `route` (what `reroute` routes again). */
  private base: EngineConfig | undefined;
  private applied = 0;
  /** Members drained at run time (the daemon's control channel): no new connections, open ones go on. */
  private held = new Set<string>();
  private latest: EngineStats = emptyStats();
  private readonly unsubscribe: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private dataThread = -1;

  constructor(private readonly opts: ForwardingEngineOptions) {
    super();
    this.subscribe();
  }

  /** State changes go to the data path and out as `state` events (first results included). */
  private subscribe(): void {
    if (this.unsubscribe.length > 0) return;
    this.unsubscribe.push(this.opts.health.on('change', (c) => {
      this.post({ t: 'states', states: [[c.key, c.to, c.score]] });
      this.emit('event', stateEvent(c));
    }));
  }

  /** The data path's thread id (worker_threads), once started. */
  get threadId(): number {
    return this.dataThread;
  }

  /** The data path's worker (for its event-loop utilisation), once started. */
  get dataWorker(): Worker | undefined {
    return this.worker;
  }

  /**
   * Runs a workspace, or applies an edited one: unchanged listeners keep their sockets and no
   * established connection is cut. On failure the previous config keeps running.
   */
  /**
   * `listen` keeps the listeners (and heartbeat sockets) whose address it accepts: a box of an
   * HA pair binds only the addresses it holds (docs/ha.md); pools and checks stay whole.
   */
  async apply(workspace: Workspace, opts: { listen?: ListenFilter } = {}): Promise<ApplyResult> {
    const base = opts.listen ? narrow(buildConfig(workspace), opts.listen) : buildConfig(workspace);
    const config = this.routed(base);
    const notices = config.notices.map((n) => n.message);
    let result: ApplyResult;
    if (config.problems.length > 0) {
      result = { ok: false, reason: config.problems.join('; '), added: 0, removed: 0, kept: 0, notices };
    } else {
      this.stopping = false;
      await this.start();
      const r = (await this.request({ t: 'apply', id: 0, config, states: this.statesFor(config) })) as WorkerApplyResult | undefined;
      result = r ? { ...r, notices } : { ok: false, reason: 'the data path stopped', added: 0, removed: 0, kept: 0, notices };
    }
    if (result.ok) {
      const before = new Set(this.config?.notices.map((n) => n.message));
      for (const n of config.notices) {
        if (!before.has(n.message)) this.emit('event', { ts: new Date().toISOString(), type: 'notice', message: n.message, ...ref(n) });
      }
      this.config = config;
      this.base = base;
    }
    if (this.applied === 0 && !result.ok) {
      // Nothing ran before: not a reload, the engine could not start.
      this.emit('event', { ts: new Date().toISOString(), type: 'error', message: `cannot start: ${result.reason ?? 'refused'}` });
    } else if (this.applied > 0) {
      this.emit('event', {
        ts: new Date().toISOString(),
        type: 'reload',
        ok: result.ok,
        ...(result.reason ? { reason: result.reason } : {}),
        added: result.added,
        removed: result.removed,
        kept: result.kept,
      });
    }
    if (result.ok) this.applied += 1;
    return result;
  }

  /**
   * The running config again with the routes as they are now (a fault applied or cleared):
   * pools keep their members, counters and connections; no `reload` event, nothing re-bound.
   */
  async reroute(): Promise<void> {
    if (!this.base || !this.worker) return;
    const config = this.routed(this.base);
    const r = (await this.request({ t: 'apply', id: 0, config, states: this.statesFor(config) })) as WorkerApplyResult | undefined;
    if (r?.ok) this.config = config;
  }

  /**
   * Takes these members out of new connections (as `enabled: false` does, their open connections
   * go on) and puts back the others; kept through later applies. No `reload` event.
   */
  async hold(keys: ReadonlySet<string>): Promise<void> {
    this.held = new Set(keys);
    await this.reroute();
  }

  private routed(config: EngineConfig): EngineConfig {
    const route = this.opts.route;
    const held = this.held;
    if (!route && held.size === 0) return config;
    const pools = config.pools.map((p) => {
      if (!p.members.some((m) => route?.(m.key) !== undefined || held.has(m.key))) return p;
      return { ...p, members: p.members.map((m) => {
        const address = route?.(m.key);
        const out = held.has(m.key) ? { ...m, enabled: false } : m;
        return address === undefined ? out : { ...out, address, ...(m.secondaryAddress !== undefined ? { secondaryAddress: address } : {}) };
      }) };
    });
    return { ...config, pools };
  }

  /** The latest stats snapshot (refreshed every statsIntervalMs while running). */
  stats(): EngineStats {
    return this.latest;
  }

  /** A fresh stats snapshot from the data path. */
  async refreshStats(): Promise<EngineStats> {
    if (!this.worker) return this.latest;
    const s = (await this.request({ t: 'stats', id: 0 })) as EngineStats | undefined;
    if (s) this.latest = s;
    return this.latest;
  }

  /** Stops listening, closes every connection and ends the worker (apply starts it again). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    const w = this.worker;
    if (w) {
      await Promise.race([this.request({ t: 'stop', id: 0 }), delay(2000)]);
      this.worker = undefined;
      this.ready = undefined;
      // A worker that does not finish terminating is not waited for forever.
      await Promise.race([w.terminate().catch(() => undefined), delay(3000)]);
    }
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
    for (const u of this.unsubscribe.splice(0)) u();
  }

  private statesFor(config: EngineConfig): StateTuple[] {
    const keys = new Set(config.pools.flatMap((p) => p.members.map((m) => m.key)));
    return [...keys].map((key) => {
      const s = this.opts.health.status(key);
      return [key, s?.state ?? 'unknown', s?.score ?? 1];
    });
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    this.subscribe();
    const io = engineIo(this.opts.io);
    const w = startEngineWorker({ io, ...(this.opts.threads ? { threads: this.opts.threads } : {}) });
    this.worker = w;
    this.ready = new Promise<void>((resolve, reject) => {
      w.on('message', (m: ToController) => {
        if (m.t === 'ready') {
          this.dataThread = m.threadId;
          // Never silently: a lab that runs slower than it should says why.
          if (m.fallback) this.emit('event', { ts: new Date().toISOString(), type: 'notice', message: `${m.fallback}; forwarding with the JavaScript data path (${m.io})` });
          if (TCP_IO_FALLBACK) this.emit('event', { ts: new Date().toISOString(), type: 'notice', message: TCP_IO_FALLBACK });
          resolve();
        } else this.onMessage(m);
      });
      w.once('error', (err) => {
        reject(err);
        this.crashed(w, `the data path failed: ${err.message}`);
      });
      w.once('exit', (code) => {
        reject(new Error(`the data path exited (code ${code})`));
        this.crashed(w, `the data path exited (code ${code})`);
      });
    });
    const interval = this.opts.statsIntervalMs ?? 1000;
    if (interval > 0 && !this.timer) {
      this.timer = setInterval(() => void this.refreshStats().catch(() => {}), interval);
      this.timer.unref();
    }
    return this.ready;
  }

  /** A worker that dies unasked is restarted with the last config (its connections are lost). */
  private crashed(w: Worker, message: string): void {
    if (this.worker !== w || this.stopping) return;
    this.worker = undefined;
    this.ready = undefined;
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
    this.emit('event', { ts: new Date().toISOString(), type: 'error', message: `${message}; restarting it` });
    const config = this.config;
    if (!config) return;
    void this.start()
      .then(() => this.request({ t: 'apply', id: 0, config, states: this.statesFor(config) }))
      .catch((err: Error) => this.emit('event', { ts: new Date().toISOString(), type: 'error', message: `restart failed: ${err.message}` }));
  }

  private onMessage(m: ToController): void {
    switch (m.t) {
      case 'event':
        this.emit('event', m.event);
        break;
      case 'failed':
        this.opts.health.reportFailure(m.key, m.reason);
        break;
      case 'applied':
        this.settle(m.id, m.result);
        break;
      case 'stats':
        this.settle(m.id, m.stats);
        break;
      case 'stopped':
        this.settle(m.id, undefined);
        break;
    }
  }

  private settle(id: number, r: Reply): void {
    const resolve = this.pending.get(id);
    this.pending.delete(id);
    resolve?.(r);
  }

  private request(msg: ToWorker): Promise<Reply> {
    const w = this.worker;
    if (!w) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      w.postMessage({ ...msg, id });
    });
  }

  private post(msg: ToWorker): void {
    this.worker?.postMessage(msg);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function ref(n: { service?: string; targetSet?: number }): { service?: string; targetSet?: number } {
  return n.service !== undefined ? { service: n.service } : n.targetSet !== undefined ? { targetSet: n.targetSet } : {};
}
