// The lab's own path: the health checker and the forwarding engine in one process, as the app's
// lab (main/services/lab) runs them, forwarding new connections flat out while the checker runs
// 20,000 members. Measured in one run, rounds alternating:
//   alone  the checker stopped: wrk new connections through the VIP (the forwarding baseline);
//   busy   the checker running every member: the same wrk, and the checks' lateness meanwhile;
//   quiet  the checker running, no traffic: the lateness baseline;
//   haproxy  the same wrk through HAProxy (nbthread 1) to the same nginx: the peer.
// Goals: forwarding with the checker busy >= 0.9x alone and >= 1.0x HAProxy; check lateness p99
// while forwarding < 100 ms (the health bench's goal). On 2 cores wrk, nginx, the data thread and
// the checker share two cores: what the checker takes, forwarding cannot have (said in the output).
//
//   npx tsx bench/lab.ts [--rounds 9] [--seconds 3] [--members 20000] [--interval 2000]
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ForwardingEngine } from '../main/services/engine';
import { HealthChecker } from '../main/services/health';
import { MemorySecretStore } from '../main/services/secrets/memory';
import { workspaceSchema } from '../shared/model/schema';
import { haproxyTcp } from './lib/haproxy';
import { startListeners } from './lib/listeners';

process.setSourceMapsEnabled(false); // as bench/health.ts: a built lbdesk does not pay for them

const run = promisify(execFile);
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 9);
const SECONDS = arg('seconds', 3);
const MEMBERS = arg('members', 20_000);
const INTERVAL = arg('interval', 2000);
const WARMUP_MS = 4000;
const NGINX = { address: '127.0.19.1', port: 18280 };
const HAPROXY = { address: '127.0.19.2', port: 18281 };
const VIP = { address: '127.0.19.3', port: 18282 };
const ADDRESSES = 500;
const address = (i: number) => `127.19.${Math.floor(i / 250) + 1}.${(i % 250) + 1}`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** wrk asynchronously: the checker shares this thread's event loop and must keep running. */
async function wrk(at: { address: string; port: number }): Promise<{ perSec: number; count: number; errors: boolean }> {
  const { stdout } = await run('wrk', ['-t1', '-c50', `-d${SECONDS}s`, '-H', 'Connection: close', `http://${at.address}:${at.port}/`]);
  return {
    perSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0),
    count: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0),
    errors: /Socket errors|Non-2xx/.test(stdout),
  };
}

