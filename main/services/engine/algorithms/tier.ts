// The usable tier is shared with the window (its live shares): shared/model/tier.ts.
export { isUsable, usableTier } from '../../../../shared/model/tier';
