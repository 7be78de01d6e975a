// Benchmark: `lbdesk state` of a live HAProxy with 1,000 members on a warm SSH connection
// (goal < 1 s) and a drain round trip (set, answered, recorded; goal < 300 ms), against a real
// `haproxy -W` with an admin stats socket behind a loopback sshd.
// Run: npx tsx bench/operate.ts   (exit status 1 when a median misses its goal)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workspaceSchema } from '../shared/model/schema';
import { openAppliance } from '../main/services/sync/appliance';
import { allMembers, connectRuntime, setAdmin } from '../main/services/operate';
import { haveSshd, startSshd } from '../test/helpers/sshd';
import { testOptions } from '../test/helpers/sync/fixture';
import { HAPROXY, HaproxyBox, renderBox } from '../test/helpers/operate/box';

const MEMBERS = 1_000;
const ROUNDS = 11;
const STATE_GOAL_MS = 1000;
const DRAIN_GOAL_MS = 300;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} ms`;

/** 1,000 servers on 127.41.x.y (nothing listens: checks find them down, which costs the box little). */
function workspaceText(host: string, port: number, dir: string): string {
  const servers = Array.from({ length: MEMBERS }, (_, i) => `  - { name: s${i}, address: 127.41.${Math.floor(i / 250)}.${(i % 250) + 1} }`);
  const members = Array.from({ length: MEMBERS }, (_, i) => `      - { server: s${i}, port: 18081 }`);
  return [
    'lbdesk: 1', 'name: bench-operate', 'servers:', ...servers,
    'groups:', '  - name: big', '    healthCheck: { type: tcp }', '    members:', ...members,
    'services: [{ name: big-vip, address: 127.41.9.1, port: 18080, group: big }]',
    'appliances:',
    `  - { name: box, host: ${host}, port: ${port}, user: root, auth: key, keyFile: KEY, driver: haproxy, configPath: ${join(dir, 'haproxy.cfg')}, statsSocket: ${join(dir, 'admin.sock')} }`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  if (!haveSshd || !existsSync(HAPROXY)) {
    console.log(`operate benchmark skipped: ${haveSshd ? HAPROXY : '/usr/sbin/sshd'} is not installed`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-operate-'));
  const sshd = await startSshd({ host: '127.41.9.9' });
  const box = new HaproxyBox(dir);
  try {
    const text = workspaceText(sshd.host, sshd.port, dir).replace('KEY', sshd.userKey.path);
    const workspace = workspaceSchema.parse(parse(text));
    await box.start(renderBox(text, 'box'));
    const appliance = workspace.appliances[0]!;
    const ctx = { workspace, appliance, target: openAppliance(workspace, appliance, join(dir, 'site.yaml')).target };
    const op = await connectRuntime(ctx, testOptions(sshd, dir));
    const members = allMembers(workspace);
    const dataDir = join(dir, 'data');
    try {
      const cold0 = performance.now();
      const first = await op.runtime.state(members);
      const cold = performance.now() - cold0;
      const known = first.filter((m) => m.health !== 'unknown').length;
      if (known !== MEMBERS) throw new Error(`the box knows ${known} of ${MEMBERS} members`);
      const states: number[] = [];
      const drains: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = performance.now();
        const s = await op.runtime.state(members);
        states.push(performance.now() - t0);
        if (s.length !== MEMBERS) throw new Error('state lost members');
        const one = [members[(i * 97) % MEMBERS]!];
        const t1 = performance.now();
        const r = await setAdmin(ctx, op, one, 'drain', dataDir);
        drains.push(performance.now() - t1);
        if (!r.ok) throw new Error(`drain refused: ${r.refused}`);
        await setAdmin(ctx, op, one, 'ready', dataDir);
      }
      const after = await op.runtime.state(members);
      if (after.some((m) => m.admin !== 'ready')) throw new Error('a member was left drained');
      const [l1, l5] = loadavg();
      console.log(`operate bench: ${MEMBERS} members on one HAProxy, ${await op.runtime.via()}; median of ${ROUNDS} rounds on one warm connection (load average ${l1!.toFixed(1)} / ${l5!.toFixed(1)} on ${cpus().length} CPUs)`);
      const row = (label: string, xs: number[], goal: number) => {
        const m = median(xs);
        console.log(`  ${label.padEnd(44)} ${m.toFixed(0).padStart(6)} ms  (spread ${spread(xs)}; goal < ${goal} ms: ${m < goal ? 'met' : 'MISSED'})`);
        return m < goal;
      };
      console.log(`  ${'first state (probe for the socket tool)'.padEnd(44)} ${cold.toFixed(0).padStart(6)} ms`);
      const ok = [row(`state of ${MEMBERS} members`, states, STATE_GOAL_MS), row('drain round trip (set, answered, recorded)', drains, DRAIN_GOAL_MS)].every(Boolean);
      process.exitCode = ok ? 0 : 1;
    } finally {
      op.close();
    }
  } finally {
    await box.stop();
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
