// TLS for `ssl` (the handshake is the check) and `https` (the HTTP check over TLS).
// Certificates are only judged when `tls.verify` is set: a lab server's self-signed
// certificate should not make it "down", but the evidence always says what was presented.
import net from 'node:net';
import type tls from 'node:tls';
import type { Conn } from './conn';
import { dialogue } from './conn';
import type { Evidence, PeerCertificate, ProbeContext, ProbeOutcome } from './types';
import { ProbeFailure, fail, fmtMs, pass, dialOf, portFor } from './util';

export function tlsOptions(ctx: ProbeContext, hostHeader?: string): tls.ConnectionOptions {
  const hostName = hostHeader?.replace(/:\d+$/, '');
  const name = ctx.check.tls?.serverName ?? (hostName && net.isIP(hostName) === 0 ? hostName : undefined);
  // rejectUnauthorized is off so that the verdict (and its evidence) is ours, after the handshake.
  return { rejectUnauthorized: false, ...(name ? { servername: name } : {}) };
}

export function tlsVerdict(ctx: ProbeContext, c: Conn): { ok: boolean; reason: string; evidence: Evidence } {
  const evidence = c.tlsEvidence();
  if (ctx.check.tls?.verify && evidence.authorized !== true) {
    return { ok: false, reason: `certificate not trusted: ${String(evidence.authorizationError ?? 'unknown reason')}`, evidence };
  }
  return { ok: true, reason: '', evidence };
}

/** The outcome with the certificate seen, when the handshake got that far (a later failure keeps it). */
export function withCertificate(o: ProbeOutcome, cert: PeerCertificate | undefined): ProbeOutcome {
  return cert ? { ...o, certificate: cert } : o;
}

export function sslProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = portFor(ctx, 'ssl');
  let cert: PeerCertificate | undefined;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    cert = c.certificate();
    const v = tlsVerdict(ctx, c);
    if (!v.ok) return fail(v.reason, v.evidence, c.handshakeMs);
    const ms = c.handshakeMs ?? c.elapsed();
    return pass(`TLS handshake in ${fmtMs(ms)} (${String(v.evidence.tlsProtocol)}, ${String(v.evidence.cipher)})`, { ...v.evidence, connectMs: c.connectMs ?? 0 }, ms);
  }, { tls: tlsOptions(ctx) }).then((r) => withCertificate(r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r, cert));
}
