// Lab versus appliance, side by side, and every difference beyond what measurement noise
// allows either explained by the render warning that causes it or flagged unexplained.
import type { CompareSide, Difference, FaultComparison, FaultTiming, MemberComparison, ServiceErrors } from '../../../shared/api/compare';
import type { DriverProblem } from '../drivers';
import { PASSIVE_WARNING, TIMING_WARNING } from '../drivers/haproxy-checks';
import type { Plan, PlanService } from './plan';
import { FAULTS, victimOf, type SideResult } from './run';

export interface Comparison {
  members: MemberComparison[];
  faults: FaultComparison[];
  errors: ServiceErrors[];
  differences: Difference[];
}

const fmt = (ms: number | undefined) => (ms === undefined ? 'stayed in service' : `${ms} ms`);
const upFmt = (t: FaultTiming) => (t.downMs === undefined ? 'never out' : t.upMs === undefined ? 'not back in time' : `${t.upMs} ms`);

function warningFor(warnings: DriverProblem[], service: string, test: (m: string) => boolean): string | undefined {
  const w = warnings.find((x) => x.subject === `service ${service}` && test(x.message));
  return w ? `${w.subject}: ${w.message}` : undefined;
}

/**
 * How far apart two timings may be from scheduling alone: where the fault falls between two
 * checks (up to one interval while in service, one retry interval while out), jitter (10 %),
 * polling and loaded cores.
 */
function timeTolerance(s: PlanService, phase: 'down' | 'up'): number {
  const t = s.timers;
  return (phase === 'down' ? t.interval : t.retryInterval) + 150 + 0.1 * Math.max(t.failAfter, t.restoreAfter) * t.retryInterval;
}

const timing = (warnings: DriverProblem[], service: string) => warningFor(warnings, service, (m) => m === TIMING_WARNING);

function compareFault(s: PlanService, member: string, fault: FaultComparison['fault'], lab: FaultTiming, app: FaultTiming, warnings: DriverProblem[]): Difference[] {
  const out: Difference[] = [];
  const tol = timeTolerance(s, 'down');
  const upTol = timeTolerance(s, 'up');
  const timing = warningFor(warnings, s.name, (m) => m === TIMING_WARNING);
  const passive = warningFor(warnings, s.name, (m) => m === PASSIVE_WARNING);
  const degraded = warningFor(warnings, s.name, (m) => /no degraded state/.test(m));
  const base = { service: s.name, member };
  if (lab.degraded && app.downMs === undefined && lab.downMs === undefined) {
    out.push({ ...base, what: `${fault}: state`, lab: 'degraded (in service)', appliance: 'in service', explainedBy: degraded });
  }
  const checksTimeOut = fault === 'stopped' || fault === 'slowed';
  if ((lab.downMs === undefined) !== (app.downMs === undefined)) {
    out.push({ ...base, what: `${fault}: time to down`, lab: fmt(lab.downMs), appliance: fmt(app.downMs) });
  } else if (lab.downMs !== undefined && app.downMs !== undefined) {
    const d = app.downMs - lab.downMs;
    if (Math.abs(d) > tol) {
      let why: string | undefined;
      if (d > 0 && checksTimeOut && d <= s.timers.failAfter * s.timers.timeout + tol) why = timing;
      else if (d > 0 && fault === 'refusing' && d <= s.timers.retryInterval + tol) why = passive;
      out.push({ ...base, what: `${fault}: time to down`, lab: fmt(lab.downMs), appliance: fmt(app.downMs), explainedBy: why });
    }
  }
  if (lab.upMs !== undefined && app.upMs !== undefined) {
    const d = app.upMs - lab.upMs;
    if (Math.abs(d) > upTol) {
      // A check held by a frozen server completes at the repair: lbdesk's next one is due a
      // retry after that check started, HAProxy's a retry after it ended.
      // Each of the restoreAfter passes may come up to a retry interval and a check later.
      const why = d > 0 && d <= s.timers.restoreAfter * (s.timers.retryInterval + s.timers.timeout) + upTol ? timing : undefined;
      out.push({ ...base, what: `${fault}: time to up`, lab: upFmt(lab), appliance: upFmt(app), explainedBy: why });
    }
  } else if (lab.downMs !== undefined && app.downMs !== undefined && (lab.upMs === undefined) !== (app.upMs === undefined)) {
    out.push({ ...base, what: `${fault}: time to up`, lab: upFmt(lab), appliance: upFmt(app) });
  }
  return out;
}

