// What the forwarding engine and the contract see of the health checker.
import type { MemberKey, MemberStatus, StateChange, CheckResult } from '../../../shared/api/types';

export interface HealthEvents {
  change: StateChange;
  /** `change`: the transition this result made, if it made one (also told as `change`). */
  result: { key: MemberKey; result: CheckResult; change?: StateChange };
}

export interface HealthView {
  status(key: MemberKey): MemberStatus | undefined;
  all(): MemberStatus[];
  /**
   * `change`: every transition, including each member's first result (from `unknown`);
   * `result`: every check result, after the member's state took it in.
   */
  on<E extends keyof HealthEvents>(event: E, listener: (payload: HealthEvents[E]) => void): () => void;
  /** Passive -> active: the forwarding engine saw a failed connection; check now. */
  reportFailure(key: MemberKey, reason: string): void;
}
