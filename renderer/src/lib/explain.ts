// "Why is it down?" in words, from what the health checker reported and the timers that apply.
import type { CheckResult, MemberState, MemberStatus, StateChange } from '../../../shared/api/types';
import { detectionWays, PASSIVE_MIN_GAP_MS, type DetectionRange, type ResolvedTimers } from './model';
import { humanMs, rtt } from './format';

/**
 * How a member reached its state: its first check (lab start, enabled, check changed) decides at
 * once; a failed forwarded connection brings checks forward (passive); else scheduled checks.
 */
export type Cause = 'startup' | 'passive' | 'checks';

/** The cause of the current state, read from the timeline: the last change into it and the result that made it. */
export function causeOf(state: MemberState, changes: readonly StateChange[], results: readonly CheckResult[]): Cause | undefined {
  const c = [...changes].reverse().find((x) => x.to === state);
  if (!c) return undefined;
  if (c.from === 'unknown') return 'startup';
  const r = [...results].reverse().find((x) => x.at <= c.at);
  return typeof r?.evidence.trigger === 'string' && r.evidence.trigger.startsWith('reported by the forwarding engine') ? 'passive' : 'checks';
}

export interface Way { id: 'startup' | 'checks' | 'recovery' | 'passive' | 'heartbeat'; label: string; range?: DetectionRange; note: string }

/**
 * Every way a member changes state, with its bound. `forwarded`: a virtual service or target set
 * forwards to it in the lab (only then can a failed connection report it); `heartbeatTtlMs`: its
 * target set listens for heartbeat reports.
 */
export function ways(t: ResolvedTimers, opts: { forwarded?: boolean; heartbeatTtlMs?: number } = {}): Way[] {
  const w = detectionWays(t);
  const gap = Math.min(t.retryInterval, PASSIVE_MIN_GAP_MS);
  const out: Way[] = [
    { id: 'startup', label: 'First check decides', range: w.startup, note: 'At lab start, when enabled or when its check changes: a pass puts it in service at once, a failure takes it out at once (no waiting for fail-after).' },
    { id: 'checks', label: 'Failure noticed by checks', range: w.active.failure, note: `A check every ${humanMs(t.interval)} while up; after a failure, every ${humanMs(t.retryInterval)}; out after ${t.failAfter} in a row.` },
    { id: 'recovery', label: 'Recovery noticed by checks', range: w.active.recovery, note: `While out, a check every ${humanMs(t.retryInterval)}; back after ${t.restoreAfter === 1 ? '1 pass' : `${t.restoreAfter} passes in a row`}.` },
  ];
  if (opts.forwarded) {
    out.push({ id: 'passive', label: 'Failed forwarded connection', range: w.passive, note: `Brings the next check forward (at most one per ${humanMs(gap)}): with connections failing, out after ${t.failAfter} failed ${t.failAfter === 1 ? 'check' : 'checks'}. Only checks change the state.` });
  } else if (opts.forwarded === false) {
    out.push({ id: 'passive', label: 'Failed forwarded connection', note: 'Nothing forwards to it in the lab (no virtual service or target set uses it): only checks.' });
  }
  if (opts.heartbeatTtlMs !== undefined) {
    out.push({ id: 'heartbeat', label: 'Heartbeat report', note: `Changes its load for least load, never its state; a report counts for ${humanMs(opts.heartbeatTtlMs)} (ttl), then the engine's own counts take over.` });
  }
  return out;
}

export interface ExplainContext {
  timers?: ResolvedTimers;
  degradedAboveMs?: number;
  availableBelowMs?: number;
  /** Recovery worst case, for "back in service within …". */
  recoveryWorstMs?: number;
  failureWorstMs?: number;
  /** How it reached its state (causeOf), so the sentence matches the timeline. */
  cause?: Cause;
}

const name = (m: MemberStatus) => `${m.server}${m.port !== undefined ? `:${m.port}` : ''}`;
const check = (m: MemberStatus) => `${m.check.toUpperCase()} check (Layer ${m.layer})`;