async function main(): Promise<void> {
  for (const bin of ['/usr/sbin/nginx', '/usr/sbin/haproxy', '/usr/bin/wrk']) {
    if (!existsSync(bin)) throw new Error(`${bin} is missing (apt-get install -y nginx haproxy wrk)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx.err warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen ${NGINX.address}:${NGINX.port} backlog=4096; location = / { return 200 "hello\\n"; } }
}
`);
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyTcp(HAPROXY, NGINX));
  const procs: ChildProcess[] = [spawn('/usr/sbin/nginx', ['-c', join(dir, 'nginx.conf')], { stdio: 'ignore' })];
  procs.push(spawn('/usr/sbin/haproxy', ['-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' }));
  const addrs = Array.from({ length: ADDRESSES }, (_, i) => address(i));
  const listeners = await startListeners(addrs, 4);
  const perGroup = ADDRESSES;
  const groups = Array.from({ length: Math.ceil(MEMBERS / perGroup) }, (_, g) => ({
    name: `many-${g}`,
    members: Array.from({ length: Math.min(perGroup, MEMBERS - g * perGroup) }, (_, i) => ({ server: `s${i}`, port: listeners.open[g % 4]! })),
    healthCheck: { type: 'tcp' as const },
  }));
  const workspace = workspaceSchema.parse({
    lbdesk: 1,
    name: 'bench-lab',
    healthTimers: { interval: `${INTERVAL}ms`, retryInterval: `${INTERVAL}ms`, failAfter: 2, restoreAfter: 2, timeout: '1s' },
    servers: [{ name: 'nginx', address: NGINX.address }, ...addrs.map((a, i) => ({ name: `s${i}`, address: a }))],
    groups: [{ name: 'web', members: [{ server: 'nginx', port: NGINX.port }], healthCheck: { type: 'tcp' } }, ...groups],
    services: [{ name: 'vip', address: VIP.address, port: VIP.port, group: 'web', algorithm: 'round-robin' }],
  });
  const members = groups.reduce((n, g) => n + g.members.length, 0);
  // The app's lab: one checker, the engine reading its states (main/services/lab/index.ts).
  const health = new HealthChecker({ secrets: new MemorySecretStore() });
  const engine = new ForwardingEngine({ health, io: 'native' });
  let results = 0;
  health.on('result', () => (results += 1));
  try {
    health.apply(workspace);
    health.start();
    const applied = await engine.apply(workspace);
    if (!applied.ok) throw new Error(`the engine refused the workspace: ${JSON.stringify(applied)}`);
    if ((await engine.refreshStats()).io !== 'native') throw new Error('the native data path did not load (npm run build:native)');
    await sleep(WARMUP_MS);
    for (const at of [VIP, HAPROXY]) {
      for (let i = 0; !(await wrk(at).catch(() => ({ errors: true, perSec: 0 }))).perSec; i++) if (i === 10) throw new Error(`${at.address}:${at.port} does not forward`);
    }
    const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`lab path: checker + engine (native) in one process, ${members} members TCP every ${INTERVAL} ms; wrk -t1 -c50 new connections; HAProxy nbthread 1; ${ROUNDS} rounds x ${SECONDS} s, order alternating; ${new Date().toISOString()}`);
    console.log(`load average at the start: ${load()} on 2 cores`);
    const fig: Record<'alone' | 'busy' | 'haproxy' | 'busyP99' | 'quietP99' | 'checksPerSec' | 'cpuAlone' | 'cpuBusy', number[]> = { alone: [], busy: [], haproxy: [], busyP99: [], quietP99: [], checksPerSec: [], cpuAlone: [], cpuBusy: [] };
    let checking = true;
    const setChecking = async (on: boolean) => {
      if (on === checking) return;
      checking = on;
      if (on) {
        health.apply(workspace);
        health.start();
        await sleep(WARMUP_MS); // its first round of every member, then its steady pace
      } else await health.stop();
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const phases = round % 2 ? (['alone', 'busy', 'quiet', 'haproxy'] as const) : (['haproxy', 'quiet', 'busy', 'alone'] as const);
      const cells: string[] = [];
      for (const phase of phases) {
        if (phase === 'haproxy') {
          const r = await wrk(HAPROXY);
          fig.haproxy.push(r.perSec);
          cells.push(`haproxy ${r.perSec.toFixed(0)}/s${r.errors ? ' ERRORS' : ''}`);
          continue;
        }
        await setChecking(phase !== 'alone');
        health.resetStats();
        const r0 = results;
        const cpu0 = process.cpuUsage();
        const t0 = Date.now();
        const r = phase === 'quiet' ? (await sleep(SECONDS * 1000), undefined) : await wrk(VIP);
        const cpu = process.cpuUsage(cpu0);
        const lateness = health.stats().lateness;
        if (phase === 'quiet') {
          fig.quietP99.push(lateness.p99);
          cells.push(`quiet checks p99 late ${lateness.p99} ms`);
          continue;
        }
        // CPU of this whole process (checker, engine worker, data thread) per connection, in µs.
        const perConn = r!.count ? (cpu.user + cpu.system) / r!.count : 0;
        fig[phase].push(r!.perSec);
        fig[phase === 'alone' ? 'cpuAlone' : 'cpuBusy'].push(perConn);
        if (phase === 'busy') {
          fig.busyP99.push(lateness.p99);
          fig.checksPerSec.push(((results - r0) * 1000) / (Date.now() - t0));
        }
        cells.push(`${phase} ${r!.perSec.toFixed(0)}/s${r!.errors ? ' ERRORS' : ''}${phase === 'busy' ? ` checks p99 late ${lateness.p99} ms` : ''}`);
      }
      console.log(`round ${round}  ${cells.join(' | ')}`);
    }
    const ratios = (a: number[], b: number[]) => a.map((v, i) => v / b[i]!);
    const line = (label: string, rs: number[], goal: number) => {
      const r = median(rs);
      console.log(`  ${label.padEnd(44)} ${r.toFixed(2)} (rounds ${Math.min(...rs).toFixed(2)}-${Math.max(...rs).toFixed(2)})  goal >= ${goal.toFixed(1)}: ${r >= goal ? 'met' : 'not met'}`);
    };
    console.log(`\nmedians over ${ROUNDS} rounds:`);
    console.log(`  new connections/s: alone ${median(fig.alone).toFixed(0)}, checker busy ${median(fig.busy).toFixed(0)}, HAProxy ${median(fig.haproxy).toFixed(0)}`);
    line('forwarding with the checker busy / alone', ratios(fig.busy, fig.alone), 0.9);
    line('forwarding with the checker busy / HAProxy', ratios(fig.busy, fig.haproxy), 1.0);
    const p99 = median(fig.busyP99);
    console.log(`  check lateness p99 while forwarding          ${p99} ms (quiet ${median(fig.quietP99)} ms)  goal < 100 ms: ${p99 < 100 ? 'met' : 'not met'}`);
    console.log(`  checks/s while forwarding                    ${median(fig.checksPerSec).toFixed(0)} (nominal ${Math.round((members / INTERVAL) * 1000)})`);
    console.log(`  lab process CPU per forwarded connection     alone ${median(fig.cpuAlone).toFixed(1)} µs, checker busy ${median(fig.cpuBusy).toFixed(1)} µs (the checker's own CPU included)`);
    console.log(`load average at the end: ${load()} on 2 cores: wrk, nginx, the data thread and the checker share them, so what the checker takes forwarding cannot have`);
  } finally {
    await health.stop();
    await engine.stop();
    listeners.stop();
    for (const p of procs) p.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/lab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
