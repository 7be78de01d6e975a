// Shared pieces of the forwarding engine tests: a HealthView over plain state objects (the
// engine's input), name-telling backends on loopback, and small socket clients.
import * as net from 'node:net';
import type { MemberKey, MemberState, MemberStatus, StateChange } from '../../../shared/api/types';
import type { HealthEvents, HealthView } from '../../../main/services/health/types';
import { Emitter } from '../../../shared/emitter';
import type { ForwardingEngine } from '../../../main/services/engine';
import { workspaceSchema, type Workspace, type WorkspaceInput } from '../../../shared/model/schema';

/** States set by the test: what the health checker would say, without probing. */
export class StaticHealth extends Emitter<HealthEvents> implements HealthView {
  readonly states = new Map<MemberKey, MemberStatus>();
  readonly failures: { key: MemberKey; reason: string }[] = [];

  set(key: MemberKey, state: MemberState, score = state === 'available' ? 10 : state === 'degraded' ? 5 : 1): void {
    const old = this.states.get(key);
    const [, server = key] = /\/([^:/]+)/.exec(key) ?? [];
    const status: MemberStatus = {
      key, server, address: server, check: 'tcp', layer: 4, state, score, reason: 'set by test', since: Date.now(), consecutiveFailures: 0, consecutivePasses: 0,
    };
    this.states.set(key, status);
    const change: StateChange = { key, server, address: server, from: old?.state ?? 'unknown', to: state, score, reason: 'set by test', at: Date.now() };
    this.emit('change', change);
  }
  status(key: MemberKey) {
    return this.states.get(key);
  }
  all() {
    return [...this.states.values()];
  }
  reportFailure(key: MemberKey, reason: string) {
    this.failures.push({ key, reason });
  }
}

export const workspace = (input: Omit<WorkspaceInput, 'lbdesk' | 'name'> & { lbdesk?: 1; name?: string }): Workspace => workspaceSchema.parse({ lbdesk: 1, name: 'engine-test', ...input });

export type Held = Awaited<ReturnType<typeof hold>>;

/** A free TCP (and usually UDP) port on an address. */
export function freePort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, address, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Backend {
  name: string;
  address: string;
  port: number;
  /** Connections open now. */
  open: Set<net.Socket>;
  accepted: number;
  /** Stops accepting and drops its open connections. */
  close(): Promise<void>;
  /** Stops accepting; open connections finish on their own (a server going away cleanly). */
  stopAccepting(): Promise<void>;
}

/** Says its name on connect, then echoes; ends when the client ends (half-close kept). */
export function startBackend(name: string, address: string, port = 0, opts: { greet?: boolean } = {}): Promise<Backend> {
  return new Promise((resolve, reject) => {
    const open = new Set<net.Socket>();
    const b = { name, address, port, open, accepted: 0 } as Backend;
    const srv = net.createServer({ allowHalfOpen: true }, (s) => {
      b.accepted += 1;
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {});
      if (opts.greet !== false) s.write(`${name}\n`);
      s.on('data', (d) => s.write(d));
      s.on('end', () => s.end());
    });
    srv.once('error', reject);
    srv.listen(port, address, () => {
      b.port = (srv.address() as net.AddressInfo).port;
      b.close = () =>
        new Promise((done) => {
          for (const s of open) s.destroy();
          srv.close(() => done());
        });
      b.stopAccepting = () => new Promise((done) => srv.close(() => done()));
      resolve(b);
    });
  });
}

/** Connects, sends nothing, returns the first line (the backend's name) and closes. */
export function whoAnswers(address: string, port: number, local?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port, ...(local ? { localAddress: local } : {}) });
    let buf = '';
    s.setEncoding('utf8');
    s.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        s.end();
        resolve(buf.slice(0, nl));
      }
    });
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed before a name (got "${buf}")`)));
  });
}

/** Opens a connection and keeps it; resolves with the socket and the backend's name. */
export function hold(address: string, port: number, local?: string): Promise<{ socket: net.Socket; name: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port, ...(local ? { localAddress: local } : {}) });
    let buf = '';
    s.setEncoding('utf8');
    const onData = (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        s.off('data', onData);
        resolve({ socket: s, name: buf.slice(0, nl) });
      }
    };
    s.on('data', onData);
    s.on('error', reject);
  });
}

export function tally(names: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = (out[n] ?? 0) + 1;
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `f` returns a truthy value (polling), or fails after `ms`. */
export async function until<T>(f: () => T | Promise<T>, ms = 5000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Waits until the data path's stats show every member in the state and score `health` holds. */
export async function healthSeen(engine: ForwardingEngine, health: StaticHealth, ms = 5000): Promise<void> {
  const same = (s: { key: string; state: MemberState; score: number }) => {
    const h = health.status(s.key);
    return !h || (h.state === s.state && h.score === s.score);
  };
  await until(async () => (await engine.refreshStats()).pools.every((p) => p.servers.every(same)), ms, 'the health states in the data path');
}

/** Sends `data`, half-closes, and collects everything until the server's EOF. */
export function roundTrip(address: string, port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port, allowHalfOpen: true });
    const parts: Buffer[] = [];
    s.on('data', (d) => parts.push(d));
    s.on('end', () => {
      s.end();
      resolve(Buffer.concat(parts));
    });
    s.on('error', reject);
    s.end(data);
  });
}

/** Resolves with the error code when the connection is refused or reset before any data. */
export function expectRefused(address: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port });
    s.on('data', (d) => reject(new Error(`got data: ${d}`)));
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    s.on('close', () => resolve('closed'));
  });
}

/**
 * The data paths every forwarding test runs on: the C addon (on Linux its own epoll loop), the
 * C addon on libuv's TCP handles (its portable loop, the one macOS and Windows run) and the
 * JavaScript one (uv).
 */
export const DATA_PATHS = ['native', 'native-libuv', 'uv'] as const;
export type DataPath = (typeof DATA_PATHS)[number];

/** The engine's `io` for a test data path (what `stats().io` then says). */
export function ioOf(path: DataPath | 'net'): 'native' | 'uv' | 'net' {
  return path === 'native-libuv' ? 'native' : path;
}

/** The same, and the addon's loop chosen through the environment it reads when it starts. */
export function engineIo(path: DataPath | 'net'): 'native' | 'uv' | 'net' {
  if (path === 'native-libuv') process.env.LBDESK_NATIVE_LOOP = 'uv';
  else delete process.env.LBDESK_NATIVE_LOOP;
  return ioOf(path);
}
