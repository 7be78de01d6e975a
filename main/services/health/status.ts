// MemberStatus and StateChange from a member's spec and tracker: the shapes the contract carries.
import type { MemberState, MemberStatus, StateChange } from '../../../shared/api/types';
import type { CheckType } from '../../../shared/model/schema';
import { copyWhere, type MemberSpec } from './members';
import type { Tracker } from './state';

export function statusOf(spec: MemberSpec, t: Tracker): MemberStatus {
  const s = copyWhere(spec, {} as MemberStatus);
  s.check = spec.check.type as CheckType;
  s.layer = spec.check.layer;
  s.state = t.state;
  s.score = t.score;
  if (t.rttMs !== undefined) s.rttMs = t.rttMs;
  s.reason = t.reason;
  s.since = t.since;
  s.consecutiveFailures = t.consecutiveFailures;
  s.consecutivePasses = t.consecutivePasses;
  return s;
}

export function changeOf(spec: MemberSpec, from: MemberState, t: Tracker, at: number): StateChange {
  const c = copyWhere(spec, {} as StateChange);
  c.from = from;
  c.to = t.state;
  c.score = t.score;
  c.reason = t.reason;
  c.at = at;
  return c;
}

/** The state of a member that is not probed: disabled, unchecked by choice, or misconfigured. */
export function fixedTracker(spec: MemberSpec, now: number): Tracker | undefined {
  if (spec.disabled) return { state: 'disabled', consecutiveFailures: 0, consecutivePasses: 0, reason: spec.disabled, since: now, score: 1 };
  if (spec.problem) return { state: 'unavailable', consecutiveFailures: 0, consecutivePasses: 0, reason: spec.problem, since: now, score: 1 };
  if (spec.check.type === 'none') {
    return { state: 'available', consecutiveFailures: 0, consecutivePasses: 0, reason: 'health checks off (type none): always in service', since: now, score: 10 };
  }
  return undefined;
}
