// The live lab through the contract: real health checks and real forwarding on loopback.
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StateChange } from '../../../../shared/api/types';
import type { MemberEvent } from '../../../../shared/api/contract';
import { callDirect } from '../../../../main/services/api/dispatch';
import { createAppServices, type AppServices } from '../../../../main/services/api/wiring';
import { browserShell } from '../../../../main/services/api/shell';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { ROOT } from '../../../helpers/cli';

const BACKEND = { address: '127.0.3.21', port: 18081 };
const VIP = { address: '127.0.3.10', port: 18080 };
const TEXT = `lbdesk: 1
name: lab-test   # a comment the lab does not care about
healthTimers: { interval: 1s, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 500ms }
servers:
  - { name: web1, address: ${BACKEND.address} }
groups:
  - name: web
    members: [{ server: web1, port: ${BACKEND.port} }]
    healthCheck: { type: http, http: { path: /status, expect: OK } }
services:
  - { name: web-vip, address: ${VIP.address}, port: ${VIP.port}, group: web }
`;

function startBackend(): Promise<Server> {
  const server = createServer((req, res) => res.end(req.url === '/status' ? 'OK\n' : 'hello from web1\n'));
  return new Promise((done) => server.listen(BACKEND.port, BACKEND.address, () => done(server)));
}

function get(path: string): Promise<string> {
  return new Promise((done, fail) => {
    request({ host: VIP.address, port: VIP.port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => done(body));
    }).on('error', fail).end();
  });
}

