// MemberStatus and StateChange from a member's spec and tracker: the shapes the contract carries.
import type { MemberState, MemberStatus, StateChange } from '../../../shared/api/types';
import type { CheckType } from '../../../shared/model/schema';
import type { MemberSpec } from './members';
import type { Tracker } from './state';

type Where = Pick<MemberStatus, 'key' | 'group' | 'targetSet' | 'server' | 'address' | 'port'>;

/**
 * Built by assignment, not by spreading conditional parts: V8 gave each object made by those
 * spreads a hidden class of its own (40,000 of them for 20,000 members); this way objects of
 * the same kind of member share one.
 */
function where<T extends Where>(spec: MemberSpec, out: T): T {
  out.key = spec.key;
  if (spec.group !== undefined) out.group = spec.group;
  if (spec.targetSet !== undefined) out.targetSet = spec.targetSet;
  out.server = spec.server;
  out.address = spec.address;
  if (spec.port !== undefined) out.port = spec.port;
  return out;
}

export function statusOf(spec: MemberSpec, t: Tracker): MemberStatus {
  const s = where(spec, {} as MemberStatus);
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
  const c = where(spec, {} as StateChange);
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
