// The two things compared: lbdesk's lab (health checker and forwarding engine, in this process) and the
// appliance's own software (HAProxy in master-worker mode) running the rendered config. Both
// answer one question the same way: is this member in service right now?
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memberKey } from '../../../shared/api/types';
import { ForwardingEngine } from '../engine';
import { HealthChecker } from '../health';
import { MemorySecretStore } from '../secrets/memory';
import { HAPROXY_CANDIDATES } from '../drivers/haproxy';
import type { Plan } from './plan';

export { HAPROXY_CANDIDATES };

export type InService = 'up' | 'down' | 'degraded' | 'unknown';

export interface Side {
  start(): Promise<void>;
  state(service: string, server: string): InService;
  stop(): Promise<void>;
}

export function labSide(plan: Plan): Side {
  const health = new HealthChecker({ secrets: new MemorySecretStore() });
  const engine = new ForwardingEngine({ health, statsIntervalMs: 0 });
  const keys = new Map<string, string>();
  for (const s of plan.workspace.services) {
    const g = plan.workspace.groups.find((x) => x.name === s.group)!;
    for (const m of g.members) keys.set(`${s.name}/${m.server}`, memberKey({ group: g.name, server: m.server, port: m.port }));
  }
  return {
    async start() {
      const r = await engine.apply(plan.workspace);
      if (!r.ok) throw new Error(`the lab did not start: ${r.reason ?? 'refused'}`);
      health.apply(plan.workspace);
      health.start();
    },
    state(service, server) {
      const st = health.status(keys.get(`${service}/${server}`) ?? '')?.state;
      if (st === 'available') return 'up';
      if (st === 'degraded') return 'degraded';
      if (st === 'unavailable' || st === 'disabled') return 'down';
      return 'unknown';
    },
    async stop() {
      await engine.stop();
      await health.stop();
    },
  };
}


/**
 * The rendered file for a local run: privileges are not dropped and nothing is logged to
 * syslog (neither changes balancing or checks); a stats socket is added to read states.
 */
export function localHaproxyConfig(text: string, socket: string): string {
  return text
    .split('\n')
    .filter((l) => !/^ {4}(chroot|user|group|log \/dev\/log) /.test(l))
    .map((l) => (l === 'global' ? `global\n    stats socket ${socket} mode 600 level admin` : l))
    .join('\n');
}

function ask(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = net.connect(socket, () => s.write(`${command}\n`));
    s.setTimeout(2000, () => s.destroy(new Error('stats socket timeout')));
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

/** `show stat` CSV: backend/server -> status ("UP", "UP 1/2", "DOWN", "no check", "MAINT"). */
export function parseShowStat(csv: string): Map<string, string> {
  const lines = csv.split('\n').filter(Boolean);
  const header = (lines[0] ?? '').replace(/^# /, '').split(',');
  const px = header.indexOf('pxname');
  const sv = header.indexOf('svname');
  const st = header.indexOf('status');
  const out = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const f = l.split(',');
    if (f[sv] === 'FRONTEND' || f[sv] === 'BACKEND') continue;
    out.set(`${f[px]}/${f[sv]}`, f[st] ?? '');
  }
  return out;
}

export function haproxySide(rendered: string, pollMs = 20): Side {
  const bin = HAPROXY_CANDIDATES.find((p) => existsSync(p));
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-compare-'));
  const socket = join(dir, 'admin.sock');
  const cfg = join(dir, 'haproxy.cfg');
  let child: ChildProcess | undefined;
  let output = '';
  let states = new Map<string, string>();
  let poller: NodeJS.Timeout | undefined;
  let polling = false;
  return {
    async start() {
      if (!bin) throw new Error('haproxy is not installed (apt-get install haproxy)');
      writeFileSync(cfg, localHaproxyConfig(rendered, socket));
      child = spawn(bin, ['-W', '-f', cfg, '-p', join(dir, 'haproxy.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d: Buffer) => (output += d));
      child.stderr!.on('data', (d: Buffer) => (output += d));
      const until = Date.now() + 10_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${output.trim().split('\n').slice(-3).join(' | ')}`);
        try {
          states = parseShowStat(await ask(socket, 'show stat'));
          break;
        } catch {
          if (Date.now() > until) throw new Error(`haproxy's stats socket did not answer: ${output.trim().split('\n').slice(-3).join(' | ')}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      poller = setInterval(() => {
        if (polling) return;
        polling = true;
        ask(socket, 'show stat').then((t) => (states = parseShowStat(t)), () => undefined).finally(() => (polling = false));
      }, pollMs);
    },
    state(service, server) {
      const st = states.get(`${service}/${server}`);
      if (st === undefined) return 'unknown';
      if (/^(UP|no check|NOLB)/.test(st)) return 'up';
      return 'down';
    },
    async stop() {
      clearInterval(poller);
      if (child && child.exitCode === null) {
        const gone = new Promise((r) => child!.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child!.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
