// The TCP Layer 4 handshake on a bare libuv TCP handle: connect, then close with RST. Small
// imports only: the probe thread (tcp-worker.ts) runs it as well.
import { performance } from 'node:perf_hooks';
import { isV6 } from '../../address-family';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface UvHandle {
  connect(req: object, address: string, port: number): number;
  connect6(req: object, address: string, port: number): number;
  close(cb?: () => void): void;
  reset?(cb?: () => void): number;
}
export interface UvTcp {
  TCP: new (type: number) => UvHandle;
  TCPConnectWrap: new () => any;
  SOCKET: number;
}

/** What `uvConnect` reports: 0 = connected (and reset), < 0 = a libuv errno, TIMED_OUT. */
export const TIMED_OUT = 1;
/** A probe thread's answer when it cannot probe at all: the caller then probes itself. */
export const NOT_PROBED = 2;

export function loadUv(): UvTcp | undefined {
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

const noop = () => undefined;
function onComplete(this: any, status: number): void {
  const done: ((status: number, ms: number) => void) | undefined = this.done;
  if (done === undefined) return; // timed out already (the close completes the connect with ECANCELED)
  this.done = undefined;
  clearTimeout(this.timer);
  clearImmediate(this.later);
  const ms = Math.round((performance.now() - this.t0) * 100) / 100;
  const h: UvHandle = this.h;
  if (status !== 0 || h.reset!(noop) !== 0) h.close(noop);
  done(status, ms);
}

function onTimeout(req: any): void {
  // Timers run before the poll phase: let the I/O that is ready by now be handled first, so a
  // busy loop does not report a timeout for an answer that has already arrived.
  req.later = setImmediate(expire, req);
}

function expire(req: any): void {
  const done: ((status: number, ms: number) => void) | undefined = req.done;
  if (done === undefined) return;
  req.done = undefined;
  req.h.close(noop);
  done(TIMED_OUT, Math.round((performance.now() - req.t0) * 100) / 100);
}

/** One handshake; `done` is called exactly once, never synchronously. */
export function uvConnect(b: UvTcp, address: string, port: number, timeoutMs: number, done: (status: number, ms: number) => void): void {
  const h = new b.TCP(b.SOCKET);
  const req = new b.TCPConnectWrap();
  req.oncomplete = onComplete;
  req.done = done;
  req.h = h;
  req.t0 = performance.now();
  const err = isV6(address) ? h.connect6(req, address, port) : h.connect(req, address, port);
  if (err !== 0) {
    req.done = undefined;
    h.close(noop);
    queueMicrotask(() => done(err, Math.round((performance.now() - req.t0) * 100) / 100));
    return;
  }
  req.timer = setTimeout(onTimeout, timeoutMs, req);
}
