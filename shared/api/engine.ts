// What the forwarding engine reports: its events (the `serve --events` lines) and its stats.
// Pure types: both the engine (main) and the UI (renderer) read them.
import type { MemberState } from './types';

/** Where a listener or a connection belongs: a virtual service or an IPFE target set. */
export interface PoolRef {
  service?: string;
  targetSet?: number;
}

/** Upper bounds in ms of the connect-time histogram; the last bucket is everything above. */
export const CONNECT_BUCKETS_MS = [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] as const;

export type EngineEvent =
  /** A listener accepts connections (TCP) or datagrams (UDP). */
  | ({ ts: string; type: 'listening'; address: string; port: number; protocol: 'tcp' | 'udp' } & PoolRef)
  /** A listener stopped accepting (removed by a reload, or the engine stopped). */
  | ({ ts: string; type: 'closed'; address: string; port: number; protocol: 'tcp' | 'udp' } & PoolRef)
  /**
   * A member's health state changed (first result included, `from` = `unknown`). A transition a
   * lab fault caused (or its clear) carries the fault and how long it took (`FaultMeasure`).
   */
  | ({
      ts: string; type: 'state'; group?: string; targetSet?: number; server: string; address: string; port?: number;
      from: MemberState; to: MemberState; score: number; reason: string;
    } & Partial<FaultMeasure>)
  /** A fault on the lab's path to a member was applied (`via`: the path's address the lab dials instead). */
  | { ts: string; type: 'fault'; member: string; fault: string; value?: string; via: string }
  /** A member's fault was cleared: the lab dials the real server again (`reason` when the lab cleared it itself). */
  | { ts: string; type: 'clear'; member: string; fault: string; reason?: string }
  /** `serve --scenario`: one expected transition, passed or failed. */
  | { ts: string; type: 'expect'; member: string; state: MemberState; withinMs: number; ok: boolean; afterMs?: number; line: number; reason: string }
  /** A workspace was applied (SIGHUP, engine.apply); `ok: false` keeps the previous config running. */
  | { ts: string; type: 'reload'; ok: boolean; reason?: string; added?: number; removed?: number; kept?: number }
  /** Connections refused because no server could take them (`count` when several are merged). */
  | ({ ts: string; type: 'refused'; client?: string; reason: string; count: number } & PoolRef)
  /** A connect to a server failed; the connection went to another server (or was refused if none was left). */
  | ({ ts: string; type: 'redispatch'; client?: string; server: string; address: string; port: number; reason: string; to?: string; count: number } & PoolRef)
  /** Something the user should know about the configuration (e.g. SCTP is not forwarded locally). */
  | ({ ts: string; type: 'notice'; message: string } & PoolRef)
  /** A problem that is not a single connection's (bind failure, worker restart). */
  | ({ ts: string; type: 'error'; message: string } & PoolRef)
  /** Periodic stats (`serve --events --stats N`). */
  | { ts: string; type: 'stats'; stats: EngineStats }
  /** `serve --ui`: the URL of the UI, with its access token. */
  | { ts: string; type: 'ui'; url: string }
  /** The engine stopped. */
  | { ts: string; type: 'stopped'; reason: string }
  /**
   * An HA pair in the lab (docs/ha.md): a box stopped or started (`box`), or an instance's
   * addresses moved (`instance`, `addresses`, from box `from` to box `to`), with the reason.
   */
  | {
      ts: string; type: 'pair'; pair: string; change: 'stopped' | 'started' | 'takeover' | 'giveback' | 'master';
      box: string; instance?: number; addresses?: string[]; from?: string; reason: string; afterMs?: number;
    };

/** Every fault the lab puts on its path to a member (docs/cli.md, "Lab faults"). */
export const FAULT_KINDS = ['delay', 'refuse', 'blackhole', 'reset-after', 'http-status', 'flap', 'drop', 'unreachable'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault in force, shown on its member. */
export interface LabFault {
  key: string;
  /** As typed: `web/web1:8081`. */
  member: string;
  fault: FaultKind;
  value?: string;
}

/** A transition caused by a lab fault, against the detection-time calculator's bounds (ms). */
export interface FaultMeasure {
  fault: string;
  /** From the fault (or its clear, or a flap's flip) to the transition. */
  detectedMs: number;
  /** [best, worst] for the member's timers (shared/model/detection.ts). */
  bound: [number, number];
  /** false: outside the bound by more than scheduling slack — a defect in the checker or the calculator. */
  withinBound: boolean;
}

/** A pair as the lab runs it: each box, whether it runs, and which instances' addresses it holds. */
export interface PairStatus {
  name: string;
  nopreempt: boolean;
  /** How long the mate waits for a silent master before taking over (3 adverts + skew). */
  takeoverBoundMs: number;
  boxes: { appliance: string; ipfe?: string; up: boolean; holds: { instance: number; addresses: string[] }[]; own?: string }[];
}

export type EngineEventType = EngineEvent['type'];

/** Bytes are counted as seen by the engine: `in` from clients, `out` to clients. */
export interface TrafficCounters {
  /** Connections (TCP) or flows (UDP) open now, including those still connecting. */
  active: number;
  /** Connections or flows since the engine started. */
  total: number;
  bytesIn: number;
  bytesOut: number;
  /** Failed connects, resets and write errors. */
  errors: number;
}

export interface ServerStats extends TrafficCounters {
  key: string;
  server: string;
  address: string;
  port?: number;
  weight: number;
  state: MemberState;
  score: number;
  /** No new connections (disabled, or removed by a reload) while existing ones finish. */
  draining: boolean;
  /** Counts per CONNECT_BUCKETS_MS bucket, plus one for everything slower. */
  connectMs: number[];
  /** IPFE least load: the inputs of L(m,c) and its value, when the pool uses least-load. */
  load?: { m: number; mtotal: number; c: number; ctotal: number; L: number; source: 'agent' | 'engine' };
}

export interface PoolStats extends TrafficCounters, PoolRef {
  kind: 'service' | 'targetSet';
  name: string;
  algorithm: string;
  /** Connections refused because no server could take them. */
  refused: number;
  /** Connects retried on another server. */
  redispatched: number;
  servers: ServerStats[];
}

export interface ListenerStats extends PoolRef {
  address: string;
  port: number;
  protocol: 'tcp' | 'udp';
}

export interface EngineStats {
  /** Epoch ms of the snapshot. */
  at: number;
  uptimeMs: number;
  /** The data path's thread (worker_threads threadId); the controller is 0. */
  threadId: number;
  /** The data path in use: `native` (the C addon) or the JavaScript one on `uv` (libuv handles) or `net` (node:net streams). */
  io: 'native' | 'uv' | 'net';
  listeners: ListenerStats[];
  pools: PoolStats[];
}

export interface ApplyResult {
  ok: boolean;
  /** Why the apply failed, in one sentence (the previous config keeps running). */
  reason?: string;
  added: number;
  removed: number;
  kept: number;
  notices: string[];
}
