// "Why is it down?" in words, from what the engine reported and the timers that apply.
import type { MemberStatus } from '../../../shared/api/types';
import type { ResolvedTimers } from '../model';
import { humanMs, rtt } from './format';

export interface ExplainContext {
  timers?: ResolvedTimers;
  degradedAboveMs?: number;
  availableBelowMs?: number;
  /** Recovery worst case, for "back in service within …". */
  recoveryWorstMs?: number;
  failureWorstMs?: number;
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
      if (t && n >= t.failAfter) {
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
      if (m.consecutiveFailures > 0 && t) {
        out.push(`Its last ${m.consecutiveFailures === 1 ? 'check' : `${m.consecutiveFailures} checks`} failed; after ${t.failAfter} failures in a row it is taken out (retrying every ${humanMs(t.retryInterval)}).`);
      }
      break;
  }
  out.push(`Score ${m.score} of 10 (higher is better).`);
  return out;
}
