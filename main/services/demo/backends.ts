// Sample backends for the demo workspace, on loopback only: the two web servers answer the web
// group's HTTP check, and the IPFE target set's two servers (DA-MP 1, 2) accept TCP on 3868 and
// echo what they get, so the lab shows live states the moment it starts. dir1 (LDAP) has none
// on purpose: the demo shows what a server that is down looks like, and why.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';

export interface DemoBackend { name: string; address: string; port: number; kind?: 'http' | 'tcp' }
export const DEMO_BACKENDS: DemoBackend[] = [
  { name: 'web1', address: '127.0.0.21', port: 8081 },
  { name: 'web2', address: '127.0.0.22', port: 8081 },
  { name: 'DA-MP 1', address: '127.0.0.51', port: 3868, kind: 'tcp' },
  { name: 'DA-MP 2', address: '127.0.0.52', port: 3868, kind: 'tcp' },
];

function httpBackend(b: DemoBackend): Server {
  return createServer((req, res) => {
    const body = req.url === '/status' ? `OK ${b.name}\n` : `hello from ${b.name}\n`;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

/** Echoes; its connections end with it (a net.Server's close waits for them otherwise). */
function tcpBackend() {
  const open = new Set<Socket>();
  const server = createTcpServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  return Object.assign(server, { closeAllConnections: () => open.forEach((s) => s.destroy()) });
}

export async function startDemoBackends(backends = DEMO_BACKENDS): Promise<{ started: DemoBackend[]; failed: string[]; close(): Promise<void> }> {
  const servers: (Server | ReturnType<typeof tcpBackend>)[] = [];
  const started: DemoBackend[] = [];
  const failed: string[] = [];
  for (const b of backends) {
    const server = b.kind === 'tcp' ? tcpBackend() : httpBackend(b);
    const ok = await new Promise<boolean>((done) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        failed.push(`${b.name} ${b.address}:${b.port}: ${e.code ?? e.message}`);
        done(false);
      });
      server.listen(b.port, b.address, () => done(true));
    });
    if (ok) {
      servers.push(server);
      started.push(b);
    }
  }
  return {
    started,
    failed,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((done) => {
        s.closeAllConnections();
        s.close(() => done());
      })));
    },
  };
}