export function explain(m: MemberStatus, ctx: ExplainContext = {}): string[] {
  const t = ctx.timers;
  const out: string[] = [];
  const reason = m.reason ? m.reason.replace(/\.$/, '') : '';
  switch (m.state) {
    case 'disabled':
      out.push(`${name(m)} is disabled in the workspace, so it is not checked and receives no traffic.`);
      out.push('Set it to enabled to put it back: it is checked at once and goes up if that first check passes.');
      break;
    case 'unknown':
      out.push(`${name(m)} has not been checked yet.`);
      out.push('The first check decides: a pass puts it in service at once, a failure keeps it out.');
      break;
    case 'unavailable': {
      const n = m.consecutiveFailures;
      if (ctx.cause === 'startup') {
        out.push(`${name(m)} is unavailable: its first ${check(m)} failed (lab start, enabled, or its check changed), and a first check decides at once, without waiting for ${t ? `${t.failAfter} ${t.failAfter === 1 ? 'failure' : 'failures'}` : 'fail-after'}.`);
      } else if (ctx.cause === 'passive' && t) {
        out.push(`${name(m)} is unavailable: a forwarded connection to it failed, which brought its checks forward (at most one per ${humanMs(Math.min(t.retryInterval, PASSIVE_MIN_GAP_MS))}), and ${t.failAfter} failed ${t.failAfter === 1 ? 'check takes' : 'checks in a row take'} a server out of service.`);
      } else if (t && n >= t.failAfter) {
        out.push(`${name(m)} is unavailable: its ${check(m)} failed ${n} ${n === 1 ? 'time' : 'times'} in a row, and ${t.failAfter} ${t.failAfter === 1 ? 'failure takes' : 'failures take'} a server out of service.`);
      } else if (n > 0) {
        out.push(`${name(m)} is unavailable: its ${check(m)} is failing.`);
      } else {
        out.push(`${name(m)} is unavailable.`);
      }
      if (reason) out.push(`Last result: ${reason}.`);
      if (t) {
        const back = ctx.recoveryWorstMs !== undefined ? `, at most ${humanMs(ctx.recoveryWorstMs)} after it is healthy again` : '';
        out.push(`lbdesk checks it every ${humanMs(t.retryInterval)} while it is down; ${t.restoreAfter} ${t.restoreAfter === 1 ? 'pass brings' : 'passes in a row bring'} it back${back}.`);
      }
      if (m.consecutivePasses > 0 && t) out.push(`It has passed ${m.consecutivePasses} of the ${t.restoreAfter} checks it needs.`);
      break;
    }
    case 'degraded': {
      const slow = m.rttMs !== undefined ? `it answered in ${rtt(m.rttMs)}` : 'it answers slowly';
      const above = ctx.degradedAboveMs;
      const below = ctx.availableBelowMs;
      if (m.rttMs !== undefined && above !== undefined && below !== undefined && m.rttMs <= above) {
        // Between the two bars: it went degraded earlier and is not yet fast enough to come back.
        out.push(`${name(m)} is degraded: ${slow}, not yet within the ${humanMs(below)} it needs to be available again (it went degraded answering slower than ${humanMs(above)}). It still takes traffic when no available server is left.`);
        out.push('The lower bar keeps it from flapping between the two states.');
        if (reason) out.push(`Last result: ${reason}.`);
        break;
      }
      const limit = above !== undefined ? `, above the ${humanMs(above)} that makes a server degraded` : '';
      out.push(`${name(m)} is degraded: ${slow}${limit}. It still takes traffic when no available server is left.`);
      if (below !== undefined) {
        out.push(`It becomes available again once it answers within ${humanMs(ctx.availableBelowMs)}; the lower bar keeps it from flapping between the two states.`);
      }
      if (reason) out.push(`Last result: ${reason}.`);
      break;
    }
    case 'available':
      out.push(`${name(m)} is available: ${reason || 'its last check passed'}.`);
      if (ctx.cause === 'startup') out.push('It went in service at its first check: a first pass decides at once.');
      if (m.consecutiveFailures > 0 && t) {
        out.push(`Its last ${m.consecutiveFailures === 1 ? 'check' : `${m.consecutiveFailures} checks`} failed; after ${t.failAfter} failures in a row it is taken out (retrying every ${humanMs(t.retryInterval)}).`);
      }
      break;
  }
  out.push(`Score ${m.score} of 10 (higher is better).`);
  return out;
}