export function compare(plan: Plan, lab: SideResult, app: SideResult, warnings: DriverProblem[]): Comparison {
  const members: MemberComparison[] = [];
  const faults: FaultComparison[] = [];
  const errors: ServiceErrors[] = [];
  const differences: Difference[] = [];
  for (const s of plan.services) {
    const sides: Record<CompareSide, SideResult> = { lab, appliance: app };
    const answered = (side: CompareSide) => (sides[side].traffic.get(s.name) ?? []).filter((o) => o.backend !== undefined);
    const attempts = (side: CompareSide) => (sides[side].traffic.get(s.name) ?? []).length;
    const failed = (side: CompareSide) => attempts(side) - answered(side).length;
    const kinds = (side: CompareSide) => {
      const out: Record<string, number> = {};
      for (const o of sides[side].traffic.get(s.name) ?? []) if (o.error) out[o.error] = (out[o.error] ?? 0) + 1;
      return out;
    };
    errors.push({ service: s.name, errors: { lab: failed('lab'), appliance: failed('appliance') }, attempts: { lab: attempts('lab'), appliance: attempts('appliance') }, kinds: { lab: kinds('lab'), appliance: kinds('appliance') } });

    const victim = victimOf(s);
    const serviceDiffs: Difference[] = [];
    for (const fault of FAULTS) {
      if (!victim || !lab.faults.has(`${s.name}/${fault}`)) continue;
      const l = lab.faults.get(`${s.name}/${fault}`) ?? {};
      const a = app.faults.get(`${s.name}/${fault}`) ?? {};
      faults.push({ service: s.name, member: victim.server, fault, lab: l, appliance: a });
      serviceDiffs.push(...compareFault(s, victim.server, fault, l, a, warnings));
    }

    const scaled = warningFor(warnings, s.name, (m) => /scaled to/.test(m));
    const noDegraded = warningFor(warnings, s.name, (m) => /no degraded state|health-weighted approximated/.test(m));
    // Time out of service differs between the sides when detection does: shares move with it.
    const timingCause = serviceDiffs.find((d) => d.explainedBy)?.explainedBy;
    for (const m of s.members) {
      const n = { lab: answered('lab').filter((o) => o.backend === m.id).length, appliance: answered('appliance').filter((o) => o.backend === m.id).length };
      const tot = { lab: answered('lab').length, appliance: answered('appliance').length };
      const share = { lab: tot.lab ? (100 * n.lab) / tot.lab : 0, appliance: tot.appliance ? (100 * n.appliance) / tot.appliance : 0 };
      members.push({ service: s.name, member: m.server, connections: n, share: { lab: Math.round(share.lab * 10) / 10, appliance: Math.round(share.appliance * 10) / 10 } });
      // Sampling noise of a share over this many connections (3 sigma), plus 3 points.
      const p = Math.max(share.lab, share.appliance) / 100;
      const tol = 300 * Math.sqrt((p * (1 - p)) / Math.max(1, Math.min(tot.lab, tot.appliance))) + 3;
      if (Math.abs(share.lab - share.appliance) > tol) {
        serviceDiffs.push({ service: s.name, member: m.server, what: 'share of connections', lab: `${share.lab.toFixed(1)} %`, appliance: `${share.appliance.toFixed(1)} %`, explainedBy: scaled ?? noDegraded ?? timingCause });
      }
    }
    // A refusing member is the lab's promise: redispatched, no client sees it. Any client
    // error on the appliance in that window while the lab had none is a difference.
    const refusedErrors = (side: CompareSide) => {
      const w = sides[side].windows?.get('refusing');
      return w ? (sides[side].traffic.get(s.name) ?? []).filter((o) => o.backend === undefined && o.at >= w[0] && o.at <= w[1]).length : 0;
    };
    if (victim && refusedErrors('lab') === 0 && refusedErrors('appliance') > 0) {
      serviceDiffs.push({ service: s.name, member: victim.server, what: 'refusing: connection errors', lab: '0', appliance: String(refusedErrors('appliance')) });
    }
    const e = errors.at(-1)!;
    const errTol = 3 + 0.02 * Math.max(e.attempts.lab, e.attempts.appliance);
    if (Math.abs(e.errors.lab - e.errors.appliance) > errTol) {
      // Clients keep reaching a broken member until it is taken out: the side that took longer
      // (summed over the faults) sends more of them there.
      const later = faults.filter((f) => f.service === s.name).reduce((sum, f) => sum + ((f.appliance.downMs ?? 0) - (f.lab.downMs ?? 0)), 0);
      const why = (later > 0) === (e.errors.appliance > e.errors.lab) ? timingCause ?? timing(warnings, s.name) : undefined;
      serviceDiffs.push({ service: s.name, what: 'connection errors', lab: String(e.errors.lab), appliance: String(e.errors.appliance), explainedBy: why });
    }
    differences.push(...serviceDiffs);
  }
  return { members, faults, errors, differences };
}
