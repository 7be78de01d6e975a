// What every probe gets and gives back.
import type { CertificateSeen } from '../../../../shared/api/types';
import type { HealthCheck } from '../../../../shared/model/schema';
import type { SecretStore } from '../../secrets/types';
import type { TcpPool } from './tcp-pool';

export type Evidence = Record<string, string | number | boolean>;

/** A certificate as presented; the health checker adds the days left at the check's time. */
export type PeerCertificate = Omit<CertificateSeen, 'daysLeft'>;

export interface ProbeContext {
  address: string;
  port?: number;
  /** Where to connect when it is not `address`: the lab's path to the member (a fault proxy). Secrets and names still follow `address`. */
  dial?: string;
  /** The probe's deadline: it must have settled (and released its sockets) by then. */
  timeoutMs: number;
  /** The group's (or target set's) check settings: http, tls, ldap, dns, radius. */
  check: HealthCheck;
  secrets: SecretStore;
  /** argv prefix for ICMP echo (default ['ping']); the address and options are appended. */
  pingCommand?: string[];
  /** Threads for TCP Layer 4 handshakes (the health checker's, when it runs many members). */
  tcpThreads?: TcpPool;
}

/** One probe's outcome; the health checker adds the start time to make a CheckResult. */
export interface ProbeOutcome {
  ok: boolean;
  /** Time to the deciding answer in ms, when there is one. */
  rttMs?: number;
  /** Why, in words. */
  reason: string;
  /** A pass from a server that flags itself degraded (see CheckResult.degraded). */
  degraded?: boolean;
  /** Raw evidence: status line, banner, rcode, errno, timing. Short values only. */
  evidence: Evidence;
  /** The server's certificate (TLS checks), once the handshake is done. */
  certificate?: PeerCertificate;
  /** A TCP Layer 4 outcome's numbers: reason and evidence follow from them (history keeps only these). */
  tcp?: { status: number; ms: number; timeoutMs: number };
  /** Time the probe waited for a probe thread before it started: the health checker counts it as lateness. */
  waitMs?: number;
}

export type Probe = (ctx: ProbeContext) => Promise<ProbeOutcome>;
