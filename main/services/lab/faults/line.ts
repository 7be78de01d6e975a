// One line of the lab's fault language (docs/cli.md, "Lab faults"): `fault MEMBER KIND [VALUE]`,
// `clear MEMBER`, `clear all`. Pure: serve's stdin and scenario files read it the same way.
import type { FaultKind } from '../../../../shared/api/engine';
import { formatDuration, parseDuration } from '../../../../shared/model/duration';

export type { FaultKind };

export interface Fault {
  kind: FaultKind;
  /** As shown in events: `1500ms`, `512`, `503`. */
  value?: string;
  /** delay, flap: milliseconds; reset-after: bytes; http-status: the status code. */
  n?: number;
}

export type FaultLine = { op: 'fault'; member: string; fault: Fault } | { op: 'clear'; member: string };

/** Which kinds a TCP member and a UDP member take. */
export const TCP_FAULTS: readonly FaultKind[] = ['delay', 'refuse', 'blackhole', 'reset-after', 'http-status', 'flap'];
export const UDP_FAULTS: readonly FaultKind[] = ['drop', 'unreachable', 'delay', 'flap'];
const TAKES_DURATION = new Set<FaultKind>(['delay', 'flap']);
const KINDS = new Set<string>([...TCP_FAULTS, ...UDP_FAULTS]);

export const FAULT_USAGE = 'use "fault MEMBER delay DUR|refuse|blackhole|reset-after BYTES|http-status CODE|flap DUR|drop|unreachable", "clear MEMBER" or "clear all"';

/** The line's words as a fault or a clear, or why not (undefined: not a fault line at all). */
export function parseFaultLine(words: string[]): FaultLine | { error: string } | undefined {
  const [op, member, kind, value, ...extra] = words;
  if (op === 'clear') {
    if (!member || kind !== undefined) return { error: 'use "clear MEMBER" or "clear all"' };
    return { op: 'clear', member };
  }
  if (op !== 'fault') return undefined;
  if (!member || !kind) return { error: FAULT_USAGE };
  if (!KINDS.has(kind)) return { error: `"${kind}" is not a fault: ${FAULT_USAGE}` };
  const k = kind as FaultKind;
  if (extra.length > 0) return { error: `one value after ${k}, not "${[value, ...extra].join(' ')}"` };
  const fault = faultValue(k, value);
  return 'error' in fault ? fault : { op: 'fault', member, fault };
}

function faultValue(kind: FaultKind, value: string | undefined): Fault | { error: string } {
  if (TAKES_DURATION.has(kind)) {
    const ms = value === undefined ? undefined : parseDuration(value);
    if (ms === undefined || ms <= 0 || ms > 3_600_000) return { error: `${kind} needs a duration from 1ms to 1h (e.g. 1500ms, 2s), not ${value === undefined ? 'nothing' : `"${value}"`}` };
    return { kind, value: formatDuration(ms), n: ms };
  }
  if (kind === 'reset-after') {
    const n = value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
    if (n === undefined) return { error: `reset-after needs a number of bytes (0 or more), not ${value === undefined ? 'nothing' : `"${value}"`}` };
    return { kind, value: String(n), n };
  }
  if (kind === 'http-status') {
    const n = value !== undefined && /^[1-5]\d\d$/.test(value) ? Number(value) : undefined;
    if (n === undefined) return { error: `http-status needs a status code from 100 to 599, not ${value === undefined ? 'nothing' : `"${value}"`}` };
    return { kind, value: String(n), n };
  }
  if (value !== undefined) return { error: `${kind} takes no value, not "${value}"` };
  return { kind };
}
