// Sample backends for the demo workspace, on loopback only: two web servers answering the
// group's HTTP check, so the lab shows live states the moment it starts.
import { createServer, type Server } from 'node:http';

export interface DemoBackend { name: string; address: string; port: number }
export const DEMO_BACKENDS: DemoBackend[] = [
  { name: 'web1', address: '127.0.0.21', port: 8081 },
  { name: 'web2', address: '127.0.0.22', port: 8081 },
];

export async function startDemoBackends(backends = DEMO_BACKENDS): Promise<{ started: DemoBackend[]; failed: string[]; close(): Promise<void> }> {
  const servers: Server[] = [];
  const started: DemoBackend[] = [];
  const failed: string[] = [];
  for (const b of backends) {
    const server = createServer((req, res) => {
      const body = req.url === '/status' ? `OK ${b.name}\n` : `hello from ${b.name}\n`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
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
      await Promise.all(servers.map((s) => new Promise<void>((done) => { s.closeAllConnections(); s.close(() => done()); })));
    },
  };
}
