// UDP Layer 4 (ADX seed 000): a garbage datagram to the port. An ICMP port unreachable
// (ECONNREFUSED on a connected socket) means down; silence until the timeout means up.
import { udpDialogue, unreachable } from './exchange';
import type { ProbeContext, ProbeOutcome } from './types';
import { fail, fmtMs, pass, dialOf } from './util';

const GARBAGE = Buffer.from('lbdesk health check: please ignore\n');

export function udpProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port;
  if (port === undefined) return Promise.resolve(fail('no port to check: UDP Layer 4 needs a member port'));
  return udpDialogue<ProbeOutcome>(dialOf(ctx), port, ctx.timeoutMs, GARBAGE, {
    timeout: () => pass(`no ICMP port unreachable within ${fmtMs(ctx.timeoutMs)} (silence means up)`, { waitedMs: ctx.timeoutMs }),
    // A reply is even better evidence than silence: the port is open and something answered.
    message: (msg, ms) => pass(`reply datagram (${msg.length} bytes) in ${fmtMs(ms)}`, { replyBytes: msg.length }, ms),
    refused: (ms) => {
      const u = unreachable(ms);
      return fail(u.reason, u.evidence, ms);
    },
    error: (reason, evidence) => fail(reason, evidence),
  });
}
