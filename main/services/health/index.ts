// The health checker: public surface for the app, the CLI and the forwarding engine.
export { HealthChecker, type HealthCheckerOptions, type CheckerStats } from './checker';
export { realClock, type Clock, type TimerHandle } from './clock';
export { detectionTimes, type DetectionTimes, type DetectionRange, type DetectionTimers } from '../../../shared/model/detection';
export { membersOf, type MemberSpec } from './members';
export { runProbe, PROBES, DEFAULT_PORTS, type ProbeType, type ProbeContext, type ProbeOutcome } from './probes';
export { scoreOf } from './score';
export { applyResult, initialTracker, type Tracker, type Step } from './state';
export type { HealthView } from './types';
