// The socket layer under the forwarding engine: accept, connect, relay. Two implementations:
// `uv` drives libuv handles directly (no stream objects, reused read buffers), `net` uses the
// public node:net API. Same behaviour; see docs/engine.md for why there are two.

/** An accepted or connecting TCP connection; only the Io that made it knows what is inside. */
export type Conn = object;

export interface Acceptor {
  readonly address: string;
  readonly port: number;
  /** Stops accepting; established connections are not touched. */
  close(): void;
}

/** Counters a relay updates as data moves, and how it reports its end. */
export interface Pipe {
  /** Bytes from the client (to the server). */
  bytesIn: number;
  /** Bytes to the client (from the server). */
  bytesOut: number;
  /** Reads from the client: the engine's estimate of messages when no heartbeat gives m. */
  chunksIn: number;
  /** Called once when both sides are closed; `error` is the first failure (undefined for a clean end). */
  done(error: string | undefined, side: 'client' | 'server' | undefined): void;
  /**
   * The server failed (reset) before sending a byte: the client has seen nothing, so it can go
   * to another server with what it sent so far. True = the caller took the client over
   * (the relay has closed the server and let go of the client); false = end as usual.
   */
  retry(error: string, prelude: Prelude): boolean;
}

/** What a client sent before its first server failed, replayed to the next one. */
export interface Prelude {
  data: Buffer[];
  /** The client had already ended its side. */
  eof: boolean;
}

/** Client bytes kept for a replay; a client that sends more before any answer is not moved. */
export const REPLAY_LIMIT = 64 * 1024;

export interface Relay {
  /** Closes both sides now (idle timeout, engine stop); `reset` sends RST instead of FIN. */
  stop(reset: boolean): void;
}

export interface Io {
  readonly name: 'uv' | 'net';
  /** Binds and listens; rejects with an Error whose message names the address and errno. */
  listen(address: string, port: number, onAccept: (conn: Conn) => void): Promise<Acceptor>;
  /** Starts a connect; `done` is called once, with an errno name on failure. */
  connect(address: string, port: number, done: (error: string | undefined) => void): Conn;
  /** The remote end of a connection (the client of an accepted one). */
  peer(conn: Conn): { address: string; port: number } | undefined;
  /** Forwards both ways with half-close and backpressure until both sides end; `prelude` goes to the server first. */
  relay(client: Conn, server: Conn, pipe: Pipe, prelude?: Prelude): Relay;
  /** Drops a connection that is not relayed (refused client, abandoned connect). */
  close(conn: Conn, reset: boolean): void;
}

/** Read buffers: small for every connection, grown when a read fills one (bulk traffic). */
export const SMALL_BUFFER = 16 * 1024;
export const BIG_BUFFER = 64 * 1024;

/** Free lists of read buffers so steady traffic allocates nothing per read or per connection. */
export class BufferPool {
  private readonly small: Buffer[] = [];
  private readonly big: Buffer[] = [];
  constructor(private readonly keep = 512) {}
  take(big: boolean): Buffer {
    return (big ? this.big.pop() : this.small.pop()) ?? Buffer.allocUnsafeSlow(big ? BIG_BUFFER : SMALL_BUFFER);
  }
  give(buf: Buffer): void {
    const list = buf.length === BIG_BUFFER ? this.big : this.small;
    if (list.length < this.keep) list.push(buf);
  }
}
