// The fast socket layer: libuv TCP handles driven directly (what node:net does inside, minus
// the stream objects). Reads land in a per-direction buffer that is reused (grown once for bulk
// traffic) and are written straight to the other side; when that write cannot complete at once,
// reading stops until it does (backpressure without copies). Half-close is kept: EOF on one
// side shuts down writing on the other; both ends done = both handles closed.
import { isV6 } from '../../address-family';
import { getSystemErrorName } from 'node:util';
import { BIG_BUFFER, BufferPool, REPLAY_LIMIT, type Acceptor, type Conn, type Io, type Pipe, type Prelude, type Relay } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface Handle {
  bind(address: string, port: number): number;
  bind6(address: string, port: number, flags: number): number;
  listen(backlog: number): number;
  connect(req: object, address: string, port: number): number;
  connect6(req: object, address: string, port: number): number;
  getpeername(out: Record<string, unknown>): number;
  getsockname(out: Record<string, unknown>): number;
  setNoDelay(on: boolean): number;
  readStart(): number;
  readStop(): number;
  useUserBuffer(buf: Buffer): void;
  writeBuffer(req: object, buf: Buffer): number;
  shutdown(req: object): number;
  close(cb?: () => void): void;
  reset?(cb?: () => void): number;
  onread: (this: Handle) => Buffer | undefined;
  onconnection: ((status: number, client?: Handle) => void) | null;
  /** Our direction state, kept on the handle so one shared onread serves all. */
  lbd?: Dir;
  /** Reading was started with the connect. */
  reading?: boolean;
  /** A shutdown is in flight: libuv refuses a reset then (see closeHandle). */
  shutting?: boolean;
}

interface Bindings {
  TCP: new (type: number) => Handle;
  TCPConnectWrap: new () => any;
  WriteWrap: new () => any;
  ShutdownWrap: new () => any;
  state: Int32Array;
  kRead: number;
  kAsync: number;
  SOCKET: number;
  SERVER: number;
}

const UV_EOF = -4095;
/** Accepted sockets inherit TCP_NODELAY from the listening socket (one setsockopt less each). */
const NODELAY_INHERITED = process.platform === 'linux';

function load(): Bindings | undefined {
  try {
    const binding = (process as unknown as { binding(name: string): any }).binding;
    const tcp = binding('tcp_wrap');
    const stream = binding('stream_wrap');
    const b: Bindings = {
      TCP: tcp.TCP,
      TCPConnectWrap: tcp.TCPConnectWrap,
      WriteWrap: stream.WriteWrap,
      ShutdownWrap: stream.ShutdownWrap,
      state: stream.streamBaseState,
      kRead: stream.kReadBytesOrError,
      kAsync: stream.kLastWriteWasAsync,
      SOCKET: tcp.constants.SOCKET,
      SERVER: tcp.constants.SERVER,
    };
    const ok = typeof b.TCP === 'function' && typeof b.WriteWrap === 'function' && b.state instanceof Int32Array
      && typeof b.kRead === 'number' && typeof b.kAsync === 'number' && typeof b.TCP.prototype.useUserBuffer === 'function';
    return ok ? b : undefined;
  } catch {
    return undefined;
  }
}

const errName = (code: number) => {
  try {
    return getSystemErrorName(code);
  } catch {
    return `error ${code}`;
  }
};

interface Dir {
  r: UvRelay;
  from: Handle;
  to: Handle;
  buf: Buffer;
  /** A write request ready for the next synchronous write (reused until a write goes async). */
  w: any;
  inbound: boolean;
  eof: boolean;
  shut: boolean;
  /** A write to `to` is in flight (reading `from` is stopped until it completes). */
  writing: boolean;
  /** The last `buf.subarray(0, n)` and its n. */
  view: Buffer | undefined;
  viewLen: number;
}

let B: Bindings | undefined;
const buffers = new BufferPool();

