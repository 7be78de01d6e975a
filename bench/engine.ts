// Forwarding engine benchmark: nginx on loopback as the backend; in front of it, side by side
// in one run, HAProxy (1 thread, mode tcp), nginx stream (1 worker) and `lbdesk serve` on each
// of its data paths: native (the C addon) and JavaScript (uv). wrk goes through each in turn,
// the order rotating every round. Prints per round and as medians each proxy's throughput and
// its ratio to HAProxy for keep-alive requests/s, new connections/s and bulk bytes/s, and each
// proxy's CPU time (user + system, from /proc) per request or connection: the figure least
// disturbed by other load on the machine. Bounded: rounds x modes x proxies runs of --seconds.
//
//   npx tsx bench/engine.ts [--rounds 9] [--seconds 4] [--paths native,uv] [--bundle] [--only ka,new,bulk,held] [--conns N] [--held N] [--threads N] [--proxy FILE]
//
// --paths picks lbdesk's data paths (native, uv, net). --proxy runs a bare prototype proxy
// (node FILE LISTEN_ADDR PORT TO_ADDR PORT) as one more contestant, to measure a socket layer alone.
// --only held (not in the default set): each proxy holds --held idle connections (default 10,000)
// while wrk measures new connections through it; prints each proxy's memory per held connection.
// The bench raises its own descriptor limit (and so its children's) with prlimit where allowed.
// --threads N: every proxy and the backend get N threads or workers (lbdesk serve --threads,
// HAProxy nbthread, nginx worker_processes) and wrk N threads; on 2 cores wrk, nginx and a
// 2-thread proxy share two cores, so a second thread shows its overhead here, not its gain.
// --conns sets wrk's connection count for every mode (default 50, bulk 10): the goals are stated
// at the defaults; lower counts show the proxies when neither is CPU-bound.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { haproxyTcp } from './lib/haproxy';

const ROOT = resolve(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const ROUNDS = Number(opt('rounds', '9'));
const SECONDS = Number(opt('seconds', '4'));
const PATHS = opt('paths', 'native,uv').split(',').filter((p) => p === 'native' || p === 'uv' || p === 'net');
const BUNDLE = args.includes('--bundle');
const ONLY = new Set(opt('only', 'ka,new,bulk').split(','));
const THREADS = Number(opt('threads', '1'));
if (!(Number.isInteger(THREADS) && THREADS >= 1 && THREADS <= 16)) {
  console.error('bench/engine: --threads takes a whole number from 1 to 16');
  process.exit(2);
}
const WANT_HELD = Number(opt('held', '10000'));
const NOFILE = ONLY.has('held') ? raiseNofile(2 * WANT_HELD + 1000) : undefined;
// Two descriptors a relayed connection, and room for wrk's, the listeners' and the runtime's own.
const HELD = NOFILE ? Math.min(WANT_HELD, Math.floor((NOFILE.limit - 1000) / 2)) : WANT_HELD;
const PROXY = args.includes('--proxy') ? resolve(opt('proxy', '')) : undefined;
if (PROXY !== undefined && !existsSync(PROXY)) {
  console.error(`bench/engine: --proxy: no such file: ${PROXY}`);
  process.exit(2);
}
const CONNS = args.includes('--conns') ? Number(opt('conns', '')) : undefined;
if (CONNS !== undefined && !(Number.isInteger(CONNS) && CONNS >= 1 && CONNS <= 1000)) {
  console.error('bench/engine: --conns takes a whole number from 1 to 1000');
  process.exit(2);
}

const NGINX = { address: '127.0.16.1', port: 18180 };
const HAPROXY = { address: '127.0.16.2', port: 18181 };
const STREAM = { address: '127.0.16.3', port: 18182 };
/** lbdesk's data paths each get an address of their own. */
const LBDESK: Record<string, { address: string; port: number }> = {
  native: { address: '127.0.16.4', port: 18183 },
  uv: { address: '127.0.16.5', port: 18184 },
  net: { address: '127.0.16.6', port: 18185 },
};
const PROTO = { address: '127.0.16.7', port: 18186 };

function need(bin: string): string {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) if (existsSync(join(dir, bin))) return join(dir, bin);
  console.error(`bench/engine: ${bin} is missing (apt-get install -y nginx haproxy wrk)`);
  process.exit(2);
}

