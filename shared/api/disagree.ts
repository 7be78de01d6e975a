// Where the box and the lab disagree about a member: one has it serving and the other not (checks
// only: a member in maintenance, unchecked, unknown to the box or disabled in the lab is no case).
// One rule for the Operate view and `lbdesk state --lab`.
import type { LiveMember } from './operate';
import type { MemberState } from './types';

export function disagreement(m: Pick<LiveMember, 'health' | 'admin' | 'check'>, lab?: { state: MemberState | string; reason: string }): string | undefined {
  if (!lab || m.health === 'unknown' || m.health === 'no-check' || m.admin === 'maint' || lab.state === 'disabled') return undefined;
  if (m.health === 'up' && lab.state === 'unavailable') return `the box has it up, the lab unavailable (${lab.reason})`;
  if (m.health === 'down' && (lab.state === 'available' || lab.state === 'degraded')) return `the box has it down${m.check ? ` (${m.check})` : ''}, the lab ${lab.state}`;
  return undefined;
}
