// Benchmark: `lbdesk import --driver D` of a generated 4,500-line running config, and the push
// plan (`render --onto --commands`) on it — unchanged, and with a weight changed and a server
// removed — for each command-driven dialect (adx, a10, netscaler, f5), through the driver
// registry as lbdesk calls them. Goal: each well under 1 s.
//   npx tsx bench/vendor.ts [adx a10 …]   (exit 1 when a median misses)
import { getDriver } from '../main/services/drivers';
import { workspaceSchema, type DriverName, type Workspace } from '../shared/model/schema';
import { CONFIGS } from './lib/vendor-configs';

const GOAL_MS = 1000;
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function time(what: string, fn: () => void): number {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    runs.push(performance.now() - t);
  }
  const m = median(runs);
  process.stdout.write(`  ${what}: median ${m.toFixed(1)} ms of ${RUNS} (goal ${GOAL_MS} ms)\n`);
  return m;
}

const asked = process.argv.slice(2);
const results: number[] = [];
for (const [name, { generate, file }] of Object.entries(CONFIGS)) {
  if (asked.length && !asked.includes(name)) continue;
  const driver = getDriver(name as DriverName);
  const importer = driver.importer!;
  const plan = driver.commands!.plan;
  const text = generate();
  process.stdout.write(`${name}: ${text.split('\n').length} lines, ${(text.length / 1024).toFixed(0)} KiB\n`);
  let workspace: Workspace | undefined;
  results.push(time('import', () => {
    const r = importer(text, file, {});
    workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: `${name}1`, host: '192.0.2.250', driver: name, manage: 'sections' }] });
  }));
  results.push(time('plan, unchanged', () => {
    if (plan(workspace!, workspace!.appliances[0]!, text).steps.length) throw new Error(`${name}: an unchanged workspace planned commands`);
  }));
  const changed = structuredClone(workspace!);
  changed.groups[0]!.members[0]!.weight = 50;
  changed.groups[1]!.members.pop();
  results.push(time('plan, a weight changed and a server removed', () => {
    const p = plan(changed, changed.appliances[0]!, text);
    if (p.steps.length !== 3) throw new Error(`${name}: expected 3 steps, got ${p.steps.length}`);
  }));
}
process.exitCode = results.every((m) => m < GOAL_MS) ? 0 : 1;
