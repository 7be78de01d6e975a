// The renderer's one door to the shared workspace model: the vendor rules, ranges and formulas
// the editors show. Nothing here is reimplemented; it all comes from shared/model. (The YAML
// document and validation live in the document worker, document/document.ts, off the UI thread.)
export { CHECK_TYPES, L7_PROTOCOLS, ALGORITHMS, IPFE_NAMES, DRIVERS, SECTION_DRIVERS, type CheckType, type IpfeName, type Workspace } from '../../../shared/model/schema';
export { parseDuration, formatDuration } from '../../../shared/model/duration';
export { resolveTimers, resolveCheck, groupTransport, layerOf, DEFAULT_TIMERS, TIMER_NAMES, type ResolvedTimers, type ResolvedCheck, type TimerName, type TimerSource } from '../../../shared/model/resolve';
export { detectionTimes, detectionWays, PASSIVE_MIN_GAP_MS, type DetectionTimes, type DetectionRange, type DetectionWays } from '../../../shared/model/detection';
export { ipfeMate, normaliseFactorValues, INITIATOR_PORT_RANGE, targetSetIncludeName, parseTargetSetIncludeName } from '../../../shared/model/ipfe';
export { formatProblem, formatPath, type Problem, type PathSegment } from '../../../shared/model/problem';
export { OPTION_TYPES, type OptionBlock } from '../../../shared/model/checks';
