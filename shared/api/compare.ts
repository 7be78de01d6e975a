// `lbdesk compare`: the same scenario through lbdesk's lab and through the appliance's own
// software on loopback, side by side. Plain data, shared by the CLI and the app.

export type CompareSide = 'lab' | 'appliance';
export type FaultKind = 'stopped' | 'slowed' | 'wrong-content' | 'refusing';

/** What one side showed for one fault on one member. */
export interface FaultTiming {
  /** ms from the fault to the member out of service; undefined: it stayed in service. */
  downMs?: number;
  /** ms from the repair to the member back in service; undefined: it never left or did not return in time. */
  upMs?: number;
  /** The lab only: it went degraded (still in service). */
  degraded?: boolean;
}

export interface MemberComparison {
  service: string;
  member: string;
  /** Share of the service's answered connections, in percent, per side. */
  share: Record<CompareSide, number>;
  connections: Record<CompareSide, number>;
}

export interface FaultComparison {
  service: string;
  member: string;
  fault: FaultKind;
  lab: FaultTiming;
  appliance: FaultTiming;
}

export interface ServiceErrors {
  service: string;
  /** Client connections that got no answer (refused, reset, timed out), per side. */
  errors: Record<CompareSide, number>;
  attempts: Record<CompareSide, number>;
  /** What the failed clients saw (`ECONNRESET`, `timeout`…) and how often, per side. */
  kinds: Record<CompareSide, Record<string, number>>;
}

/** One difference beyond the tolerance, and the driver warning that explains it (or none). */
export interface Difference {
  service: string;
  member?: string;
  what: string;
  lab: string;
  appliance: string;
  /** The render warning that causes it; undefined: unexplained. */
  explainedBy?: string;
}

export interface CompareReport {
  workspace: string;
  appliance: string;
  driver: string;
  /** Address and port changes made for the run (`127.0.0.21:8081 -> 127.88.1.1:40001`). */
  remapped: string[];
  /** Services left out of the run, each with why. */
  skipped: { service: string; reason: string }[];
  /** The render's warnings, `subject: message`. */
  warnings: string[];
  members: MemberComparison[];
  faults: FaultComparison[];
  errors: ServiceErrors[];
  differences: Difference[];
  unexplained: number;
  /** Wall time of the whole run, ms. */
  durationMs: number;
}