function onRead(this: Handle): Buffer | undefined {
  const d = this.lbd;
  if (d === undefined) return undefined; // not relayed (yet, or any more)
  const r = d.r;
  const n = B!.state[B!.kRead]!;
  if (n > 0) {
    const p = r.pipe;
    const buf = d.buf;
    if (d.inbound) {
      p.bytesIn += n;
      p.chunksIn += 1;
      // Until the server answers, keep a copy: if it resets, the next server gets it.
      if (r.replay) r.keep(buf, n);
    } else {
      p.bytesOut += n;
      r.replay = undefined;
    }
    // Same length as last time (steady request/response traffic): reuse the view.
    if (n !== d.viewLen) {
      d.view = n === buf.length ? buf : buf.subarray(0, n);
      d.viewLen = n;
    }
    const err = d.to.writeBuffer(d.w, d.view!);
    if (err !== 0) {
      r.finish(errName(err), d.inbound ? 'server' : 'client', true);
      return undefined;
    }
    if (B!.state[B!.kAsync] !== 0) {
      // The other side is slower: the request now belongs to libuv, and the buffer too.
      d.writing = true;
      d.w = newWrite(d);
      this.readStop();
      return undefined;
    }
    if (n === buf.length && buf.length < BIG_BUFFER) {
      // A full small read: bulk traffic; read in big chunks from now on.
      d.buf = buffers.take(true);
      d.viewLen = -1;
      buffers.give(buf);
      return d.buf;
    }
    return undefined;
  }
  if (n === UV_EOF) {
    d.eof = true;
    this.readStop();
    // Both ways have ended and no write is under way: close both now (the close sends the
    // FINs) instead of two shutdowns and their round trips.
    const back = d.inbound ? r.down : r.up;
    if (back.eof && !d.writing && !back.writing) {
      r.finish(undefined, undefined, false);
      return undefined;
    }
    // Pass the half-close on, a moment later: the other end often closes in the meantime
    // (a client that got its whole answer), and then one close does it all.
    deferShutdown(d);
    return undefined;
  }
  if (n < 0) r.finish(errName(n), d.inbound ? 'client' : 'server', true);
  return undefined;
}

function onWriteDone(this: any, status: number): void {
  const d: Dir = this.d;
  d.writing = false;
  if (!d.r.open) return;
  if (status < 0) d.r.finish(errName(status), d.inbound ? 'server' : 'client', true);
  else if (!d.eof) d.from.readStart();
}

const shutdowns: Dir[] = [];
let shutdownsDue = false;

function deferShutdown(d: Dir): void {
  shutdowns.push(d);
  if (!shutdownsDue) {
    shutdownsDue = true;
    setImmediate(runShutdowns);
  }
}

function runShutdowns(): void {
  shutdownsDue = false;
  for (const d of shutdowns.splice(0)) {
    if (!d.r.open) continue;
    shutdown(d);
  }
}

function shutdown(d: Dir): void {
  const req = new B!.ShutdownWrap();
  req.oncomplete = onShutdown;
  req.handle = d.to;
  req.d = d;
  d.to.shutting = true;
  const err = d.to.shutdown(req);
  if (err !== 0) {
    d.to.shutting = false;
    d.r.finish(shutdownError(err), d.inbound ? 'server' : 'client', true);
  }
}

/**
 * A shutdown refused with ENOTCONN means the peer had already reset the connection (the
 * socket is closed): say so as a read would have, whichever noticed first.
 */
function shutdownError(code: number): string {
  const name = errName(code);
  return name === 'ENOTCONN' ? 'ECONNRESET' : name;
}

function onShutdown(this: any, status: number): void {
  const d: Dir = this.d;
  d.to.shutting = false;
  const r = d.r;
  if (!r.open) return;
  d.shut = true;
  // A failed shutdown means the peer is gone (reset): an error on that side, which may still
  // be redispatched if the server had not answered yet.
  if (status < 0) r.finish(shutdownError(status), d.inbound ? 'server' : 'client', true);
  else if (r.up.shut && r.down.shut) r.finish(undefined, undefined, false);
}

function newWrite(d: Dir): any {
  const w = new B!.WriteWrap();
  w.handle = d.to;
  w.oncomplete = onWriteDone;
  w.d = d;
  w.async = false;
  return w;
}

class UvRelay implements Relay {
  open = true;
  readonly up: Dir;
  readonly down: Dir;
  /** Client bytes sent before the server's first byte (undefined once it answered or too many). */
  replay: Buffer[] | undefined = [];
  private replayBytes = 0;

  constructor(readonly client: Handle, readonly server: Handle, readonly pipe: Pipe, prelude?: Prelude) {
    this.up = this.dir(client, server, true);
    this.down = this.dir(server, client, false);
    // On Linux an accepted socket inherits TCP_NODELAY from its listener (set in listen()).
    if (!NODELAY_INHERITED) client.setNoDelay(true);
    server.setNoDelay(true);
    if (prelude) this.replayTo(prelude);
    if (!this.open) return;
    const e1 = this.up.eof ? 0 : client.readStart();
    const e2 = server.reading ? 0 : server.readStart();
    if (e1 !== 0 || e2 !== 0) this.finish(errName(e1 || e2), e1 ? 'client' : 'server', true);
  }

  keep(buf: Buffer, n: number): void {
    this.replayBytes += n;
    if (this.replayBytes > REPLAY_LIMIT) {
      this.replay = undefined;
      return;
    }
    const copy = Buffer.allocUnsafe(n);
    buf.copy(copy, 0, 0, n);
    this.replay!.push(copy);
  }

