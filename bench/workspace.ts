// Benchmark: load + validate a generated 10,000-server / 1,000-group / 32-target-set workspace.
// Run: npx tsx bench/workspace.ts   (goal: under 300 ms; exit status 1 when the median misses it)
// Then hostile-size input: 1 MiB and 4 MiB of bad servers, whose cost must grow with the file
// (4 MiB at most 6x the CPU of 1 MiB) because checking stops at the problem cap.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { badServers, generateWorkspace } from '../test/fixtures/workspaces/generate';
import { loadWorkspaceFile } from '../main/services/workspace/store';

const GOAL_MS = 300;
/** CPU of 4 MiB of bad servers over that of 1 MiB: linear is 4. */
const BAD_RATIO_GOAL = 6;
const RUNS = 9;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function timed(file: string): Promise<{ wall: number; cpu: number; problems: number; servers: number }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const loaded = await loadWorkspaceFile(file);
  return { wall: performance.now() - t0, cpu: cpuMs() - c0, problems: loaded.problems.length, servers: loaded.workspace?.servers.length ?? 0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-bench-'));
  try {
    const file = join(dir, 'big-site.yaml');
    const text = generateWorkspace({ servers: 10_000, groups: 1_000, targetSets: 32 });
    writeFileSync(file, text);
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await timed(file);
      if (r.problems || r.servers !== 10_000) throw new Error('the generated workspace should be valid with 10000 servers');
      runs.push(r);
    }
    const wall = median(runs.map((r) => r.wall));
    const verdict = wall < GOAL_MS ? 'met' : 'MISSED';
    const best = Math.min(...runs.map((r) => r.wall));
    console.log(
      `workspace load+validate 10000 servers: ${Math.round(wall)} ms (goal < ${GOAL_MS} ms, ${verdict}; median of ${RUNS}, ` +
        `best ${Math.round(best)} ms, first ${Math.round(runs[0]!.wall)} ms, cpu ${Math.round(median(runs.map((r) => r.cpu)))} ms, ${(text.length / 1024 / 1024).toFixed(1)} MiB)`,
    );

    // For information: with mistakes, every problem is placed at its line and column.
    writeFileSync(file, text.replace('port: 8000, weight: 100', 'port: 80000, weight: 100').replace('srv15, port: 8001, weight: 105', 'srv15, port: 8001, weight: 0'));
    const bad = [];
    for (let i = 0; i < 3; i++) bad.push(await timed(file));
    console.log(`workspace load+validate 10000 servers with problems placed: ${Math.round(median(bad.map((r) => r.wall)))} ms (${bad[0]!.problems} problems: an error and a warning)`);
    if (wall >= GOAL_MS) process.exitCode = 1;

    type Run = Awaited<ReturnType<typeof timed>>;
    const bad1: Run[] = [];
    const bad4: Run[] = [];
    for (const [mb, into] of [[1, bad1], [4, bad4]] as const) {
      writeFileSync(file, badServers(mb));
      for (let i = 0; i < 3; i++) into.push(await timed(file));
    }
    const cpu1 = median(bad1.map((r) => r.cpu));
    const cpu4 = median(bad4.map((r) => r.cpu));
    const ratio = cpu4 / cpu1;
    console.log(
      `workspace validate bad servers: 1 MiB ${Math.round(median(bad1.map((r) => r.wall)))} ms (cpu ${Math.round(cpu1)} ms), ` +
        `4 MiB ${Math.round(median(bad4.map((r) => r.wall)))} ms (cpu ${Math.round(cpu4)} ms): ${ratio.toFixed(1)}x (goal <= ${BAD_RATIO_GOAL}x, ${ratio <= BAD_RATIO_GOAL ? 'met' : 'MISSED'}; ${bad4[0]!.problems} problems shown)`,
    );
    if (ratio > BAD_RATIO_GOAL) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
