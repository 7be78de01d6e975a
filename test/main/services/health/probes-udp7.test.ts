// DNS and RADIUS Layer 7 probes against real UDP servers on loopback (127.0.4.40-49).
import { afterAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import type { HealthCheck } from '../../../../shared/model/schema';
import { freePort, startDnsServer, startRadiusServer, type Running } from '../../../helpers/servers';

const H = '127.0.4.40';
const open: Running[] = [];
afterAll(async () => Promise.all(open.map((s) => s.close())));
const secrets = new MemorySecretStore();
const ctx = (port: number, check: HealthCheck, over: Partial<ProbeContext> = {}): ProbeContext => ({ address: H, port, timeoutMs: 500, secrets, check, ...over });
const dnsCheck = (query: string, recordType: 'A' | 'MX' = 'A'): HealthCheck => ({ type: 'dns', dns: { query, recordType } });

describe('DNS: NOERROR with an answer, nothing less', async () => {
  const dns = await startDnsServer(H, (q) => {
    if (q.name === 'www.lab.test') return { answers: [{ type: 'A', name: q.name, ttl: 60, data: '127.0.4.41' }] };
    if (q.name === 'empty.lab.test') return { answers: [] };
    if (q.name === 'broken.lab.test') return { rcode: 'SERVFAIL' };
    if (q.name === 'quiet.lab.test') return { silent: true };
    return { rcode: 'NXDOMAIN' };
  });
  open.push(dns);

  it('passes on NOERROR with an answer and keeps the rcode and answer as evidence', async () => {
    const r = await runProbe('dns', ctx(dns.port, dnsCheck('www.lab.test')));
    expect(r).toMatchObject({ ok: true, evidence: { rcode: 'NOERROR', answers: 1, firstAnswer: 'A 127.0.4.41', question: 'A www.lab.test' } });
    expect(r.reason).toMatch(/^A www\.lab\.test: NOERROR, 1 answer\(s\) \(A 127\.0\.4\.41\) in /);
  });

  it.each([
    ['nothing.lab.test', 'A nothing.lab.test: NXDOMAIN'],
    ['broken.lab.test', 'A broken.lab.test: SERVFAIL'],
    ['empty.lab.test', 'A empty.lab.test: NOERROR but no answer'],
  ])('%s fails: %s', async (name, reason) => {
    expect(await runProbe('dns', ctx(dns.port, dnsCheck(name)))).toMatchObject({ ok: false, reason });
  });

  it('a server that does not answer fails at the timeout', async () => {
    expect(await runProbe('dns', ctx(dns.port, dnsCheck('quiet.lab.test')))).toMatchObject({ ok: false, reason: 'A quiet.lab.test: no answer within 500 ms' });
  });

  it('a closed port fails at once on ICMP port unreachable', async () => {
    const r = await runProbe('dns', ctx(await freePort(H, 'udp'), dnsCheck('www.lab.test'), { timeoutMs: 3000 }));
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^A www\.lab\.test: ICMP port unreachable after /);
  });

  it('without dns settings it asks for the root NS set', async () => {
    const seen: string[] = [];
    const d = await startDnsServer(H, (q) => {
      seen.push(`${q.type} ${q.name}`);
      return { answers: [{ type: 'NS', name: '.', ttl: 60, data: 'a.root.test' }] };
    });
    open.push(d);
    expect((await runProbe('dns', ctx(d.port, { type: 'dns' }))).ok).toBe(true);
    expect(seen[0]).toMatch(/^NS \.?$/);
  });
});

describe('RADIUS with the shared secret from the secret store', async () => {
  await secrets.set(secretName.named('lab-radius'), 'correct horse');
  const radius = (check: Partial<NonNullable<HealthCheck['radius']>> = {}): HealthCheck => ({ type: 'radius', radius: { secret: 'lab-radius', mode: 'status-server', ...check } });
  const server = async (opts: Parameters<typeof startRadiusServer>[1]) => {
    const s = await startRadiusServer(H, opts);
    open.push(s);
    return s;
  };

  it('Status-Server answered by Access-Accept with a valid authenticator passes', async () => {
    const s = await server({ secret: 'correct horse', reply: 2 });
    const r = await runProbe('radius', ctx(s.port, radius()));
    expect(r).toMatchObject({ ok: true, evidence: { request: 'Status-Server', reply: 'Access-Accept' } });
    expect(s.verified).toBe(1);
  });

  it('Access-Request: Accept passes, Reject passes too (alive, same secret) and says so', async () => {
    const accept = await server({ secret: 'correct horse', reply: 2 });
    expect((await runProbe('radius', ctx(accept.port, radius({ mode: 'access-request', username: 'probe' })))).ok).toBe(true);
    const reject = await server({ secret: 'correct horse', reply: 3 });
    const r = await runProbe('radius', ctx(reject.port, radius({ mode: 'access-request' })));
    expect(r.ok).toBe(true);
    expect(r.reason).toContain('Access-Reject');
    expect(r.reason).toContain('shares the secret');
  });

  it('a server with another secret drops the request: the check times out and says why it may be', async () => {
    const s = await server({ secret: 'other secret', reply: 2 });
    const r = await runProbe('radius', ctx(s.port, radius()));
    expect(r).toMatchObject({ ok: false, reason: 'Status-Server: no answer within 500 ms (down, or a different shared secret)' });
    expect(s.dropped).toBe(1);
  });

  it('a reply signed with another secret fails on the Response Authenticator', async () => {
    const s = await server({ secret: 'correct horse', reply: 2, signWith: 'other secret' });
    const r = await runProbe('radius', ctx(s.port, radius()));
    expect(r).toMatchObject({ ok: false, reason: 'Access-Accept with a wrong Response Authenticator: the server has a different shared secret' });
  });

  it('a secret missing from the store fails without sending anything', async () => {
    const s = await server({ secret: 'correct horse', reply: 2 });
    const r = await runProbe('radius', ctx(s.port, radius({ secret: 'not-stored' })));
    expect(r).toMatchObject({ ok: false, reason: 'shared secret "not-stored" is not in the secret store' });
    expect(s.received).toHaveLength(0);
  });

  it('a closed port fails on ICMP port unreachable', async () => {
    const r = await runProbe('radius', ctx(await freePort(H, 'udp'), radius(), { timeoutMs: 3000 }));
    expect(r.reason).toMatch(/^Status-Server: ICMP port unreachable after /);
  });
});
