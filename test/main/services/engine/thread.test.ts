// The data path runs in a worker thread: while the engine forwards as fast as it can, the
// controlling thread (where the UI host and the health checker live) stays idle and answers.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { memberKey } from '../../../../shared/api/types';
import { ForwardingEngine } from '../../../../main/services/engine';
import { DATA_PATHS, StaticHealth, engineIo, freePort, ioOf, sleep, workspace } from '../../../helpers/engine';

const VIP = '127.0.5.170';
const SINK = '127.0.5.171';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// A child process (so its CPU is not ours): a discard server, then 4 connections pumping
// through the engine for `ms`, printing how many bytes the sink received.
const LOAD = `
const net = require('net');
const [vip, vport, sink, ms] = process.argv.slice(1);
let got = 0;
const srv = net.createServer((s) => s.on('data', (d) => { got += d.length; }).on('error', () => {}));
srv.listen(0, sink, () => {
  console.log(JSON.stringify({ port: srv.address().port }));
  process.stdin.once('data', () => {
    const chunk = Buffer.alloc(256 * 1024, 1);
    const socks = [];
    for (let i = 0; i < 4; i++) {
      const s = net.connect(+vport, vip);
      s.on('error', () => {});
      const pump = () => { while (s.write(chunk)); };
      s.on('drain', pump);
      s.on('connect', pump);
      socks.push(s);
    }
    setTimeout(() => { socks.forEach((s) => s.destroy()); console.log(JSON.stringify({ bytes: got })); srv.close(); process.exit(0); }, +ms);
  });
});
`;

function threadName(tid: string): string {
  return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
}

/** CPU time (user + system, ms) of each thread of this process, by thread id (Linux). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      // the thread ended
    }
  }
  return out;
}

describe.each(DATA_PATHS)('the data path (%s) off the controlling thread', (io) => {
  it('keeps the controlling thread free and answering while forwarding at full speed', async () => {
    const port = await freePort(VIP);
    const child = spawn(process.execPath, ['-e', LOAD, VIP, String(port), SINK, '2500'], { stdio: ['pipe', 'pipe', 'inherit'] });
    cleanups.push(() => void child.kill());
    const lines: string[] = [];
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    const next = async () => {
      while (lines.length === 0) await sleep(10);
      return JSON.parse(lines.shift()!) as { port?: number; bytes?: number };
    };
    const sinkPort = (await next()).port!;

    const health = new StaticHealth();
    health.set(memberKey({ group: 'g', server: 'sink', port: sinkPort }), 'available');
    const engine = new ForwardingEngine({ health, io: engineIo(io), statsIntervalMs: 0 });
    cleanups.push(() => engine.stop());
    expect((await engine.apply(workspace({
      servers: [{ name: 'sink', address: SINK }],
      groups: [{ name: 'g', members: [{ server: 'sink', port: sinkPort }] }],
      services: [{ name: 'vip', address: VIP, port, group: 'g' }],
    }))).ok).toBe(true);

    const worker = engine.dataWorker!;
    const mainElu0 = performance.eventLoopUtilization();
    const workerElu0 = worker.performance.eventLoopUtilization();
    const cpu0 = threadCpu();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    child.stdin.write('go\n');
    // Meanwhile the controller asks the data path for stats every 100 ms, as the UI would.
    const answers: number[] = [];
    const end = Date.now() + 2000;
    while (Date.now() < end) {
      const t0 = performance.now();
      await engine.refreshStats();
      answers.push(performance.now() - t0);
      await sleep(100);
    }
    lag.disable();
    const cpu1 = threadCpu();
    const used = [...cpu1].map(([tid, ms]) => [tid, ms - (cpu0.get(tid) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
    const mainCpu = cpu1.get(String(process.pid))! - cpu0.get(String(process.pid))!;
    const mainElu = performance.eventLoopUtilization(mainElu0);
    const workerElu = worker.performance.eventLoopUtilization(workerElu0);
    const { bytes } = await next();
    const st = await engine.refreshStats();

    const info = { bytes, mainElu: mainElu.utilization, workerElu: workerElu.utilization, mainCpuMs: mainCpu, busiest: used[0], answers: answers.length, maxAnswerMs: Math.max(...answers), lagMaxMs: lag.max / 1e6 };
    // It forwarded as fast as the load generator could push (no speed target here)...
    expect(bytes!, JSON.stringify(info)).toBeGreaterThan(16 * 1024 * 1024);
    expect(st.pools[0]!.bytesIn).toBeGreaterThanOrEqual(bytes!);
    expect(st.threadId).not.toBe(0);
    // ...on another thread: the busiest thread is not this one, which stayed mostly idle...
    expect(used[0]![0], JSON.stringify(info)).not.toBe(String(process.pid));
    // The JavaScript path works in the worker's event loop; the native one in its own thread.
    if (ioOf(io) === 'native') expect(threadName(used[0]![0]), JSON.stringify(info)).toBe('lbdesk-engine');
    else expect(workerElu.utilization, JSON.stringify(info)).toBeGreaterThan(mainElu.utilization);
    expect(mainElu.utilization, JSON.stringify(info)).toBeLessThan(0.3);
    // ...and answered every question promptly.
    expect(answers.length).toBeGreaterThan(10);
    expect(Math.max(...answers)).toBeLessThan(500);
    expect(lag.max / 1e6).toBeLessThan(300);
  });
});
