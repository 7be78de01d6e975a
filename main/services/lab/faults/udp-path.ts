// The lab's path to one UDP member while it is faulted: a socket per port on an address of its
// own, one upstream socket per client to the real server. `unreachable` closes the sockets, so
// the kernel itself answers each datagram with ICMP port unreachable (a connected sender sees
// ECONNREFUSED), the same packet a server host sends for a closed port.
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { Fault } from './line';

const FLOW_IDLE_MS = 30_000;

interface Flow {
  up: Socket;
  last: number;
  /** Datagrams waiting for the upstream socket's connect. */
  queue: Buffer[] | undefined;
}

export class UdpFaultPath {
  private readonly sockets = new Map<number, Socket>();
  private readonly flows = new Map<string, Flow>();
  private fault: Fault | undefined;
  private off = false;
  private flapTimer: NodeJS.Timeout | undefined;
  private readonly sweep: NodeJS.Timeout;

  constructor(readonly address: string, private readonly target: string, private readonly ports: number[], private readonly phase: (broken: boolean) => void) {
    this.sweep = setInterval(() => this.expire(), FLOW_IDLE_MS / 3);
    this.sweep.unref();
  }

  async open(): Promise<void> {
    await this.bind();
  }

  async set(fault: Fault): Promise<void> {
    clearInterval(this.flapTimer);
    this.flapTimer = undefined;
    this.fault = fault;
    if (fault.kind === 'unreachable') await this.unbind();
    else if (fault.kind === 'flap') {
      this.off = true;
      await this.unbind();
      this.flapTimer = setInterval(() => void this.flip(), fault.n!);
      this.flapTimer.unref();
    } else await this.bind();
    this.phase(true);
  }

  async close(): Promise<void> {
    clearInterval(this.flapTimer);
    clearInterval(this.sweep);
    await this.unbind();
    for (const f of this.flows.values()) f.up.close();
    this.flows.clear();
  }

  private async flip(): Promise<void> {
    this.off = !this.off;
    if (this.off) await this.unbind();
    else await this.bind().catch(() => undefined);
    this.phase(this.off);
  }

  private async bind(): Promise<void> {
    for (const port of this.ports) {
      if (this.sockets.has(port)) continue;
      const s = createSocket(isIPv6(this.address) ? 'udp6' : 'udp4');
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.bind({ address: this.address, port, exclusive: true }, () => {
          s.off('error', reject);
          resolve();
        });
      });
      s.on('error', () => undefined);
      s.on('message', (msg, from) => this.fromClient(s, port, msg, from));
      this.sockets.set(port, s);
    }
  }

  private async unbind(): Promise<void> {
    const all = [...this.sockets.values()];
    this.sockets.clear();
    await Promise.all(all.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  private fromClient(s: Socket, port: number, msg: Buffer, from: { address: string; port: number }): void {
    if (this.fault?.kind === 'drop') return;
    const id = `${port}|${from.address}|${from.port}`;
    let flow = this.flows.get(id);
    if (!flow) {
      const up = createSocket(isIPv6(this.target) ? 'udp6' : 'udp4');
      up.on('error', () => undefined);
      up.on('message', (reply) => {
        if (this.fault?.kind === 'drop') return;
        const send = () => (this.sockets.get(port) === s ? s.send(reply, from.port, from.address) : undefined);
        if (this.fault?.kind === 'delay') setTimeout(send, this.fault.n!).unref();
        else send();
      });
      const f: Flow = { up, last: 0, queue: [] };
      up.connect(port, this.target, () => {
        for (const m of f.queue ?? []) up.send(m);
        f.queue = undefined;
      });
      flow = f;
      this.flows.set(id, flow);
    }
    flow.last = Date.now();
    if (flow.queue) flow.queue.push(msg);
    else flow.up.send(msg);
  }

  private expire(): void {
    const old = Date.now() - FLOW_IDLE_MS;
    for (const [id, f] of this.flows) {
      if (f.last >= old) continue;
      f.up.close();
      this.flows.delete(id);
    }
  }
}
