// One request datagram and its answer on a connected UDP socket, for DNS and RADIUS.
// Replies that do not belong to the request (wrong id, garbage) are ignored, not fatal:
// the deadline decides, as a real client would.
import dgram from 'node:dgram';
import net from 'node:net';
import { deadline, errnoReason, fmtMs, stopwatch } from './util';
import type { Evidence } from './types';

export type Exchange =
  | { ok: true; reply: Buffer; rttMs: number; ignored: number }
  | { ok: false; reason: string; evidence: Evidence; rttMs?: number };

export function udpExchange(address: string, port: number, timeoutMs: number, request: Buffer, accept: (reply: Buffer) => boolean): Promise<Exchange> {
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    let ignored = 0;
    let settled = false;
    const finish = (r: Exchange) => {
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
    const timer = deadline(timeoutMs, () => {
      const extra = ignored ? ` (${ignored} unrelated datagram(s) ignored)` : '';
      finish({ ok: false, reason: `no answer within ${fmtMs(timeoutMs)}${extra}`, evidence: { timeoutMs, ignored } });
    });
    socket.on('message', (msg) => {
      let mine = false;
      try {
        mine = accept(msg);
      } catch {
        mine = false;
      }
      if (mine) finish({ ok: true, reply: msg, rttMs: elapsed(), ignored });
      else ignored += 1;
    });
    socket.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      const ms = elapsed();
      if (code === 'ECONNREFUSED') {
        finish({ ok: false, reason: `ICMP port unreachable after ${fmtMs(ms)} (ECONNREFUSED)`, evidence: { errno: 'ECONNREFUSED', icmp: 'port unreachable', afterMs: ms }, rttMs: ms });
        return;
      }
      const { reason, evidence } = errnoReason(err, 'udp');
      finish({ ok: false, reason, evidence });
    });
    socket.connect(port, address, () => {
      socket.send(request, (err) => {
        if (err) socket.emit('error', err);
      });
    });
  });
}
