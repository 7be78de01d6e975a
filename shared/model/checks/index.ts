// Check types: one descriptor per type (descriptors.ts), the tables derived from them
// (tables.ts), and the rules of which settings can apply (rules.ts).
export * from './descriptors';
export * from './tables';
export type { CheckDescriptor, Dialogue, OptionBlockDescriptor, OptionField, ReplyShape } from './types';
export { checkHealthCheck, transportOf, type CheckReport, type CheckedMember, type Users } from './rules';
