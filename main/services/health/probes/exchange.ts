// Datagrams on a connected UDP socket: one request, then whatever comes back until the
// deadline. `udpDialogue` is the socket's life (UDP Layer 4 uses it as it is); `udpExchange`
// waits for the one reply that belongs to the request, for DNS and RADIUS. Replies that do not
// belong (wrong id, garbage) are ignored, not fatal: the deadline decides, as a real client would.
import dgram from 'node:dgram';
import { isV6 } from '../../address-family';
import { deadline, errnoReason, fmtMs, stopwatch } from './util';
import type { Evidence } from './types';

export interface UdpHandlers<T> {
  /** The deadline passed. */
  timeout(): T;
  /** A datagram arrived after `ms`: an end, or undefined to keep waiting. */
  message(msg: Buffer, ms: number): T | undefined;
  /** ICMP port unreachable (ECONNREFUSED on the connected socket) after `ms`. */
  refused(ms: number): T;
  /** Any other socket error. */
  error(reason: string, evidence: Evidence): T;
}

export function udpDialogue<T>(address: string, port: number, timeoutMs: number, request: Buffer, on: UdpHandlers<T>): Promise<T> {
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    const socket = dgram.createSocket(isV6(address) ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (r: T) => {
      if (settled) return;
      settled = true;
      timer.clear();
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(r);
    };
    const timer = deadline(timeoutMs, () => finish(on.timeout()));
    socket.on('message', (msg) => {
      const end = on.message(msg, elapsed());
      if (end !== undefined) finish(end);
    });
    socket.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
        finish(on.refused(elapsed()));
        return;
      }
      const { reason, evidence } = errnoReason(err, 'udp');
      finish(on.error(reason, evidence));
    });
    socket.connect(port, address, () => {
      socket.send(request, (err) => {
        if (err) socket.emit('error', err);
      });
    });
  });
}

/** The words and evidence of an ICMP port unreachable, the same for every UDP check. */
export const unreachable = (ms: number) => ({
  reason: `ICMP port unreachable after ${fmtMs(ms)} (ECONNREFUSED)`,
  evidence: { errno: 'ECONNREFUSED', icmp: 'port unreachable', afterMs: ms } as Evidence,
});

export type Exchange =
  | { ok: true; reply: Buffer; rttMs: number; ignored: number }
  | { ok: false; reason: string; evidence: Evidence; rttMs?: number };

export function udpExchange(address: string, port: number, timeoutMs: number, request: Buffer, accept: (reply: Buffer) => boolean): Promise<Exchange> {
  let ignored = 0;
  return udpDialogue<Exchange>(address, port, timeoutMs, request, {
    timeout: () => {
      const extra = ignored ? ` (${ignored} unrelated datagram(s) ignored)` : '';
      return { ok: false, reason: `no answer within ${fmtMs(timeoutMs)}${extra}`, evidence: { timeoutMs, ignored } };
    },
    message: (msg, ms) => {
      let mine = false;
      try {
        mine = accept(msg);
      } catch {
        mine = false;
      }
      if (mine) return { ok: true, reply: msg, rttMs: ms, ignored };
      ignored += 1;
      return undefined;
    },
    refused: (ms) => ({ ok: false, ...unreachable(ms), rttMs: ms }),
    error: (reason, evidence) => ({ ok: false, reason, evidence }),
  });
}
