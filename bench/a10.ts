// Benchmark: `lbdesk import --driver a10` of a generated 4,500-line ACOS 4.x running config, and
// the push plan (`render --onto --commands`) on it: unchanged, and with a weight changed and a
// server removed. Goal: each well under 1 s. Run: npx tsx bench/a10.ts (exit 1 when a median misses).
import { importA10 } from '../main/services/drivers/a10/import';
import { planA10 } from '../main/services/drivers/a10/plan';
import { workspaceSchema, type Workspace } from '../shared/model/schema';

const GOAL_MS = 1000;
const RUNS = 5;

/** A box's shape: a header and globals, 500 servers (5 lines), 50 service groups of 10 (one monitor), 50 virtual servers. */
function generate(): string {
  const out = ['!Current configuration: 123456 bytes', '!version 4.1.4-GR1-P5, build 81 (Aug-31-2021,11:22)', '!', 'hostname vThunder', '!', 'health monitor hm-http', '  method http url GET /health', '!'];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) out.push(`slb server s${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`, `  weight ${1 + (r % 5)}`, '  port 80 tcp', '    health-check-disable', '!');
  for (let g = 0; g < 50; g++) {
    out.push(`slb service-group sg${g} tcp`, '  method least-connection', '  health-check hm-http');
    for (let i = 0; i < 10; i++) out.push(`  member s${g * 10 + i} 80`);
    out.push('!');
  }
  for (let v = 0; v < 50; v++) out.push(`slb virtual-server vs${v} 203.0.113.${100 + v}`, '  port 80 http', '    source-nat auto', `    service-group sg${v}`, '!');
  while (out.length < 4500) out.push(`ip route 198.51.100.${out.length % 250} /32 192.0.2.1`);
  out.push('end', '');
  return out.join('\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function time(what: string, fn: () => void): number {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    runs.push(performance.now() - t);
  }
  const m = median(runs);
  process.stdout.write(`${what}: median ${m.toFixed(1)} ms of ${RUNS} (goal ${GOAL_MS} ms)\n`);
  return m;
}

const text = generate();
process.stdout.write(`config: ${text.split('\n').length} lines, ${(text.length / 1024).toFixed(0)} KiB\n`);
let workspace: Workspace | undefined;
const results = [
  time('import', () => {
    const r = importA10(text, 'bench.cfg');
    workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'a10', host: '192.0.2.250', driver: 'a10', manage: 'sections' }] });
  }),
  time('plan, unchanged', () => { if (planA10(workspace!, workspace!.appliances[0]!, text).steps.length) throw new Error('an unchanged workspace planned commands'); }),
];
const changed = structuredClone(workspace!);
changed.groups[0]!.members[0]!.weight = 50;
changed.groups[1]!.members.pop();
results.push(time('plan, a weight changed and a server removed', () => {
  const p = planA10(changed, changed.appliances[0]!, text);
  if (p.steps.length !== 3) throw new Error(`expected 3 steps, got ${p.steps.length}`);
}));
process.exitCode = results.every((m) => m < GOAL_MS) ? 0 : 1;
