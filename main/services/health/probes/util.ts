// Small helpers shared by the probes: clocks, wording, bounded evidence.
import { performance } from 'node:perf_hooks';
import { DEFAULT_PORTS, type ResolvedType } from '../../../../shared/model/checks';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';

/** A stopwatch in ms with 0.01 ms resolution. */
export function stopwatch(): () => number {
  const t0 = performance.now();
  return () => Math.round((performance.now() - t0) * 100) / 100;
}

/** "300 ms", "1.5 s": the way reasons quote durations. */
export function fmtMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return `${Math.round(ms / 10) / 100} s`;
}

/** Evidence strings stay short: the first line of a banner, the status line. */
export function clip(text: string, max = 200): string {
  const oneLine = text.replace(/[\r\n]+$/, '').replace(/[^\x20-\x7e]/g, (c) => (c === '\t' ? ' ' : '\u00b7'));
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/** `connect ECONNREFUSED`: the syscall and errno of a socket error, the way a user sees it in logs. */
export function errnoReason(err: unknown, fallback = 'error'): { reason: string; evidence: Evidence } {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code;
  if (code) return { reason: `${e.syscall ?? fallback} ${code}`, evidence: { errno: code, ...(e.syscall ? { syscall: e.syscall } : {}) } };
  return { reason: `${fallback}: ${e?.message ?? String(err)}`, evidence: { error: clip(e?.message ?? String(err)) } };
}

export function fail(reason: string, evidence: Evidence = {}, rttMs?: number): ProbeOutcome {
  return rttMs === undefined ? { ok: false, reason, evidence } : { ok: false, reason, evidence, rttMs };
}

export function pass(reason: string, evidence: Evidence = {}, rttMs?: number): ProbeOutcome {
  return rttMs === undefined ? { ok: true, reason, evidence } : { ok: true, reason, evidence, rttMs };
}

/** A failure a probe body throws to end the dialogue with this reason. */
export class ProbeFailure extends Error {
  constructor(readonly reason: string, readonly evidence: Evidence = {}) {
    super(reason);
  }
}

/** Host part of a URL or Host header: IPv6 literals in brackets. */
export function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * Calls `fn` once `ms` have passed and the I/O that was ready by then has been handled. Timers
 * run before the poll phase of a loop turn, so on a busy loop a bare timeout could fire ahead
 * of an answer that had already arrived (a false "timeout", or a false UDP "silence").
 */
export function deadline(ms: number, fn: () => void): { clear(): void } {
  let later: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => {
    later = setImmediate(fn);
  }, ms);
  return {
    clear: () => {
      clearTimeout(timer);
      clearImmediate(later);
    },
  };
}

/** The address a probe connects to: the lab's path to the member, else the member itself. */
export function dialOf(ctx: { address: string; dial?: string }): string {
  return ctx.dial ?? ctx.address;
}

/** Where a probe dials: the member's port, else its check type's well-known one (the descriptor's). */
export function portFor(ctx: Pick<ProbeContext, 'port'>, type: ResolvedType): number {
  return ctx.port ?? DEFAULT_PORTS[type]!;
}
