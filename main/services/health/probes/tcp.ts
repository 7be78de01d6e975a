// TCP Layer 4 (ADX seed 000): SYN, SYN-ACK, then RST. No data is exchanged, and the RST
// spares the server a TIME_WAIT and the application an accept of a half-open session.
//
// Two implementations of the same packets: node:net with socket.resetAndDestroy(), and, when
// the runtime offers it, the libuv TCP handle that node:net drives underneath (the same
// `connect` and `reset` calls, without the stream objects): a third of the CPU per check,
// which is what lets one thread check 10,000 members a second. LBDESK_HEALTH_IO=net forces
// node:net; the forwarding engine uses the same handles for its data path.
import net from 'node:net';
import { getSystemErrorName } from 'node:util';
import type { ProbeContext, ProbeOutcome } from './types';
import { deadline, errnoReason, fail, fmtMs, pass, stopwatch } from './util';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface UvHandle {
  connect(req: object, address: string, port: number): number;
  connect6(req: object, address: string, port: number): number;
  close(cb?: () => void): void;
  reset?(cb?: () => void): number;
}
interface UvTcp {
  TCP: new (type: number) => UvHandle;
  TCPConnectWrap: new () => any;
  SOCKET: number;
}

function loadUv(): UvTcp | undefined {
  if (process.env.LBDESK_HEALTH_IO === 'net') return undefined;
  try {
    const tcp = (process as unknown as { binding(name: string): any }).binding('tcp_wrap');
    const b: UvTcp = { TCP: tcp.TCP, TCPConnectWrap: tcp.TCPConnectWrap, SOCKET: tcp.constants.SOCKET };
    const ok = typeof b.TCP === 'function' && typeof b.TCPConnectWrap === 'function' && typeof b.SOCKET === 'number'
      && typeof b.TCP.prototype.reset === 'function';
    return ok ? b : undefined;
  } catch {
    return undefined;
  }
}

const UV = loadUv();
/** Which implementation runs: 'uv' (libuv handle) or 'net' (node:net). */
export const TCP_IO: 'uv' | 'net' = UV ? 'uv' : 'net';
const noop = () => undefined;

export function tcpProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  return tcpProbeVia(TCP_IO, ctx);
}

/** The probe through one implementation ('uv' falls back to 'net' where the runtime lacks it). */
export function tcpProbeVia(io: 'uv' | 'net', ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port;
  if (port === undefined) return Promise.resolve(fail('no port to check: TCP Layer 4 needs a member port'));
  return io === 'uv' && UV ? uvProbe(UV, ctx.address, port, ctx.timeoutMs) : netProbe(ctx.address, port, ctx.timeoutMs);
}

const timedOut = (timeoutMs: number) => fail(`connect timeout after ${fmtMs(timeoutMs)} (no SYN-ACK)`, { errno: 'ETIMEDOUT', timeoutMs });
const connected = (ms: number) => pass(`TCP handshake in ${fmtMs(ms)}, closed with RST`, { connectMs: ms }, ms);

function uvProbe(b: UvTcp, address: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    const h = new b.TCP(b.SOCKET);
    const req = new b.TCPConnectWrap();
    let settled = false;
    const finish = (o: ProbeOutcome) => {
      settled = true;
      timer.clear();
      resolve(o);
    };
    const timer = deadline(timeoutMs, () => {
      if (settled) return;
      h.close(noop); // completes the pending connect with ECANCELED, ignored below
      finish(timedOut(timeoutMs));
    });
    req.oncomplete = (status: number) => {
      if (settled) return;
      const ms = elapsed();
      if (status === 0) {
        if (h.reset!(noop) !== 0) h.close(noop);
        finish(connected(ms));
      } else {
        h.close(noop);
        const code = errName(status);
        finish(fail(`connect ${code}`, { errno: code, syscall: 'connect', afterMs: ms }));
      }
    };
    const err = net.isIPv6(address) ? h.connect6(req, address, port) : h.connect(req, address, port);
    if (err !== 0) {
      h.close(noop);
      const code = errName(err);
      finish(fail(`connect ${code}`, { errno: code, syscall: 'connect', afterMs: elapsed() }));
    }
  });
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
