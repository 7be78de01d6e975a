// TCP Layer 4 (ADX seed 000): SYN, SYN-ACK, then RST. No data is exchanged, and the RST
// spares the server a TIME_WAIT and the application an accept of a half-open session.
//
// Two implementations of the same packets: node:net with socket.resetAndDestroy(), and, when
// the runtime offers it, the libuv TCP handle that node:net drives underneath (the same
// `connect` and `reset` calls, without the stream objects): a third of the CPU per check,
// and the handshakes can run on probe threads (tcp-pool.ts) when the health checker has
// many members. LBDESK_HEALTH_IO=net forces node:net; the forwarding engine uses the same handles.
import net from 'node:net';
import { getSystemErrorName } from 'node:util';
import { loadUv, TIMED_OUT, uvConnect } from './tcp-connect';
import type { ProbeContext, ProbeOutcome } from './types';
import { deadline, errnoReason, fail, fmtMs, pass, stopwatch, dialOf } from './util';

const UV = loadUv();
/** Which implementation runs: 'uv' (libuv handle) or 'net' (node:net). */
export const TCP_IO: 'uv' | 'net' = UV ? 'uv' : 'net';
/** Why TCP Layer 4 checks run on node:net when nobody asked for it (a third of the speed): said, never silent. */
export const TCP_IO_FALLBACK: string | undefined = UV || process.env.LBDESK_HEALTH_IO === 'net'
  ? undefined
  : 'libuv TCP handles are not reachable from JavaScript (process.binding): TCP Layer 4 health checks use node:net';

export function tcpProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  return tcpProbeVia(TCP_IO, ctx);
}

/** The probe through one implementation ('uv' falls back to 'net' where the runtime lacks it). */
export function tcpProbeVia(io: 'uv' | 'net', ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port;
  if (port === undefined) return Promise.resolve(fail('no port to check: TCP Layer 4 needs a member port'));
  if (io === 'net' || !UV) return netProbe(dialOf(ctx), port, ctx.timeoutMs);
  return new Promise((resolve) => {
    const done = (status: number, ms: number, waitMs = 0) => {
      const o = tcpOutcome({ status, ms, timeoutMs: ctx.timeoutMs });
      if (waitMs > 0) o.waitMs = waitMs;
      resolve(o);
    };
    if (ctx.tcpThreads) ctx.tcpThreads.connect(dialOf(ctx), port, ctx.timeoutMs, done);
    else uvConnect(UV, dialOf(ctx), port, ctx.timeoutMs, done);
  });
}

const timedOut = (timeoutMs: number) => fail(`connect timeout after ${fmtMs(timeoutMs)} (no SYN-ACK)`, { errno: 'ETIMEDOUT', timeoutMs });
// join() makes one flat string where a template makes a tree of string pieces, and a member
// keeps its last reason (in its state) for a whole interval.
const connected = (ms: number) => pass(['TCP handshake in ', fmtMs(ms), ', closed with RST'].join(''), { connectMs: ms }, ms);

/** A handshake's outcome in numbers: status 0, a libuv errno or TIMED_OUT, and its time. */
export interface TcpNumbers {
  status: number;
  ms: number;
  timeoutMs: number;
}

/** The outcome, in words and evidence, of a handshake's numbers (also how history rebuilds it). */
export function tcpOutcome(n: TcpNumbers): ProbeOutcome {
  let o: ProbeOutcome;
  if (n.status === 0) o = connected(n.ms);
  else if (n.status === TIMED_OUT) o = timedOut(n.timeoutMs);
  else {
    const code = errName(n.status);
    o = fail(`connect ${code}`, { errno: code, syscall: 'connect', afterMs: n.ms });
  }
  o.tcp = n;
  return o;
}

function netProbe(address: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    let settled = false;
    const socket = net.connect({ host: address, port });
    const finish = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      timer.clear();
      resolve(outcome);
    };
    const timer = deadline(timeoutMs, () => {
      if (settled) return;
      socket.destroy();
      finish(timedOut(timeoutMs));
    });
    socket.once('connect', () => {
      const ms = elapsed();
      socket.resetAndDestroy();
      finish(connected(ms));
    });
    socket.once('error', (err) => {
      const { reason, evidence } = errnoReason(err, 'connect');
      finish(fail(reason, { ...evidence, afterMs: elapsed() }));
    });
  });
}

function errName(code: number): string {
  try {
    return getSystemErrorName(code);
  } catch {
    return `error ${code}`;
  }
}
