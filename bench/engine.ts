// Forwarding engine benchmark: nginx on loopback as the backend, HAProxy (1 thread, mode tcp)
// and `lbdesk serve` (one data-path thread) in front of it, wrk through each, alternating, in
// one run. Prints lbdesk/HAProxy ratios for keep-alive requests/s, new connections/s and bulk
// bytes/s, plus each proxy's CPU time per unit of work (the figure least disturbed by other
// load on the machine). Bounded: rounds x modes x 2 runs of `--seconds` each.
//
//   npx tsx bench/engine.ts [--rounds 3] [--seconds 5] [--io uv|net] [--bundle] [--only ka,new,bulk] [--conns N] [--proxy FILE]
//
// --proxy runs a bare prototype proxy (bench/proto/raw-proxy.js: node FILE LISTEN_ADDR PORT TO_ADDR PORT)
// in lbdesk's place, to measure what the socket layer alone costs, without the engine.
// --conns sets wrk's connection count for every mode (default 50, bulk 10): the goals are stated
// at the defaults; lower counts show the proxies when neither is CPU-bound.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const ROUNDS = Number(opt('rounds', '3'));
const SECONDS = Number(opt('seconds', '5'));
const IO = opt('io', 'uv');
const BUNDLE = args.includes('--bundle');
const ONLY = new Set(opt('only', 'ka,new,bulk').split(','));
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

const NGINX = { address: '127.0.6.1', port: 18180 };
const HAPROXY = { address: '127.0.6.2', port: 18181 };
const LBDESK = { address: '127.0.6.3', port: 18182 };

function need(bin: string): string {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) if (existsSync(join(dir, bin))) return join(dir, bin);
  console.error(`bench/engine: ${bin} is missing (apt-get install -y nginx haproxy wrk)`);
  process.exit(2);
}

function waitPort(address: string, port: number, ms = 20_000): Promise<void> {
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

/** utime and stime of a process and all its threads, in ms. */
function cpuTimes(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(f[11]) * 1000) / 100, sys: (Number(f[12]) * 1000) / 100 };
}

interface Run { perSec: number; mbPerSec: number; count: number; cpuMs: number; userMs: number; errors: string }

