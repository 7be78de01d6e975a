// TCP, UDP and ICMP Layer 4 probes against real sockets on loopback (127.0.4.10-19).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeContext } from '../../../../main/services/health/probes';
import { TCP_IO, tcpProbeVia } from '../../../../main/services/health/probes/tcp';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { freePort, startTcpListener, startUdpSink, type Running } from '../../../helpers/servers';
import { skipBecause } from '../../../helpers/skip';

const H = '127.0.4.10';
const open: Running[] = [];
afterAll(async () => Promise.all(open.map((s) => s.close())));
const ctx = (over: Partial<ProbeContext>): ProbeContext => ({ address: H, timeoutMs: 1000, secrets: new MemorySecretStore(), check: { type: 'auto' }, ...over });

function have(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.each(['uv', 'net'] as const)('TCP Layer 4 through %s sockets', (io) => {
  it('passes on SYN-ACK and ends the connection with RST, as the ADX does', async () => {
    const l = await startTcpListener(H);
    open.push(l);
    const r = await tcpProbeVia(io, ctx({ port: l.port }));
    expect(r.ok).toBe(true);
    expect(r.reason).toMatch(/^TCP handshake in .* closed with RST$/);
    expect(r.rttMs).toBeGreaterThan(0);
    await new Promise((res) => setTimeout(res, 100));
    expect(l.accepted).toBe(1);
    expect(l.endings).toEqual(['reset']);
  });

  it('fails with the errno when nothing listens', async () => {
    const r = await tcpProbeVia(io, ctx({ port: await freePort(H) }));
    expect(r).toMatchObject({ ok: false, reason: 'connect ECONNREFUSED', evidence: { errno: 'ECONNREFUSED' } });
  });

  it('fails without a port', async () => {
    const r = await tcpProbeVia(io, ctx({}));
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('no port');
  });
});

it('the engine uses the libuv handle where the runtime has it', () => {
  expect(TCP_IO).toBe(process.env.LBDESK_HEALTH_IO === 'net' ? 'net' : 'uv');
});

describe('UDP Layer 4', () => {
  it('silence until the timeout means up', async () => {
    const sink = await startUdpSink(H);
    open.push(sink);
    const r = await runProbe('udp', ctx({ port: sink.port, timeoutMs: 300 }));
    expect(r).toMatchObject({ ok: true, reason: 'no ICMP port unreachable within 300 ms (silence means up)' });
    expect(sink.received).toHaveLength(1);
  });

  it('ICMP port unreachable (ECONNREFUSED on the connected socket) means down, at once', async () => {
    const r = await runProbe('udp', ctx({ port: await freePort(H, 'udp'), timeoutMs: 3000 }));
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^ICMP port unreachable after .* \(ECONNREFUSED\)$/);
    expect(r.evidence).toMatchObject({ errno: 'ECONNREFUSED', icmp: 'port unreachable' });
    expect(r.rttMs!).toBeLessThan(1000);
  });
});

const noPing = have('ping') ? '' : ' (skipped: ping is not installed; apt-get install iputils-ping)';
describe.skipIf(skipBecause(noPing, 'ping probe'))(`ping (ICMP echo via the system ping)${noPing}`, () => {
  it('an echo reply passes, with its time as the response time', async () => {
    const r = await runProbe('ping', ctx({ address: '127.0.4.11' }));
    expect(r.ok).toBe(true);
    expect(r.reason).toMatch(/^ICMP echo reply in /);
    expect(String(r.evidence.reply)).toContain('bytes from 127.0.4.11');
    expect(r.rttMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a missing ping command plainly', async () => {
    const r = await runProbe('ping', ctx({ pingCommand: ['/nonexistent/ping'] }));
    expect(r).toMatchObject({ ok: false, reason: '/nonexistent/ping is not installed (install iputils-ping)' });
  });

  // A fresh network namespace has its loopback down: the real ping, the real kernel answer.
  const netns = have('unshare') && process.getuid?.() === 0;
  const why = netns ? '' : ' (skipped: needs unshare and root)';
  it.skipIf(skipBecause(why, 'ping in an empty network namespace'))(`fails when the network is unreachable (ping in an empty network namespace)${why}`, async () => {
    const r = await runProbe('ping', ctx({ pingCommand: ['unshare', '-n', 'ping'] }));
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/Network is unreachable/);
    expect(r.evidence.exitCode).toBe(2);
  });

  const canIgnore = netns && have('ip') && have('sysctl');
  it.skipIf(skipBecause(!canIgnore && 'needs unshare, ip, sysctl and root', 'ping without echo replies'))(`fails when no echo reply comes back within the timeout${canIgnore ? '' : ' (skipped: needs unshare, ip, sysctl and root)'}`, async () => {
    const shell = 'ip link set lo up && sysctl -qw net.ipv4.icmp_echo_ignore_all=1 && exec ping "$@"';
    const r = await runProbe('ping', ctx({ timeoutMs: 300, pingCommand: ['unshare', '-n', 'sh', '-c', shell, 'ping'] }));
    expect(r).toMatchObject({ ok: false, reason: 'no ICMP echo reply within 300 ms', evidence: { exitCode: 1 } });
  });
});
