// Health-checker benchmark: many members on loopback, TCP Layer 4 checks at a fixed interval.
// Goal: 20,000 members at 2 s (10,000 checks/s), no false transitions, p99 lateness < 100 ms.
//
//   npx tsx bench/health.ts [--members 20000] [--interval 2000] [--seconds 20] [--strict]
//                           [--probe-threads N] [--max-in-flight N]
//
// Members spread over 500 addresses in 127.4.0.0/16 and five ports: four with listeners (in a
// child process, so the checker gets a core of its own) and one closed, whose 5 % of members
// must stay down. Every member's state is known in advance, so any transition after its first
// result is false. Loopback only, bounded in time: the run stops after --seconds.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HealthChecker } from '../main/services/health';
import { TCP_IO } from '../main/services/health/probes/tcp';
import { MemorySecretStore } from '../main/services/secrets/memory';
import { workspaceSchema } from '../shared/model/schema';
import { ask, startListeners } from './lib/listeners';

// tsx turns on source-mapped stack traces; Node's streams format the stack of every socket
// error (each ECONNREFUSED of the closed-port members), and under tsx that waits on its loader
// thread. A built lbdesk does not pay that, so neither does the benchmark.
process.setSourceMapsEnabled(false);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const MEMBERS = arg('members', 20_000);
const INTERVAL = arg('interval', 2000);
const SECONDS = Math.min(arg('seconds', 20), 120);
const WARMUP_MS = Math.min(4000, SECONDS * 250); // first round and settling, not measured
const STRICT = process.argv.includes('--strict');
// The checker's defaults unless given: checks in flight (1000), probe threads (2 on 2+ cores).
const MAX_IN_FLIGHT = arg('max-in-flight', 0);
const PROBE_THREADS = process.argv.includes('--probe-threads') ? arg('probe-threads', 0) : undefined;
const ADDRESSES = 500;
const OPEN_PORTS = 4;
const SERVERS_PER_GROUP = ADDRESSES;
const GROUPS = Math.ceil(MEMBERS / SERVERS_PER_GROUP);
const CLOSED_GROUPS = Math.max(1, Math.round(GROUPS * 0.05));

const address = (i: number) => `127.4.${Math.floor(i / 250)}.${(i % 250) + 1}`;

