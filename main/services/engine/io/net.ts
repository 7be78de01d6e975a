// The portable socket layer on the public node:net API, used where libuv handles are not
// reachable (LBDESK_ENGINE_IO=net forces it). Server sides read into a reused buffer (onread);
// client sides use 'data' events. Same half-close and backpressure rules as the uv layer.
import * as net from 'node:net';
import { BufferPool, REPLAY_LIMIT, type Acceptor, type Conn, type Io, type Pipe, type Prelude, type Relay } from './types';

const buffers = new BufferPool();

/** State of a connecting server socket: where its onread callback sends data once relayed. */
interface Pending {
  socket: net.Socket;
  buf: Buffer;
  relay?: NetRelay;
}

const pendingOf = new WeakMap<net.Socket, Pending>();

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException)?.code ?? (err instanceof Error ? err.message : String(err));

/**
 * Ends a socket, with RST when asked. Not after end(): a reset with a shutdown in flight is
 * refused by libuv while Node marks the handle closing anyway, leaving it open for good.
 */
function drop(s: net.Socket, reset: boolean): void {
  if (reset && typeof s.resetAndDestroy === 'function' && !s.destroyed && !s.writableEnded && !s.connecting) {
    try {
      s.resetAndDestroy();
      return;
    } catch {
      // not connected yet: a plain destroy does it
    }
  }
  s.destroy();
}

class NetRelay implements Relay {
  private open = true;
  private closed = 0;
  private handedOver = false;
  private error: string | undefined;
  private side: 'client' | 'server' | undefined;
  /** Client chunks sent before the server's first byte (undefined once it answered or too many). */
  private replay: Buffer[] | undefined = [];
  private replayBytes = 0;
  private clientEof = false;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- listeners of several events
  private readonly clientHandlers: [string, (...a: any[]) => void][];

  constructor(readonly client: net.Socket, readonly server: net.Socket, readonly pipe: Pipe, readonly sbuf: Buffer, prelude?: Prelude) {
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.clientHandlers = [
      ['data', (chunk: Buffer) => {
        pipe.bytesIn += chunk.length;
        pipe.chunksIn += 1;
        if (this.replay) this.keep(chunk);
        if (!server.write(chunk)) client.pause();
      }],
      ['end', () => {
        this.clientEof = true;
        server.end();
      }],
      ['error', (err: Error) => this.fail(codeOf(err), 'client')],
      ['drain', () => {
        if (this.open) server.resume();
      }],
      ['close', () => this.onClose()],
    ];
    for (const [ev, f] of this.clientHandlers) client.on(ev, f);
    server.on('error', (err) => this.fail(codeOf(err), 'server'));
    server.on('end', () => client.end());
    server.on('close', () => this.onClose());
    server.on('drain', () => client.resume());
    if (prelude) {
      for (const chunk of prelude.data) {
        this.keep(chunk);
        server.write(chunk);
      }
      if (prelude.eof) {
        this.clientEof = true;
        server.end();
      }
    }
    if (!this.clientEof) client.resume();
  }

  private keep(chunk: Buffer): void {
    this.replayBytes += chunk.length;
    if (this.replayBytes > REPLAY_LIMIT) this.replay = undefined;
    else this.replay!.push(chunk);
  }

  /** Server data arrives in the reused buffer: write it, and stop reading until it is sent. */
  fromServer(n: number): boolean {
    this.replay = undefined;
    this.pipe.bytesOut += n;
    this.client.write(this.sbuf.subarray(0, n));
    if (this.client.writableLength === 0) return true;
    // The buffer is still being sent: no read may overwrite it until the client drains.
    this.server.pause();
    return false;
  }

  stop(reset: boolean): void {
    if (!this.open) return;
    this.open = false;
    drop(this.client, reset);
    drop(this.server, reset);
  }

  private fail(error: string, side: 'client' | 'server'): void {
    if (side === 'server' && this.open && this.replay && this.rescue(error)) return;
    if (this.error === undefined) {
      this.error = error;
      this.side = side;
    }
    this.stop(true);
  }

  /** The server failed before answering: hand the client back with what it sent. */
  private rescue(error: string): boolean {
    this.open = false;
    this.handedOver = true;
    this.client.pause();
    for (const [ev, f] of this.clientHandlers) this.client.off(ev, f);
    this.server.destroy();
    buffers.give(this.sbuf);
    if (this.pipe.retry(error, { data: this.replay!, eof: this.clientEof })) return true;
    drop(this.client, true);
    this.pipe.done(error, 'server');
    return true;
  }

  private onClose(): void {
    if (this.handedOver || ++this.closed < 2) return;
    this.open = false;
    buffers.give(this.sbuf);
    this.pipe.done(this.error, this.side);
  }
}

export function createNetIo(): Io {
  return {
    name: 'net',
    listen(address, port, onAccept) {
      return new Promise<Acceptor>((resolve, reject) => {
        const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true }, (s) => onAccept(s));
        server.once('error', (err) => reject(new Error(`cannot listen on ${address}:${port}/tcp: ${codeOf(err)}`)));
        server.listen({ host: address, port, backlog: 4096, exclusive: true }, () => {
          server.removeAllListeners('error');
          server.on('error', () => {});
          const a = server.address() as net.AddressInfo;
          resolve({ address, port: a.port, close: () => server.close() });
        });
      });
    },
    connect(address, port, done): Conn {
      const buf = buffers.take(true);
      const p: Pending = { socket: undefined as unknown as net.Socket, buf };
      let called = false;
      const socket = net.connect({
        host: address,
        port,
        allowHalfOpen: true,
        noDelay: true,
        onread: { buffer: buf, callback: (n: number) => (p.relay ? p.relay.fromServer(n) : true) },
      });
      p.socket = socket;
      pendingOf.set(socket, p);
      socket.once('connect', () => {
        if (!called) {
          called = true;
          done(undefined);
        }
      });
      socket.once('error', (err) => {
        if (!called) {
          called = true;
          buffers.give(buf);
          done(codeOf(err));
        }
      });
      return socket;
    },
    peer(conn) {
      const s = conn as net.Socket;
      return s.remoteAddress ? { address: s.remoteAddress, port: s.remotePort ?? 0 } : undefined;
    },
    relay(client, server, pipe, prelude) {
      const p = pendingOf.get(server as net.Socket)!;
      const r = new NetRelay(client as net.Socket, server as net.Socket, pipe, p.buf, prelude);
      p.relay = r;
      (server as net.Socket).on('close', () => pendingOf.delete(server as net.Socket));
      return r;
    },
    close(conn, reset) {
      drop(conn as net.Socket, reset);
    },
  };
}
