// `lbdesk whatif` and `lab.whatif`: what a site keeps when servers, members, groups or HA boxes
// fail, worked out offline from the workspace (main/services/whatif). Also `lab.replay`: a
// member's recorded check history replayed under other timers.

/** One thing named to fail, as it was understood. */
export interface WhatIfFailure {
  /** As the user wrote it. */
  name: string;
  kind: 'server' | 'member' | 'group' | 'address' | 'box';
  /** Member keys it takes out (memberKey). */
  members: string[];
  /** Appliances it takes out (a box: the appliance and the keepalived that carries its VRRP). */
  appliances: string[];
}

export interface WhatIfMember {
  key: string;
  /** `GROUP/SERVER:PORT` for a service, the address for a target set. */
  name: string;
  weight: number;
  /** `failed`: named (or part of what was named); `disabled`: out of service in the workspace; `weight 0`: takes no new connections. */
  state: 'left' | 'failed' | 'disabled' | 'weight 0';
  /** Share of new connections, 0-1 (members left only; 0 for the others). */
  share: number;
}

/** Clients that stay on one member (client-ip persistence, source hashing) whose member failed. */
export interface WhatIfMoves {
  /** Why clients stay: `client-ip persistence`, `source hash`. */
  by: string;
  /** Of `clients` simulated clients, how many were on a failed member and chose again. */
  moved: number;
  clients: number;
  /** Where the moved ones went, by member name. */
  to: Record<string, number>;
}

export interface WhatIfPool {
  /** The forwarding engine's pool id: `svc:<name>`, `ts:<number>`. */
  pool: string;
  kind: 'service' | 'targetSet';
  /** The service's name, or `target set N`. */
  name: string;
  algorithm: string;
  persistence: string;
  /** Members that can take new connections with the failures, of how many configured. */
  left: number;
  total: number;
  /** Members that could take new connections before the failures. */
  before: number;
  members: WhatIfMember[];
  moves?: WhatIfMoves;
  /** Appliances that serve it (its `include`), and whether every one of them failed. */
  unserved?: string;
  /** No member left, or no appliance left to serve it. */
  none: boolean;
}

export interface WhatIfTakeover {
  pair: string;
  instance: number;
  address: string;
  /** What the address is: `service web-vip`, `target set 1`. */
  from: string;
  failed: string;
  /** The mate that carries it now, or absent when both boxes failed (the address is lost). */
  to?: string;
}

export interface WhatIfReport {
  workspace: string;
  failed: WhatIfFailure[];
  /** Services and target sets, those with no member left first. */
  pools: WhatIfPool[];
  takeovers: WhatIfTakeover[];
  /** Connections simulated per pool to measure shares (0: shares not measured, members counted only). */
  simulated: number;
  /** Assumptions and things left out (disabled services, SCTP-only sets). */
  notes: string[];
}

/** Px timers to replay a history under (any left out: the member's own). */
export interface ReplayTimers {
  interval: number;
  retryInterval: number;
  failAfter: number;
  restoreAfter: number;
  timeout: number;
}

export interface ReplayChange {
  at: number;
  from: string;
  to: string;
  reason: string;
}

export interface ReplayRun {
  timers: ReplayTimers;
  /** Checks the run made (the recorded ones for the recorded run). */
  checks: number;
  changes: ReplayChange[];
  /** Time the member was in service while its checks failed, summed over failures (ms). */
  servedWhileFailingMs: number;
  /** Time it was out of service while its checks passed (ms). */
  outWhilePassingMs: number;
  /** Per failure: when it began (first failed result), when the run took the member out (absent: never). */
  failures: { began: number; detected?: number; afterMs?: number }[];
}

export interface ReplayReport {
  member: string;
  /** Where the history came from: `lab history (JSON)`, `HAProxy log`. */
  source: string;
  results: number;
  start: number;
  end: number;
  recorded: ReplayRun;
  replayed: ReplayRun;
}
