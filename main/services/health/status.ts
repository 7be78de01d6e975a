// MemberStatus and StateChange from a member's spec and tracker: the shapes the contract carries.
import type { MemberState, MemberStatus, StateChange } from '../../../shared/api/types';
import type { CheckType } from '../../../shared/model/schema';
import type { MemberSpec } from './members';
import type { Tracker } from './state';

function where(spec: MemberSpec) {
  return {
    key: spec.key,
    ...(spec.group !== undefined ? { group: spec.group } : {}),
    ...(spec.targetSet !== undefined ? { targetSet: spec.targetSet } : {}),
    server: spec.server,
    address: spec.address,
    ...(spec.port !== undefined ? { port: spec.port } : {}),
  };
}

export function statusOf(spec: MemberSpec, t: Tracker): MemberStatus {
  return {
    ...where(spec),
    check: spec.check.type as CheckType,
    layer: spec.check.layer,
    state: t.state,
    score: t.score,
    ...(t.rttMs !== undefined ? { rttMs: t.rttMs } : {}),
    reason: t.reason,
    since: t.since,
    consecutiveFailures: t.consecutiveFailures,
    consecutivePasses: t.consecutivePasses,
  };
}

export function changeOf(spec: MemberSpec, from: MemberState, t: Tracker, at: number): StateChange {
  return { ...where(spec), from, to: t.state, score: t.score, reason: t.reason, at };
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