describe('lab over the contract', () => {
  let svc: AppServices;
  let backend: Server;
  const changes: StateChange[] = [];
  const path = join(mkdtempSync(join(tmpdir(), 'lbdesk-lab-')), 'lab.yaml');

  beforeAll(async () => {
    backend = await startBackend();
    svc = createAppServices({ shell: browserShell(), dataDir: join(path, '..'), resourcesDir: ROOT, secrets: new MemorySecretStore() });
    svc.events.subscribe((e) => {
      const change = e.event === 'lab.member' ? (e.payload as MemberEvent).change : undefined;
      if (change) changes.push(change);
    });
  });
  afterAll(async () => {
    await svc.stop();
    backend.closeAllConnections();
    await new Promise((done) => backend.close(done));
  });

  it('refuses to start on an invalid workspace, naming the problem', async () => {
    await expect(callDirect(svc.handlers, 'lab.start', { path, text: 'lbdesk: 1\nname: x\nservers: [{ name: a, address: nope }]\n' }))
      .rejects.toMatchObject({ code: 'refused', message: expect.stringMatching(/lab\.yaml:3:\d+: .*address/) });
  });

  it('starts, checks, forwards, sees a server go down and come back', async () => {
    const started = await callDirect(svc.handlers, 'lab.start', { path, text: TEXT });
    expect(started.running).toBe(true);
    await expect.poll(() => changes.map((c) => c.to), { timeout: 5000 }).toContain('available');
    await expect.poll(async () => (await callDirect(svc.handlers, 'lab.status', {})).listening.map((l) => l.name), { timeout: 5000 }).toContain('web-vip');
    expect(await get('/')).toBe('hello from web1\n');

    backend.closeAllConnections();
    await new Promise((done) => backend.close(done));
    await expect.poll(() => changes.at(-1)?.to, { timeout: 5000 }).toBe('unavailable');
    const history = await callDirect(svc.handlers, 'lab.history', { key: changes.at(-1)!.key });
    expect(history.results.some((r) => !r.ok && /ECONNREFUSED/.test(r.reason))).toBe(true);

    backend = await startBackend();
    await expect.poll(() => changes.at(-1)?.to, { timeout: 5000 }).toBe('available');
    const stopped = await callDirect(svc.handlers, 'lab.stop', {});
    expect(stopped.running).toBe(false);
  });

  it('an apply the engine refuses (a port taken) changes nothing, health checks included; a start leaves the taken address out, said with its holder', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, VIP.address, () => done()));
    const taken = (blocker.address() as { port: number }).port;
    const clash = `  - { name: clash, address: ${VIP.address}, port: ${taken}, group: web }\n`;
    try {
      // A lab that starts leaves the taken address out, says so in words with its holder (this
      // process), and still checks every member.
      const started = await callDirect(svc.handlers, 'lab.start', { path, text: TEXT + clash });
      expect(started.running).toBe(true);
      expect(started.unbound).toEqual([{ service: 'clash', address: VIP.address, port: taken, protocol: 'tcp', why: 'the address is already in use by another program', holder: { pid: process.pid, command: expect.any(String) } }]);
      expect(started.notes.join('\n')).not.toContain('EADDRINUSE');
      await expect.poll(async () => (await callDirect(svc.handlers, 'lab.status', {})).members[0]?.state, { timeout: 5000 }).toBe('available');
      await callDirect(svc.handlers, 'lab.stop', {});

      await callDirect(svc.handlers, 'lab.start', { path, text: TEXT });
      await expect.poll(async () => (await callDirect(svc.handlers, 'lab.status', {})).members[0]?.state, { timeout: 5000 }).toBe('available');
      const disabled = TEXT.replace(`address: ${BACKEND.address} }`, `address: ${BACKEND.address}, enabled: false }`) + clash;
      // A running lab changes nothing on refusal, and says which file it still runs.
      await expect(callDirect(svc.handlers, 'lab.apply', { path, text: disabled })).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^service clash cannot listen on ${VIP.address}:${taken}/tcp: the address is already in use by another program \\(\\S+, pid ${process.pid}\\); the lab still runs ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, unchanged`)) });
      expect((await callDirect(svc.handlers, 'lab.status', {})).members[0]?.state).toBe('available');
      expect(await get('/')).toBe('hello from web1\n');
    } finally {
      await callDirect(svc.handlers, 'lab.stop', {});
      await new Promise((done) => blocker.close(done));
    }
  });

  it('says a configuration\'s notices once, and no more once a workspace without them is applied', async () => {
    // A target set with SCTP: the engine says SCTP is kept but only TCP is forwarded.
    const withSctp = TEXT.replace('services:\n', 'targetSets:\n  - { number: 9, address: 127.0.3.30, ports: [18099], protocols: both, healthCheck: { type: none }, servers: [{ address: 127.0.3.21 }] }\nservices:\n');
    // The engine's notices come as events, just after the apply: poll the status until they are in.
    const sctpNotes = (count: number) => vi.waitFor(async () => {
      const notes = (await callDirect(svc.handlers, 'lab.status', {})).notes.filter((n) => /SCTP/.test(n));
      expect(notes).toHaveLength(count);
    }, { timeout: 10_000, interval: 50 });
    await callDirect(svc.handlers, 'lab.start', { path, text: withSctp });
    await sctpNotes(1);
    await callDirect(svc.handlers, 'lab.apply', { path, text: withSctp });
    await new Promise((r) => setTimeout(r, 300)); // proves a negative: no second copy comes after the apply
    await sctpNotes(1);
    await callDirect(svc.handlers, 'lab.apply', { path, text: TEXT });
    await sctpNotes(0);
    await callDirect(svc.handlers, 'lab.stop', {});
  });

  it('runs one-off checks (lbdesk check through the contract)', async () => {
    const rows = await callDirect(svc.handlers, 'check.run', { path, text: TEXT });
    expect(rows).toMatchObject([{ server: 'web1', check: 'http', state: 'available' }]);
  });
});

describe('lab scope', () => {
  it('binds loopback services only and says why the others are left out', async () => {
    const { labScope } = await import('../../../../main/services/lab/local');
    const { parseWorkspace } = await import('../../../../shared/model');
    const text = TEXT.replace('services:\n', `services:\n  - { name: wild, address: 0.0.0.0, port: 18090, group: web }\n  - { name: doc, address: 192.0.2.10, port: 80, group: web }\n  - { name: v6, address: "::1", port: 18091, group: web }\n`);
    const { workspace } = parseWorkspace(text, 'scope.yaml');
    const scoped = labScope(workspace!);
    expect(scoped.workspace.services.map((s) => s.name)).toEqual(['v6', 'web-vip']);
    expect(scoped.notes).toEqual([expect.stringContaining('service wild (0.0.0.0:18090)'), expect.stringContaining('service doc (192.0.2.10:80)')]);
  });
});
