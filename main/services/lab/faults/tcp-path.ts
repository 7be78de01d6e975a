// The lab's path to one TCP member while it is faulted: listeners on an address of its own (the
// member's ports), each connection relayed to the real server through the fault. The health
// checker and the forwarding engine dial this address instead of the member's (routes), so the
// real server is never touched and its other clients see nothing.
import { STATUS_CODES } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Blackhole } from './blackhole';
import type { Fault } from './line';

/** How long an HTTP status line may take to arrive before it is passed on unread. */
const STATUS_LINE_MAX = 8192;
/** reset-after: from the last byte passed to the reset. */
const RESET_PAUSE_MS = 50;

export class TcpFaultPath {
  private readonly servers = new Map<number, Server>();
  private readonly conns = new Set<Socket>();
  private fault: Fault | undefined;
  /** flap: whether the path refuses now. */
  private off = false;
  private flapTimer: NodeJS.Timeout | undefined;
  private hole: Blackhole | undefined;

  /** `phase(broken)`: the path started misbehaving (true) or passing traffic again (false). */
  constructor(readonly address: string, private readonly target: string, private readonly ports: number[], private readonly phase: (broken: boolean) => void) {}

  /** Listens on every port (an address already taken fails with EADDRINUSE). */
  async open(): Promise<void> {
    await this.listen();
  }

  async set(fault: Fault): Promise<void> {
    clearInterval(this.flapTimer);
    this.flapTimer = undefined;
    await this.hole?.close();
    this.hole = undefined;
    this.fault = fault;
    if (fault.kind === 'refuse') await this.unlisten();
    else if (fault.kind === 'blackhole') {
      await this.unlisten();
      this.hole = await Blackhole.start(this.address, this.ports);
    } else if (fault.kind === 'flap') {
      this.off = true;
      await this.unlisten();
      this.flapTimer = setInterval(() => void this.flip(), fault.n!);
      this.flapTimer.unref();
    } else await this.listen();
    this.phase(true);
  }

  /** Stops listening; with `cut`, the connections through the path end too (the lab stops). */
  async close(cut = false): Promise<void> {
    clearInterval(this.flapTimer);
    await this.hole?.close();
    this.hole = undefined;
    await this.unlisten();
    if (cut) for (const c of this.conns) c.destroy();
  }

  private async flip(): Promise<void> {
    this.off = !this.off;
    if (this.off) await this.unlisten();
    else await this.listen().catch(() => undefined);
    this.phase(this.off);
  }

  private async listen(): Promise<void> {
    for (const port of this.ports) {
      if (this.servers.has(port)) continue;
      // Half-open on both sides: each direction ends on its own, as the engine relays them.
      const server = createServer({ noDelay: true, allowHalfOpen: true }, (c) => this.relay(c, port));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: this.address, port, exclusive: true }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.on('error', () => undefined);
      this.servers.set(port, server);
    }
  }

  /** Closing the listeners makes the kernel refuse new connections (RST), as a closed port does. */
  private async unlisten(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  private track(s: Socket): void {
    this.conns.add(s);
    s.once('close', () => this.conns.delete(s));
  }

  private relay(client: Socket, port: number): void {
    const fault = this.fault?.kind === 'flap' ? undefined : this.fault;
    const server = connect({ host: this.target, port, noDelay: true, allowHalfOpen: true });
    this.track(client);
    this.track(server);
    // A server that cannot be reached resets the client before its first byte, as the server would.
    server.on('error', () => (client.destroyed ? undefined : client.resetAndDestroy()));
    client.on('error', () => server.destroy());
    client.pipe(server);
    if (fault?.kind === 'reset-after') return resetAfter(client, server, fault.n!);
    if (fault?.kind === 'delay') return holdFirst(client, server, fault.n!);
    if (fault?.kind === 'http-status') return rewriteStatus(client, server, fault.n!);
    server.pipe(client);
  }
}

/** The server's first byte waits `ms`; the rest follows it as it comes. */
function holdFirst(client: Socket, server: Socket, ms: number): void {
  let answered = false;
  server.once('end', () => (answered ? undefined : client.end()));
  server.once('data', (first) => {
    answered = true;
    server.pause();
    const timer = setTimeout(() => {
      if (client.destroyed) return;
      client.write(first);
      server.pipe(client);
    }, ms);
    client.once('close', () => clearTimeout(timer));
  });
}

/** Passes `bytes` of the server's answer, then resets both sides. */
function resetAfter(client: Socket, server: Socket, bytes: number): void {
  const cut = () => {
    client.resetAndDestroy();
    server.destroy();
  };
  // An RST that arrives over bytes not yet read reads as a plain end on Linux: let them be read first.
  const cutSoon = () => setTimeout(cut, RESET_PAUSE_MS);
  if (bytes === 0) {
    server.once('connect', cut);
    return;
  }
  let sent = 0;
  server.on('data', (chunk: Buffer) => {
    const left = bytes - sent;
    if (chunk.length < left) {
      sent += chunk.length;
      if (!client.write(chunk)) server.pause();
      return;
    }
    server.pause();
    client.write(chunk.subarray(0, left), cutSoon);
  });
  client.on('drain', () => server.resume());
  server.on('end', () => client.end());
}

/** The first response's status line says `code` (checks and traffic alike). */
function rewriteStatus(client: Socket, server: Socket, code: number): void {
  let head = Buffer.alloc(0);
  let passed = false;
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const eol = head.indexOf('\r\n');
    if (eol < 0 && head.length < STATUS_LINE_MAX) return;
    server.off('data', onData);
    passed = true;
    const line = eol < 0 ? '' : head.subarray(0, eol).toString('latin1');
    const m = /^HTTP\/(\d\.\d) \d{3}\b/.exec(line);
    const out = m ? Buffer.concat([Buffer.from(`HTTP/${m[1]} ${code} ${STATUS_CODES[code] ?? 'Fault'}`, 'latin1'), head.subarray(eol)]) : head;
    client.write(out);
    server.pipe(client);
  };
  server.on('data', onData);
  server.once('end', () => (passed || client.destroyed ? undefined : client.end(head)));
}
