// Server choice: pure functions over a snapshot of states and counters (see docs/engine.md).
export type { Candidate, Memory } from './types';
export { newMemory } from './types';
export { isUsable, usableTier } from '../../../../shared/model/tier';
export { roundRobin } from './round-robin';
export { smoothWeighted, pruneCurrent } from './weighted';
export { leastConnections } from './least-connections';
export { healthWeighted, healthWeight } from './health-weighted';
export { hash32, fmix32, clientHash, rendezvous, rendezvousScore } from './hash';
export { leastLoad, loadOf, normaliseFactors, withinDeviation, peerSpread, type LoadCandidate, type LeastLoadParams } from './least-load';
