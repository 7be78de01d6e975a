// Benchmark: `lbdesk import --driver adx` of a generated 4,500-line ADX running config, and the
// push plan (`render --onto --commands`) on it: unchanged, and with a weight changed and a real
// server removed. Goal: each well under 1 s. Run: npx tsx bench/adx.ts (exit 1 when a median misses).
import { importAdx } from '../main/services/drivers/adx/import';
import { planAdx } from '../main/services/drivers/adx/plan';
import { workspaceSchema, type Workspace } from '../shared/model/schema';

const GOAL_MS = 1000;
const RUNS = 5;

/** A box's shape: a header and globals, 500 real servers (7 lines each), 50 virtual servers of 10. */
function generate(): string {
  const out = ['!Building configuration...', '!Current configuration : 123456 bytes', '!', 'ver 12.5.02T403', '!', 'server source-ip 192.0.2.250 255.255.255.0 192.0.2.1', '!'];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) {
    out.push(`server real rs${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`, ' port http', ' port http keepalive', ' port http url "HEAD /health"', ` weight ${1 + (r % 5)} 0`, ` port http server-id ${1000 + r}`, '!');
  }
  for (let v = 0; v < 50; v++) {
    const binds = Array.from({ length: 10 }, (_, i) => `rs${v * 10 + i} http`).join(' ');
    out.push(`server virtual vs${v} 203.0.113.${100 + v}`, ' port http', ' port http sticky', ' predictor round-robin', ` bind http ${binds}`, '!');
  }
  while (out.length < 4500) out.push(`ip route 198.51.100.${out.length % 250}/32 192.0.2.1`);
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
    const r = importAdx(text, 'bench.cfg');
    workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'adx1', host: '192.0.2.250', driver: 'adx', manage: 'sections' }] });
  }),
  time('plan, unchanged', () => { if (planAdx(workspace!, workspace!.appliances[0]!, text).steps.length) throw new Error('an unchanged workspace planned commands'); }),
];
const changed = structuredClone(workspace!);
changed.groups[0]!.members[0]!.weight = 50;
changed.groups[1]!.members.pop();
results.push(time('plan, a weight changed and a real server removed', () => {
  const p = planAdx(changed, changed.appliances[0]!, text);
  if (p.steps.length !== 3) throw new Error(`expected 3 steps, got ${p.steps.length}`);
}));
process.exitCode = results.every((m) => m < GOAL_MS) ? 0 : 1;