function waitPort(address: string, port: number, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((done, fail) => {
    const attempt = () => {
      const s = createConnection({ host: address, port });
      s.once('connect', () => {
        s.destroy();
        done();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > end) fail(new Error(`${address}:${port} did not open`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/** utime and stime of a process, all its threads and its children (nginx's workers), in ms. */
function cpuTimes(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = { user: (Number(f[11]) * 1000) / 100, sys: (Number(f[12]) * 1000) / 100 };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone
  }
  for (const c of children) {
    const t = cpuTimes(c);
    own.user += t.user;
    own.sys += t.sys;
  }
  return own;
}

/** RSS of a process and its children (nginx's workers), in KiB. */
function rssKiB(pid: number): number {
  let kib = 0;
  try {
    kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) kib += rssKiB(Number(c));
  } catch {
    // gone
  }
  return kib;
}

/**
 * Raises this process's descriptor limit (children inherit it) to `want` where allowed, and says
 * what it is. A relay needs two descriptors per held connection, so the limit bounds --held.
 */
function raiseNofile(want: number): { limit: number; said: string } {
  const now = () => Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 1024);
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${want}:${want}`], { stdio: 'ignore' });
    return { limit: now(), said: `descriptor limit raised to ${now()} (prlimit)` };
  } catch {
    const hard = /Max open files\s+\d+\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (hard && Number(hard) > now()) execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${hard}:${hard}`], { stdio: 'ignore' });
    return { limit: now(), said: `descriptor limit ${now()}: raising it to ${want} is not allowed here (prlimit: not permitted)` };
  }
}

/** Opens `n` idle connections (a request line with no end: the backend waits for the rest). */
async function holdConnections(address: string, port: number, n: number): Promise<{ sockets: Socket[]; failed: number }> {
  const sockets: Socket[] = [];
  let failed = 0;
  for (let i = 0; i < n; i += 500) {
    const batch = await Promise.all(Array.from({ length: Math.min(500, n - i) }, () => new Promise<Socket | undefined>((done) => {
      const s = createConnection({ host: address, port });
      s.once('connect', () => {
        s.write('GET / HTTP/1.1\r\nHost: held\r\n');
        done(s);
      });
      s.once('error', () => done(undefined));
    })));
    for (const s of batch) if (s) sockets.push(s);
    else failed++;
  }
  return { sockets, failed };
}

interface Run { perSec: number; mbPerSec: number; count: number; cpuMs: number; userMs: number; errors: string }

function wrk(url: string, conns: number, extra: string[], pid: number): Run {
  const c0 = cpuTimes(pid);
  const out = execFileSync('wrk', [`-t${THREADS}`, `-c${Math.max(conns, THREADS)}`, `-d${SECONDS}s`, ...extra, url], { encoding: 'utf8' });
  const c1 = cpuTimes(pid);
  const userMs = c1.user - c0.user;
  const cpu = userMs + c1.sys - c0.sys;
  const perSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const t = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(out);
  const unit: Record<string, number> = { B: 1 / 1048576, KB: 1 / 1024, MB: 1, GB: 1024 };
  const mbPerSec = t ? Number(t[1]) * (unit[t[2]!] ?? 1) : 0;
  const count = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const errs = [/Socket errors: (.*)/.exec(out)?.[1], /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1]].filter(Boolean);
  return { perSec, mbPerSec, count, cpuMs: cpu, userMs, errors: errs.length ? errs.join('; ') : '' };
}

