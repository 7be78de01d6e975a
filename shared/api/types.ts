// Data shapes that cross the service contract: health, engine and sync views.
import type { CheckType } from '../model/schema';

/** The three vendor states (LDAP proxy seed), plus the two the UI needs before and outside checking. */
export type HealthState = 'available' | 'degraded' | 'unavailable';
export type MemberState = HealthState | 'unknown' | 'disabled';

/**
 * Identifies one checked member. Group members: `g:<group>/<server>:<port|->`;
 * target-set servers: `ts:<number>/<address>`. Built only by `memberKey`.
 */
export type MemberKey = string;
export function memberKey(ref: { group: string; server: string; port?: number } | { targetSet: number; address: string }): MemberKey {
  return 'group' in ref ? `g:${ref.group}/${ref.server}:${ref.port ?? '-'}` : `ts:${ref.targetSet}/${ref.address}`;
}

/** One probe's outcome, with the raw evidence a user needs to see why. */
export interface CheckResult {
  ok: boolean;
  /** Response time in ms (time to the deciding answer), when measured. */
  rttMs?: number;
  /** Why, in words: `HTTP/1.0 200, "OK" found in first 1000 bytes`, `connect ECONNREFUSED`. */
  reason: string;
  /** A pass from a server that says it is degraded (an LDAP server's degraded-alert-type): up, but degraded whatever its response time. */
  degraded?: boolean;
  /** Raw evidence: status line, banner, rcode, errno, timing. Short strings only. */
  evidence: Record<string, string | number | boolean>;
  /** The certificate the server presented (TLS checks: https, ssl), verified or not. */
  certificate?: CertificateSeen;
  /** When the probe started (epoch ms). */
  at: number;
}

/** A server's certificate as a TLS check saw it. */
export interface CertificateSeen {
  /** `CN=web.test, O=Example`. */
  subject: string;
  issuer: string;
  /** Subject alternative names as OpenSSL words them: `DNS:web.test`, `IP Address:127.0.0.1`. */
  sans: string[];
  /** Epoch ms. */
  notBefore: number;
  notAfter: number;
  /** SHA-256 of the DER, upper-case hex pairs joined by colons. */
  sha256: string;
  /** Whole days from the check's time to notAfter (negative once expired). */
  daysLeft: number;
}

export interface MemberStatus {
  key: MemberKey;
  group?: string;
  targetSet?: number;
  server: string;
  address: string;
  port?: number;
  /** Check actually used after `auto` and `protocol` are resolved. */
  check: CheckType;
  layer: 4 | 7;
  state: MemberState;
  /** 1-10, higher is better (see docs/health.md for the formula). */
  score: number;
  rttMs?: number;
  reason: string;
  /** Epoch ms of the last state change. */
  since: number;
  consecutiveFailures: number;
  consecutivePasses: number;
}

export interface StateChange {
  key: MemberKey;
  group?: string;
  targetSet?: number;
  server: string;
  address: string;
  port?: number;
  from: MemberState;
  to: MemberState;
  score: number;
  reason: string;
  at: number;
}
