// IPFE target-set rules from the Oracle manual (seed 003) that are not plain ranges.
import type { IpfeName } from './schema';

const MATES: Readonly<Record<IpfeName, IpfeName>> = { A1: 'A2', A2: 'A1', B1: 'B2', B2: 'B1' };

/** The mate that takes over when an IPFE fails: A1<->A2, B1<->B2; it is the preferred standby. */
export function ipfeMate(name: IpfeName): IpfeName {
  return MATES[name];
}

/** Ports the DA-MPs use for connections they initiate (read-only in the vendor UI). */
export const INITIATOR_PORT_RANGE = { min: 16384, max: 49151 } as const;

/**
 * Fm and Fc as the vendor stores them: "the total Fm + Fc will be normalized to 100 on commit".
 * Integers, Fm rounded, Fc the rest; undefined when both are 0 (nothing to apportion).
 */
/** Fm and Fc when not given (seed 003). */
export const DEFAULT_FACTOR = 50;

export function normaliseFactorValues(mpsFactor: number, connectionFactor: number): { mpsFactor: number; connectionFactor: number } | undefined {
  const sum = mpsFactor + connectionFactor;
  if (!(sum > 0)) return undefined;
  const fm = Math.round((mpsFactor * 100) / sum);
  return { mpsFactor: fm, connectionFactor: 100 - fm };
}

/** The canonical name an appliance's `include` list uses for a target set: `ts1`. */
export function targetSetIncludeName(n: number): string {
  return `ts${n}`;
}

const TARGET_SET_RE = /^(?:ts|target-?set)-?(\d{1,2})$/i;

/** The target-set number an include name refers to (`ts1`, `ts-1`, `target-set-1`), if any. */
export function parseTargetSetIncludeName(name: string): number | undefined {
  const m = TARGET_SET_RE.exec(name);
  return m ? Number(m[1]) : undefined;
}
