// The probe for each resolved check type. A probe never throws: any surprise is a failed
// check with the error as its reason, so one odd server cannot stop the health checker.
import type { CheckType } from '../../../../shared/model/schema';
import { bannerProbe, rtspProbe, telnetProbe } from './banners';
import { dnsProbe } from './dns';
import { httpProbe } from './http';
import { ldapProbe } from './ldap';
import { mmsProbe, pnmProbe } from './media';
import { pingProbe } from './ping';
import { radiusProbe } from './radius';
import { tcpProbe } from './tcp';
import { sslProbe } from './tls';
import type { Probe, ProbeContext, ProbeOutcome } from './types';
import { udpProbe } from './udp';

export type ProbeType = Exclude<CheckType, 'auto' | 'none'>;
export type { Probe, ProbeContext, ProbeOutcome, Evidence } from './types';

export const PROBES: Record<ProbeType, Probe> = {
  ping: pingProbe,
  tcp: tcpProbe,
  udp: udpProbe,
  http: (ctx) => httpProbe(ctx, false),
  https: (ctx) => httpProbe(ctx, true),
  ssl: sslProbe,
  ftp: (ctx) => bannerProbe('ftp', ctx),
  smtp: (ctx) => bannerProbe('smtp', ctx),
  pop3: (ctx) => bannerProbe('pop3', ctx),
  imap4: (ctx) => bannerProbe('imap4', ctx),
  nntp: (ctx) => bannerProbe('nntp', ctx),
  telnet: telnetProbe,
  rtsp: rtspProbe,
  mms: mmsProbe,
  pnm: pnmProbe,
  ldap: ldapProbe,
  dns: dnsProbe,
  radius: radiusProbe,
};

/** The port a Layer 7 check dials when the member has none: the check descriptors'. */
export { DEFAULT_PORTS } from '../../../../shared/model/checks';

const probeError = (err: unknown): ProbeOutcome => ({
  ok: false,
  reason: `probe error: ${err instanceof Error ? err.message : String(err)}`,
  evidence: { error: String(err).slice(0, 200) },
});

export function runProbe(type: ProbeType, ctx: ProbeContext): Promise<ProbeOutcome> {
  try {
    return PROBES[type](ctx).catch(probeError);
  } catch (err) {
    return Promise.resolve(probeError(err));
  }
}