const MODES = [
  { name: 'ka', label: 'keep-alive requests/s', path: '/', conns: 50, extra: [] as string[], bulk: false },
  { name: 'new', label: 'new connections/s', path: '/', conns: 50, extra: ['-H', 'Connection: close'], bulk: false },
  { name: 'bulk', label: 'bulk MiB/s', path: '/bulk.bin', conns: 10, extra: [], bulk: true },
  { name: 'held', label: `new conn/s, ${HELD} held`, path: '/', conns: 50, extra: ['-H', 'Connection: close'], bulk: false },
]
  .filter((m) => ONLY.has(m.name))
  .map((m) => (CONNS === undefined ? m : { ...m, conns: CONNS }));

/** The 1-minute load average now: printed with every round, since the ratios move with it. */
const loadavg1 = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Contestant {
  name: string;
  address: string;
  port: number;
  proc: ChildProcess;
}

async function main(): Promise<void> {
  const nginx = need('nginx');
  const haproxy = need('haproxy');
  need('wrk');
  const streamModule = '/usr/lib/nginx/modules/ngx_stream_module.so';
  if (!existsSync(streamModule)) {
    console.error('bench/engine: nginx stream is missing (apt-get install -y libnginx-mod-stream)');
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-'));
  chmodSync(dir, 0o755); // nginx workers run as another user
  for (const d of ['cb', 'pt', 'ft', 'ut', 'st']) mkdirSync(join(dir, d));
  writeFileSync(join(dir, 'bulk.bin'), Buffer.alloc(1 << 20, 7));
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes ${THREADS};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx.err warn;
events { worker_connections 30000; }
worker_rlimit_nofile 70000;
http {
  access_log off;
  client_body_temp_path ${dir}/cb; proxy_temp_path ${dir}/pt; fastcgi_temp_path ${dir}/ft; uwsgi_temp_path ${dir}/ut; scgi_temp_path ${dir}/st;
  keepalive_requests 1000000;
  server {
    listen ${NGINX.address}:${NGINX.port} backlog=4096;
    location = / { return 200 "hello\\n"; }
    location = /bulk.bin { root ${dir}; }
  }
}
`);
  writeFileSync(join(dir, 'stream.conf'), `load_module ${streamModule};
worker_processes ${THREADS};
daemon off;
pid ${dir}/stream.pid;
error_log ${dir}/stream.err warn;
events { worker_connections 30000; }
worker_rlimit_nofile 70000;
stream {
  server {
    listen ${STREAM.address}:${STREAM.port} backlog=4096;
    proxy_pass ${NGINX.address}:${NGINX.port};
  }
}
`);
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyTcp(HAPROXY, NGINX, { threads: THREADS, maxconn: NOFILE ? Math.floor((NOFILE.limit - 100) / 2) : 4000 }));
  const procs: ChildProcess[] = [];
  const cleanup = () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
  };
  process.on('exit', cleanup);
  try {
    procs.push(spawn(nginx, ['-c', join(dir, 'nginx.conf')], { stdio: 'ignore' }));
    const contestants: Contestant[] = [];
    const ha = spawn(haproxy, ['-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    procs.push(ha);
    contestants.push({ name: 'haproxy', ...HAPROXY, proc: ha });
    const st = spawn(nginx, ['-c', join(dir, 'stream.conf')], { stdio: 'ignore' });
    procs.push(st);
    contestants.push({ name: 'nginx-stream', ...STREAM, proc: st });
    for (const path of PATHS) {
      const at = LBDESK[path]!;
      writeFileSync(join(dir, `workspace-${path}.yaml`), `lbdesk: 1
name: bench
servers:
  - { name: nginx, address: ${NGINX.address} }
groups:
  - name: web
    members: [ { server: nginx, port: ${NGINX.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: bench-vip, address: ${at.address}, port: ${at.port}, group: web, algorithm: round-robin }
`);
      const serveArgs = ['serve', join(dir, `workspace-${path}.yaml`), '--io', path, ...(THREADS > 1 ? ['--threads', String(THREADS)] : [])];
      const lb = BUNDLE
        ? spawn(process.execPath, [join(ROOT, 'out/cli/lbdesk.cjs'), ...serveArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
        : spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'main/cli/bin.ts'), ...serveArgs], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      // Its first lines say when the native path could not load: never measure the wrong one.
      let said = '';
      lb.stdout!.on('data', (d) => (said += d));
      procs.push(lb);
      contestants.push({ name: `lbdesk-${path}`, ...at, proc: lb });
      await waitPort(at.address, at.port);
      if (/JavaScript data path/.test(said)) throw new Error(`lbdesk --io ${path}: ${said.trim()}`);
    }
    if (PROXY) {
      const p = spawn(process.execPath, [PROXY, PROTO.address, String(PROTO.port), NGINX.address, String(NGINX.port)], { stdio: ['ignore', 'ignore', 'inherit'] });
      procs.push(p);
      contestants.push({ name: 'prototype', ...PROTO, proc: p });
    }
    await waitPort(NGINX.address, NGINX.port);
    for (const c of contestants) {
      await waitPort(c.address, c.port);
      // Until the first health check passes lbdesk refuses; wait for a real answer.
      for (let i = 0; ; i++) {
        const out = execFileSync('wrk', ['-t1', '-c1', '-d1s', `http://${c.address}:${c.port}/`], { encoding: 'utf8' });
        if (!/Socket errors|Non-2xx/.test(out) && /Requests\/sec:\s+[1-9]/.test(out)) break;
        if (i === 30) throw new Error(`${c.name} did not forward within 30 s`);
      }
    }
    // Warm every contestant up under the real load before round 1 (lbdesk's JavaScript starts
    // cold: its first seconds of compiling would be charged to round 1's CPU per connection).
    for (const c of contestants) execFileSync('wrk', ['-t1', '-c50', '-d2s', '-H', 'Connection: close', `http://${c.address}:${c.port}/`], { encoding: 'utf8' });
    const version = execFileSync(haproxy, ['-v'], { encoding: 'utf8' }).split('\n')[0]!.split(' ')[2];
    console.log(`${contestants.map((c) => c.name).join(', ')}: HAProxy ${version} nbthread ${THREADS}; nginx stream ${THREADS} worker(s); lbdesk serve --threads ${THREADS} (${BUNDLE ? 'bundle' : 'tsx sources'}); backend nginx ${THREADS} worker(s); wrk -t${THREADS} -c${CONNS ?? '50 (bulk 10)'}; ${ROUNDS} rounds x ${SECONDS} s, order rotating; ${new Date().toISOString()}`);
    if (NOFILE) console.log(`${NOFILE.said}; held connections: ${HELD}${HELD < WANT_HELD ? ` of the ${WANT_HELD} asked (a relay needs two descriptors each)` : ''}`);
    console.log(`load average at the start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} on ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores (throughput ratios move with it; CPU per unit much less)`);
    // name -> mode -> per-round figures
    const thr: Record<string, Record<string, number[]>> = {};
    const user: Record<string, Record<string, number[]>> = {};
    const sys: Record<string, Record<string, number[]>> = {};
    const heldKiB: Record<string, Record<string, number[]>> = {};
    const push = (t: Record<string, Record<string, number[]>>, n: string, m: string, v: number) => ((t[n] ??= {})[m] ??= []).push(v);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const m of MODES) {
        const k = (round - 1) % contestants.length;
        const order = [...contestants.slice(k), ...contestants.slice(0, k)];
        const res: Record<string, Run> = {};
        for (const c of order) {
          if (m.name !== 'held') {
            res[c.name] = wrk(`http://${c.address}:${c.port}${m.path}`, m.conns, m.extra, c.proc.pid!);
            continue;
          }
          const before = rssKiB(c.proc.pid!);
          const held = await holdConnections(c.address, c.port, HELD);
          // Every held connection reached the backend (the proxies connect on accept or first bytes).
          await new Promise((r) => setTimeout(r, 500));
          push(heldKiB, c.name, m.name, (rssKiB(c.proc.pid!) - before) / Math.max(held.sockets.length, 1));
          res[c.name] = wrk(`http://${c.address}:${c.port}${m.path}`, m.conns, m.extra, c.proc.pid!);
          if (held.failed) res[c.name]!.errors = `${res[c.name]!.errors ? `${res[c.name]!.errors}; ` : ''}${held.failed} of ${HELD} held connections failed`;
          for (const h of held.sockets) h.destroy();
          await new Promise((r) => setTimeout(r, 1000)); // the proxy and nginx close theirs
        }
        const val = (r: Run) => (m.bulk ? r.mbPerSec : r.perSec);
        const units = (r: Run) => Math.max(m.bulk ? r.mbPerSec * SECONDS : r.count, 1e-9);
        // CPU per unit of work: µs per request or connection; ms per MiB for bulk.
        const k2 = m.bulk ? 1 : 1000;
        const cells: string[] = [];
        const cpus: string[] = [];
        for (const c of contestants) {
          const r = res[c.name]!;
          push(thr, c.name, m.name, val(r));
          push(user, c.name, m.name, (r.userMs * k2) / units(r));
          push(sys, c.name, m.name, ((r.cpuMs - r.userMs) * k2) / units(r));
          const ratio = c.name === 'haproxy' ? '' : ` (${(val(r) / val(res.haproxy!)).toFixed(2)})`;
          cells.push(`${c.name} ${val(r).toFixed(0)}${ratio}${r.errors ? ` ERRORS ${r.errors}` : ''}`);
          cpus.push(`${((r.userMs * k2) / units(r)).toFixed(1)}+${(((r.cpuMs - r.userMs) * k2) / units(r)).toFixed(1)}`);
        }
        console.log(`round ${round} ${m.label.padEnd(22)} ${cells.join(' | ')}   CPU ${m.bulk ? 'ms/MiB' : 'µs'} user+sys ${cpus.join(' | ')}   load ${loadavg1()}`);
      }
    }
    const goal: Record<string, Record<string, number>> = { 'lbdesk-native': { ka: 1.0, new: 1.0, bulk: 1.2 } };
    console.log(`\nmedians over ${ROUNDS} rounds (ratio = median of the per-round ratios to HAProxy):`);
    for (const m of MODES) {
      console.log(`  ${m.label}`);
      for (const c of contestants) {
        const t = thr[c.name]![m.name]!;
        const ratios = t.map((v, i) => v / thr.haproxy![m.name]![i]!);
        const g = goal[c.name]?.[m.name];
        const r = median(ratios);
        const verdict = g !== undefined ? `  goal >= ${g.toFixed(1)}: ${r >= g ? 'met' : 'not met'}` : '';
        const cpu = `${median(user[c.name]![m.name]!).toFixed(1)}+${median(sys[c.name]![m.name]!).toFixed(1)} ${m.bulk ? 'ms/MiB' : 'µs'}`;
        const spread = c.name === 'haproxy' ? '' : `  rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`;
        console.log(`    ${c.name.padEnd(14)} ${median(t).toFixed(m.bulk ? 0 : 0).padStart(7)}${m.bulk ? ' MiB/s' : '/s'}  ratio ${c.name === 'haproxy' ? '1.00' : r.toFixed(2)}  CPU user+sys ${cpu}${verdict}${spread}`);
      }
      if (m.name === 'held') console.log(`    memory per held connection (RSS, KiB): ${contestants.map((c) => `${c.name} ${median(heldKiB[c.name]![m.name]!).toFixed(1)}`).join(', ')}`);
      // New connections: the native path's own CPU per connection (user + kernel) against HAProxy's,
      // the median of the per-round ratios, as the throughput goal is judged.
      if (m.name === 'new' && user['lbdesk-native']) {
        const per = (n: string) => user[n]![m.name]!.map((u, i) => u + sys[n]![m.name]![i]!);
        const ratios = per('lbdesk-native').map((v, i) => v / per('haproxy')[i]!);
        const r = median(ratios);
        console.log(`    CPU per new connection, lbdesk-native / haproxy: ${r.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})  goal <= 1.0: ${r <= 1 ? 'met' : 'not met'}`);
      }
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`load average at the end: ${load} on ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores`);
  } finally {
    cleanup();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  console.error(`bench/engine: ${err.message}`);
  process.exitCode = 1;
});