async function main(): Promise<void> {
  const addrs = Array.from({ length: ADDRESSES }, (_, i) => address(i));
  const listeners = await startListeners(addrs, OPEN_PORTS);
  const { child, open: ports, closed: closedPort } = listeners;

  const groups = Array.from({ length: GROUPS }, (_, g) => {
    const closed = g >= GROUPS - CLOSED_GROUPS;
    const port = closed ? closedPort : ports[g % OPEN_PORTS]!;
    const count = Math.min(SERVERS_PER_GROUP, MEMBERS - g * SERVERS_PER_GROUP);
    return { name: `${closed ? 'closed' : 'open'}-${g}`, members: Array.from({ length: count }, (_, i) => ({ server: `s${i}`, port })), healthCheck: { type: 'tcp' as const } };
  });
  const workspace = workspaceSchema.parse({
    lbdesk: 1,
    name: 'bench',
    healthTimers: { interval: `${INTERVAL}ms`, retryInterval: `${INTERVAL}ms`, failAfter: 2, restoreAfter: 2, timeout: '1s' },
    servers: addrs.map((a, i) => ({ name: `s${i}`, address: a })),
    groups,
  });
  const memberCount = groups.reduce((n, g) => n + g.members.length, 0);
  const downExpected = groups.filter((g) => g.name.startsWith('closed')).reduce((n, g) => n + g.members.length, 0);

  const checker = new HealthChecker({
    secrets: new MemorySecretStore(),
    ...(MAX_IN_FLIGHT ? { maxInFlight: MAX_IN_FLIGHT } : {}),
    ...(PROBE_THREADS !== undefined ? { probeThreads: PROBE_THREADS } : {}),
  });
  const firstSeen = new Set<string>();
  let falseTransitions = 0;
  const falseExamples: string[] = [];
  checker.on('change', (c) => {
    if (c.from === 'unknown' && !firstSeen.has(c.key)) {
      firstSeen.add(c.key);
      const want = c.key.startsWith('g:closed') ? 'unavailable' : 'available';
      if (c.to === want) return;
    }
    falseTransitions += 1;
    if (falseExamples.length < 5) falseExamples.push(`${c.key}: ${c.from} -> ${c.to} (${c.reason})`);
  });
  let results = 0;
  const rtts: number[] = [];
  let wrongResults = 0;
  checker.on('result', ({ key, result: r }) => {
    results += 1;
    const shouldPass = key.startsWith('g:open');
    if (r.ok !== shouldPass) wrongResults += 1;
    if (measuring && r.rttMs !== undefined) rtts.push(r.rttMs);
  });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  const t0 = Date.now();
  checker.apply(workspace);
  checker.start();
  let firstRoundMs = 0;
  // Checks in flight, sampled: how far behind the probes' answers are.
  let inFlightMax = 0;
  let measuring = false;
  const firstRound = setInterval(() => {
    if (!firstRoundMs && firstSeen.size >= memberCount) firstRoundMs = Date.now() - t0;
    if (measuring) inFlightMax = Math.max(inFlightMax, checker.stats().inFlight);
  }, 10);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const startupLateness = checker.stats().lateness;
  checker.resetStats();
  loop.reset();
  const childCpu0 = (await ask<{ cpu: NodeJS.CpuUsage }>(child, 'stats', 'cpu')).cpu;
  const cpu0 = process.cpuUsage();
  const results0 = results;
  measuring = true;
  const tm0 = Date.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000 - WARMUP_MS));
  const windowMs = Date.now() - tm0;
  const checks = results - results0;
  const cpu = process.cpuUsage(cpu0);
  const childStats = await ask<{ cpu: NodeJS.CpuUsage; accepted: number }>(child, 'stats', 'cpu');
  const stats = checker.stats();
  const probeThreads = checker.probeThreads;
  const inFlightCap = checker.maxInFlight;
  measuring = false;
  rtts.sort((a, b) => a - b);
  const q = (f: number) => rtts[Math.floor(rtts.length * f)] ?? 0;
  clearInterval(firstRound);
  loop.disable();
  await checker.stop();
  listeners.stop();

  const states = checker.all().reduce<Record<string, number>>((acc, s) => ((acc[s.state] = (acc[s.state] ?? 0) + 1), acc), {});
  const pct = (u: NodeJS.CpuUsage) => Math.round(((u.user + u.system) / 1000 / windowMs) * 1000) / 10;
  const childCpu = { user: childStats.cpu.user - childCpu0.user, system: childStats.cpu.system - childCpu0.system };
  const rate = Math.round((checks / windowMs) * 1000);
  const target = Math.round((memberCount / INTERVAL) * 1000);
  const goals = {
    rate: rate >= target * 0.95,
    falseTransitions: falseTransitions === 0 && wrongResults === 0,
    p99: stats.lateness.p99 < 100,
  };
  const report = {
    tcpIo: TCP_IO,
    members: memberCount,
    expectedDown: downExpected,
    intervalMs: INTERVAL,
    measuredSeconds: Math.round(windowMs / 100) / 10,
    checksPerSecond: rate,
    nominalChecksPerSecond: target,
    checkerCpuPercent: pct(cpu),
    listenerCpuPercent: pct(childCpu),
    latenessMs: stats.lateness,
    eventLoopDelayP99Ms: Math.round(loop.percentile(99) / 1e4) / 100,
    inFlightMax,
    probeThreads,
    handshakeMs: { p50: q(0.5), p99: q(0.99), max: rtts[rtts.length - 1] ?? 0 },
    startup: { firstRoundMs: firstRoundMs || null, latenessMs: startupLateness },
    falseTransitions,
    wrongResults,
    finalStates: states,
    rssMiB: Math.round(process.memoryUsage().rss / 1048576),
    goals,
  };
  const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(24)} ${v}\n`);
  line('members', `${memberCount} (${downExpected} on a closed port, expected down) over ${ADDRESSES} addresses, ${OPEN_PORTS + 1} ports`);
  line('interval', `${INTERVAL} ms (retry ${INTERVAL} ms), TCP Layer 4 (${TCP_IO} sockets), jitter 0.1`);
  line('measured', `${report.measuredSeconds} s after ${WARMUP_MS / 1000} s warm-up`);
  line('checks/s', `${rate} (nominal ${target}) ${goals.rate ? 'ok' : 'BELOW GOAL'}`);
  line('CPU', `checker ${report.checkerCpuPercent} % of one core, listeners ${report.listenerCpuPercent} %`);
  line('lateness vs schedule', `(due → connect call) p50 ${stats.lateness.p50} ms, p99 ${stats.lateness.p99} ms, max ${stats.lateness.max} ms ${goals.p99 ? 'ok' : 'ABOVE GOAL'}`);
  line('event-loop delay p99', `${report.eventLoopDelayP99Ms} ms`);
  line('handshake time', `p50 ${report.handshakeMs.p50} ms, p99 ${report.handshakeMs.p99} ms, max ${report.handshakeMs.max} ms (as the probes measured it)`);
  line('checks in flight', `max ${inFlightMax} (cap ${inFlightCap}), probe threads ${report.probeThreads}`);
  line('start-up', `first check of every member within ${firstRoundMs ? `${firstRoundMs} ms` : 'the warm-up: NOT REACHED'}; start-up lateness p99 ${startupLateness.p99} ms`);
  line('false transitions', `${falseTransitions}${falseExamples.length ? ` e.g. ${falseExamples.join('; ')}` : ''} ${goals.falseTransitions ? 'ok' : 'FALSE TRANSITIONS'}`);
  line('wrong results', String(wrongResults));
  line('final states', JSON.stringify(states));
  line('rss', `${report.rssMiB} MiB`);
  process.stdout.write(`${JSON.stringify({ bench: 'health', ...report })}\n`);
  if (STRICT && !(goals.rate && goals.falseTransitions && goals.p99)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/health: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
