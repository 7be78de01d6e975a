// UDP Layer 4 (ADX seed 000): a garbage datagram to the port. An ICMP port unreachable
// (ECONNREFUSED on a connected socket) means down; silence until the timeout means up.
import dgram from 'node:dgram';
import net from 'node:net';
import type { ProbeContext, ProbeOutcome } from './types';
import { deadline, errnoReason, fail, fmtMs, pass, stopwatch } from './util';

const GARBAGE = Buffer.from('lbdesk health check: please ignore\n');

export function udpProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port;
  if (port === undefined) return Promise.resolve(fail('no port to check: UDP Layer 4 needs a member port'));
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    const socket = dgram.createSocket(net.isIPv6(ctx.address) ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      timer.clear();
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(outcome);
    };
    const timer = deadline(ctx.timeoutMs, () => {
      finish(pass(`no ICMP port unreachable within ${fmtMs(ctx.timeoutMs)} (silence means up)`, { waitedMs: ctx.timeoutMs }));
    });
    // A reply is even better evidence than silence: the port is open and something answered.
    socket.on('message', (msg) => {
      const ms = elapsed();
      finish(pass(`reply datagram (${msg.length} bytes) in ${fmtMs(ms)}`, { replyBytes: msg.length }, ms));
    });
    socket.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED') {
        const ms = elapsed();
        finish(fail(`ICMP port unreachable after ${fmtMs(ms)} (ECONNREFUSED)`, { errno: 'ECONNREFUSED', icmp: 'port unreachable', afterMs: ms }, ms));
        return;
      }
      const { reason, evidence } = errnoReason(err, 'udp');
      finish(fail(reason, evidence));
    });
    socket.connect(port, ctx.address, () => {
      socket.send(GARBAGE, (err) => {
        if (err) socket.emit('error', err);
      });
    });
  });
}