function wrk(url: string, conns: number, extra: string[], pid: number): Run {
  const c0 = cpuTimes(pid);
  const out = execFileSync('wrk', ['-t1', `-c${conns}`, `-d${SECONDS}s`, ...extra, url], { encoding: 'utf8' });
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
]
  .filter((m) => ONLY.has(m.name))
  .map((m) => (CONNS === undefined ? m : { ...m, conns: CONNS }));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const nginx = need('nginx');
  const haproxy = need('haproxy');
  need('wrk');
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-'));
  chmodSync(dir, 0o755); // nginx workers run as another user
  for (const d of ['cb', 'pt', 'ft', 'ut', 'st']) mkdirSync(join(dir, d));
  writeFileSync(join(dir, 'bulk.bin'), Buffer.alloc(1 << 20, 7));
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx.err warn;
events { worker_connections 4096; }
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
  writeFileSync(join(dir, 'haproxy.cfg'), `global
  nbthread 1
  maxconn 4000
defaults
  mode tcp
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend fe
  bind ${HAPROXY.address}:${HAPROXY.port}
  default_backend be
backend be
  server s1 ${NGINX.address}:${NGINX.port}
`);
  writeFileSync(join(dir, 'ws.yaml'), `lbdesk: 1
name: bench
servers:
  - { name: nginx, address: ${NGINX.address} }
groups:
  - name: web
    members: [ { server: nginx, port: ${NGINX.port} } ]
    healthCheck: { type: tcp }
services:
  - { name: bench-vip, address: ${LBDESK.address}, port: ${LBDESK.port}, group: web, algorithm: round-robin }
`);
  const procs: ChildProcess[] = [];
  const cleanup = () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
  };
  process.on('exit', cleanup);
  try {
    procs.push(spawn(nginx, ['-c', join(dir, 'nginx.conf')], { stdio: 'ignore' }));
    const ha = spawn(haproxy, ['-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    procs.push(ha);
    const serveArgs = ['serve', join(dir, 'ws.yaml'), '--io', IO];
    const lb = PROXY
      ? spawn(process.execPath, [PROXY, LBDESK.address, String(LBDESK.port), NGINX.address, String(NGINX.port)], { stdio: ['ignore', 'ignore', 'inherit'] })
      : BUNDLE
      ? spawn(process.execPath, [join(ROOT, 'out/cli/lbdesk.cjs'), ...serveArgs], { stdio: ['ignore', 'ignore', 'inherit'] })
      : spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'main/cli/bin.ts'), ...serveArgs], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    procs.push(lb);
    await waitPort(NGINX.address, NGINX.port);
    await waitPort(HAPROXY.address, HAPROXY.port);
    await waitPort(LBDESK.address, LBDESK.port);
    // Until the first health check passes lbdesk refuses; wait for a real answer.
    for (let i = 0; ; i++) {
      const out = execFileSync('wrk', ['-t1', '-c1', '-d1s', `http://${LBDESK.address}:${LBDESK.port}/`], { encoding: 'utf8' });
      if (!/Socket errors|Non-2xx/.test(out) && /Requests\/sec:\s+[1-9]/.test(out)) break;
      if (i === 30) throw new Error('lbdesk serve did not forward within 30 s');
    }
    console.log(`${PROXY ? `prototype ${PROXY.slice(ROOT.length + 1)} in lbdesk's place` : `lbdesk serve (${BUNDLE ? 'bundle' : 'tsx sources'}, io ${IO})`} vs HAProxy ${execFileSync(haproxy, ['-v'], { encoding: 'utf8' }).split('\n')[0]!.split(' ')[2]} nbthread 1; nginx 1 worker; wrk -t1 -c${CONNS ?? '50 (bulk 10)'}; ${ROUNDS} rounds x ${SECONDS} s; ${new Date().toISOString()}`);
    const ratios: Record<string, { thr: number[]; eff: number[] }> = {};
    for (let round = 1; round <= ROUNDS; round++) {
      for (const m of MODES) {
        const order = round % 2 ? (['ha', 'lb'] as const) : (['lb', 'ha'] as const);
        const res: Partial<Record<'ha' | 'lb', Run>> = {};
        for (const who of order) {
          const t = who === 'ha' ? HAPROXY : LBDESK;
          res[who] = wrk(`http://${t.address}:${t.port}${m.path}`, m.conns, m.extra, (who === 'ha' ? ha : lb).pid!);
        }
        const val = (r: Run) => (m.bulk ? r.mbPerSec : r.perSec);
        // Work per CPU-second of the proxy process: requests (or MiB) over its user+system time.
        const eff = (r: Run) => (m.bulk ? r.mbPerSec * SECONDS : r.count) / Math.max(r.cpuMs / 1000, 0.01);
        // CPU per unit of work, split into user and kernel time (µs per request, ms per MiB).
        const split = (r: Run) => {
          const units = m.bulk ? r.mbPerSec * SECONDS : r.count;
          const k = m.bulk ? 1 : 1000;
          return `${((r.userMs * k) / units).toFixed(1)}+${(((r.cpuMs - r.userMs) * k) / units).toFixed(1)}${m.bulk ? ' ms/MiB' : ' µs'}`;
        };
        const thr = val(res.lb!) / val(res.ha!);
        const e = eff(res.lb!) / eff(res.ha!);
        (ratios[m.name] ??= { thr: [], eff: [] }).thr.push(thr);
        ratios[m.name]!.eff.push(e);
        const errs = [res.ha!.errors && `haproxy errors: ${res.ha!.errors}`, res.lb!.errors && `lbdesk errors: ${res.lb!.errors}`].filter(Boolean).join('; ');
        console.log(`round ${round} ${m.label.padEnd(22)} haproxy ${val(res.ha!).toFixed(0).padStart(7)}  lbdesk ${val(res.lb!).toFixed(0).padStart(7)}  ratio ${thr.toFixed(2)}  | per CPU-s haproxy ${eff(res.ha!).toFixed(0)} lbdesk ${eff(res.lb!).toFixed(0)} ratio ${e.toFixed(2)}  | ${split(res.ha!)} / ${split(res.lb!)}${errs ? `  (${errs})` : ''}`);
      }
    }
    const goal: Record<string, number> = { ka: 1.0, new: 1.0, bulk: 0.8 };
    console.log('\nmedian lbdesk/HAProxy:');
    for (const m of MODES) {
      const r = ratios[m.name]!;
      const thr = median(r.thr);
      console.log(`  ${m.label.padEnd(22)} throughput ${thr.toFixed(2)} (goal >= ${goal[m.name]!.toFixed(1)}: ${thr >= goal[m.name]! ? 'met' : 'not met'})  CPU efficiency ${median(r.eff).toFixed(2)}`);
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