  /** Sends what the client sent to a server that failed; the copies are the replay of this one too. */
  private replayTo(prelude: Prelude): void {
    for (const chunk of prelude.data) {
      this.keep(chunk, chunk.length);
      const err = this.server.writeBuffer(newWrite(this.up), chunk);
      if (err !== 0) return this.finish(errName(err), 'server', true);
    }
    if (prelude.eof) {
      this.up.eof = true;
      shutdown(this.up);
    }
  }

  private dir(from: Handle, to: Handle, inbound: boolean): Dir {
    const d: Dir = { r: this, from, to, buf: buffers.take(false), w: undefined, inbound, eof: false, shut: false, writing: false, view: undefined, viewLen: -1 };
    d.w = newWrite(d);
    from.lbd = d;
    from.useUserBuffer(d.buf);
    from.onread = onRead;
    return d;
  }

  stop(reset: boolean): void {
    this.finish(undefined, undefined, reset);
  }

  /**
   * The server failed before answering: close it, let go of the client (no reads until a new
   * relay gives it a buffer) and hand it back with what it sent.
   */
  private rescue(error: string): boolean {
    const prelude: Prelude = { data: this.replay!, eof: this.up.eof };
    this.open = false;
    this.client.readStop();
    this.client.lbd = undefined;
    closeHandle(this.server, false);
    this.release();
    if (this.pipe.retry(error, prelude)) return true;
    // Not taken over: the client ends here.
    closeHandle(this.client, true);
    this.pipe.done(error, 'server');
    return true;
  }

  finish(error: string | undefined, side: 'client' | 'server' | undefined, reset: boolean): void {
    if (!this.open) return;
    if (side === 'server' && error !== undefined && this.replay && this.rescue(error)) return;
    this.open = false;
    closeHandle(this.client, reset);
    closeHandle(this.server, reset);
    this.release();
    this.pipe.done(error, side);
  }

  /**
   * Back to the pool at once: uv_close closes the descriptor before it returns, so no read or
   * write can touch these buffers any more (queued writes are only cancelled).
   */
  private release(): void {
    buffers.give(this.up.buf);
    buffers.give(this.down.buf);
  }
}

/**
 * Closes without a JS callback (one less call into JS per handle). A reset is only tried when
 * no shutdown is in flight: libuv refuses it then, and Node has already marked the handle as
 * closing, so a close() after a failed reset would do nothing and the handle would leak (and
 * a worker holding it could never exit).
 */
function closeHandle(h: Handle, reset: boolean): void {
  h.lbd = undefined;
  if (reset && !h.shutting && typeof h.reset === 'function') {
    h.reset();
    return;
  }
  h.close();
}

function onConnect(this: any, status: number): void {
  const done: ((e: string | undefined) => void) | undefined = this.done;
  this.done = undefined;
  done?.(status === 0 ? undefined : errName(status));
}

export function createUvIo(): Io | undefined {
  B ??= load();
  if (!B) return undefined;
  const b = B;
  return {
    name: 'uv',
    async listen(address, port, onAccept): Promise<Acceptor> {
      const h = new b.TCP(b.SERVER);
      let err = isV6(address) ? h.bind6(address, port, 0) : h.bind(address, port);
      if (err === 0) err = h.setNoDelay(true);
      if (err === 0) err = h.listen(4096);
      if (err !== 0) {
        h.close();
        throw new Error(`cannot listen on ${address}:${port}/tcp: ${errName(err)}`);
      }
      const name: Record<string, unknown> = {};
      h.getsockname(name);
      h.onconnection = (status, client) => {
        if (status === 0 && client) onAccept(client);
      };
      return { address, port: Number(name.port ?? port), close: () => h.close() };
    },
    connect(address, port, done): Conn {
      const h = new b.TCP(b.SOCKET);
      const req = new b.TCPConnectWrap();
      req.oncomplete = onConnect;
      req.done = done;
      const err = isV6(address) ? h.connect6(req, address, port) : h.connect(req, address, port);
      if (err !== 0) {
        queueMicrotask(() => onConnect.call(req, err));
        return h;
      }
      // Reading starts with the connect (libuv handles the connect first, and the relay is in
      // place before any read): the socket joins epoll once for both instead of twice.
      h.onread = onRead;
      if (h.readStart() === 0) h.reading = true;
      return h;
    },
    peer(conn) {
      const out: Record<string, unknown> = {};
      if ((conn as Handle).getpeername(out) !== 0) return undefined;
      return { address: String(out.address), port: Number(out.port) };
    },
    relay(client, server, pipe, prelude) {
      return new UvRelay(client as Handle, server as Handle, pipe, prelude);
    },
    close(conn, reset) {
      closeHandle(conn as Handle, reset);
    },
  };
}
