// What the forwarding engine and the contract see of the health engine.
import type { MemberKey, MemberStatus, StateChange, CheckResult } from '../../../shared/api/types';

export interface HealthView {
  status(key: MemberKey): MemberStatus | undefined;
  all(): MemberStatus[];
  /** Called on every transition, including each member's first result (from `unknown`). */
  onChange(listener: (change: StateChange) => void): () => void;
  onResult(listener: (key: MemberKey, result: CheckResult) => void): () => void;
  /** Passive -> active: the forwarding engine saw a failed connection; check now. */
  reportFailure(key: MemberKey, reason: string): void;
}
