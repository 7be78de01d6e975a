// A live HAProxy box for runtime operations: master-worker (`haproxy -W`), configured from a
// workspace whose appliance names an admin stats socket, behind the test's sshd; its backends
// answer with their name and hold every connection open until told, so sessions can be counted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema } from '../../../shared/model/schema';
import { renderForAppliance } from '../../../main/services/drivers';
import { waitFor } from '../sync/fixture';

export const HAPROXY = '/usr/sbin/haproxy';

export class HeldBackends {
  private readonly servers: Server[] = [];
  readonly open = new Set<Socket>();

  /** One server per [name, address] on `port`: says its name, then echoes `name:line`. */
  async start(list: [string, string][], port: number): Promise<void> {
    for (const [name, address] of list) {
      const s = createServer((c) => {
        this.open.add(c);
        c.on('close', () => this.open.delete(c));
        c.on('error', () => undefined);
        c.write(`${name}\n`);
        c.on('data', (d) => c.write(`${name}:${d.toString().trim()}\n`));
      });
      await new Promise<void>((r) => s.listen(port, address, () => r()));
      this.servers.push(s);
    }
  }

  async stop(): Promise<void> {
    for (const c of this.open) c.destroy();
    for (const s of this.servers) await new Promise<void>((r) => s.close(() => r()));
  }
}

/** A client connection through the VIP, held open: `first` is the backend that took it. */
export interface Held { socket: Socket; first: string; say(line: string): Promise<string>; close(): Promise<void> }

export function hold(host: string, port: number): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let buf = '';
    const waiting: ((line: string) => void)[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('held connection timed out')));
    socket.on('error', reject);
    socket.on('data', (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const w = waiting.shift();
        if (w) w(line);
      }
    });
    waiting.push((first) => {
      socket.setTimeout(0);
      resolve({
        socket, first,
        say: (line) => new Promise((r) => { waiting.push(r); socket.write(`${line}\n`); }),
        close: () => new Promise((r) => { socket.once('close', () => r()); socket.end(); }),
      });
    });
  });
}

/** srv_admin_state of a server straight from the box's admin socket, not through lbdesk (0 ready, 1 maint, 8 drain). */
export function adminBits(socket: string, backend: string, server: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    let out = '';
    c.on('data', (d) => (out += d));
    c.on('error', reject);
    c.on('end', () => {
      const line = out.split('\n').find((l) => l.split(' ')[3] === server);
      if (line) resolve(Number(line.split(' ')[6]));
      else reject(new Error(`no ${backend}/${server} on the box`));
    });
    c.write(`show servers state ${backend}\n`);
  });
}

/** The rendered config of `appliance` in the workspace text, with `extra` lines added to global. */
export function renderBox(yaml: string, appliance: string, extra: string[] = []): string {
  const workspace = workspaceSchema.parse(parse(yaml));
  const r = renderForAppliance(workspace, workspace.appliances.find((a) => a.name === appliance)!, { workspacePath: '/nowhere/site.yaml' });
  if (r.errors.length) throw new Error(JSON.stringify(r.errors));
  return r.text.replace(/^global\n/m, `global\n${extra.map((l) => `    ${l}\n`).join('')}`);
}

export class HaproxyBox {
  private child?: ChildProcess;
  log = '';

  constructor(readonly dir: string) {}

  get config(): string { return join(this.dir, 'haproxy.cfg'); }
  get pidFile(): string { return join(this.dir, 'haproxy.pid'); }
  get reload(): string { return `kill -USR2 $(cat ${this.pidFile})`; }

  async start(text: string): Promise<void> {
    writeFileSync(this.config, text, { mode: 0o600 });
    this.child = spawn(HAPROXY, ['-W', '-f', this.config, '-p', this.pidFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d) => (this.log += d));
    this.child.stderr!.on('data', (d) => (this.log += d));
    if (!(await waitFor(() => existsSync(this.pidFile), 10_000))) throw new Error(`haproxy did not start: ${this.log}`);
  }

  async stop(): Promise<void> {
    const h = this.child;
    if (h && h.exitCode === null && h.signalCode === null) {
      const exited = new Promise((r) => h.once('exit', r));
      h.kill('SIGTERM');
      const t = setTimeout(() => h.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
  }
}
