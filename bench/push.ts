// Benchmark: one fleet push to 50 appliances (distinct config paths behind one loopback sshd),
// each uploaded, checksummed, validated, backed up, renamed and reloaded for real.
// Run: npx tsx bench/push.ts   (goal: under 10 s; BENCH_CONCURRENCY=N to try other widths)
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haveSshd, startSshd } from '../test/helpers/sshd';
import { SshConfigSet } from '../main/services/ssh';
import { pushFleet, type FleetItem } from '../main/services/sync';

const GOAL_MS = 10_000;
const APPLIANCES = 50;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

function config(i: number, version: number): string {
  const lines = [`# appliance ${i} version ${version}`, 'ok'];
  for (let b = 0; b < 40; b++) lines.push(`backend b${b}`, `    server s${b} 127.0.9.${(b % 250) + 1}:${8000 + b} check weight ${version}`);
  return `${lines.join('\n')}\n`;
}

/** CPU of the sshd master and every session it reaped (ms), from /proc. */
function sshdCpuMs(dir: string, port: number): number {
  try {
    const pid = readFileSync(join(dir, `sshd_${port}.pid`), 'utf8').trim();
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0) * 10;
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  if (!haveSshd) {
    console.log('push benchmark skipped: /usr/sbin/sshd is not installed (apt-get install openssh-server)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-push-'));
  const sshd = await startSshd({ host: '127.0.8.9' });
  try {
    const validate = join(dir, 'validate.sh');
    writeFileSync(validate, '#!/bin/sh\ngrep -q "^ok$" "$1"\n');
    chmodSync(validate, 0o755);
    const targets = Array.from({ length: APPLIANCES }, (_, i) => {
      const home = join(dir, `lb${i}`);
      mkdirSync(home);
      writeFileSync(join(home, 'haproxy.cfg'), config(i, 0));
      return {
        appliance: `lb${i}`,
        endpoint: { appliance: `lb${i}`, host: sshd.host, port: sshd.port, user: 'root', auth: 'key' as const, keyFile: sshd.userKey.path },
        configPath: join(home, 'haproxy.cfg'),
        validateCommand: `${validate} {file}`,
        reloadCommand: `echo reload >> ${join(home, 'reloads')}`,
      };
    });
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`);
    const opts = { knownHostsFile: knownHosts, sshConfig: SshConfigSet.empty(), dataDir: join(dir, 'data'), concurrency: CONCURRENCY };

    const items: FleetItem[] = targets.map((t, i) => ({ target: t, text: config(i, 1) }));
    const cpu0 = process.cpuUsage();
    const sshd0 = sshdCpuMs(sshd.dir, sshd.port);
    const t0 = performance.now();
    const report = await pushFleet(items, opts);
    const total = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await new Promise((r) => setTimeout(r, 300)); // let sshd reap its children
    const sshdCpu = sshdCpuMs(sshd.dir, sshd.port) - sshd0;
    const applied = report.counts.applied;
    const reloads = targets.filter((t) => readFileSync(join(t.configPath, '..', 'reloads'), 'utf8').trim() === 'reload').length;
    if (applied !== APPLIANCES || reloads !== APPLIANCES) {
      const bad = report.reports.find((r) => r.outcome !== 'applied');
      throw new Error(`expected ${APPLIANCES} applied and reloaded, got ${applied} applied, ${reloads} reloaded (${bad?.appliance}: ${bad?.reason})`);
    }
    const per = report.reports.map((r) => r.durationMs).sort((a, b) => a - b);
    const t1 = performance.now();
    const again = await pushFleet(items, opts);
    const unchanged = performance.now() - t1;
    const verdict = total < GOAL_MS ? 'met' : 'MISSED';
    console.log(`push to ${APPLIANCES} appliances: ${Math.round(total)} ms total (goal < ${GOAL_MS} ms, ${verdict}; concurrency ${CONCURRENCY}, per appliance median ${per[per.length >> 1]} ms, max ${per[per.length - 1]} ms)`);
    console.log(`cpu during the push: lbdesk ${Math.round((cpu.user + cpu.system) / 1000)} ms, sshd and the appliance's commands ${sshdCpu} ms (2 cores; a busy machine stretches the wall time)`);
    console.log(`same push again (all ${again.counts.unchanged} unchanged): ${Math.round(unchanged)} ms`);
    if (total >= GOAL_MS) process.exitCode = 1;
  } finally {
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
