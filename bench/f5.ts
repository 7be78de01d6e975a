// Benchmark: `lbdesk import --driver f5` of a generated 4,500-line bigip.conf, and the push plan
// (`render --onto --commands`) on it: unchanged, and with a weight changed and a node removed.
// Goal: each well under 1 s. Run: npx tsx bench/f5.ts (exit 1 when a median misses).
import { importF5 } from '../main/services/drivers/f5/import';
import { planF5 } from '../main/services/drivers/f5/plan';
import { workspaceSchema, type Workspace } from '../shared/model/schema';

const GOAL_MS = 1000;
const RUNS = 5;

/** A box's shape: 300 nodes, 60 pools of 5 members, 60 virtual servers, then routes to 4,500 lines. */
function generate(): string {
  const out = ['#TMSH-VERSION: 15.1.0.4', ''];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  const addr = (n: number) => `${nets[n % 3]}.${1 + Math.floor(n / 3)}`;
  for (let n = 0; n < 300; n++) out.push(`ltm node /Common/web${n} {`, `    address ${addr(n)}`, '}');
  for (let p = 0; p < 60; p++) {
    out.push(`ltm pool /Common/pool${p} {`, '    load-balancing-mode least-connections-member', '    members {');
    for (let i = 0; i < 5; i++) out.push(`        /Common/web${p * 5 + i}:80 {`, `            address ${addr(p * 5 + i)}`, ...(i % 2 ? ['            ratio 2'] : []), '        }');
    out.push('    }', '    monitor /Common/http', '}');
  }
  for (let v = 0; v < 60; v++) {
    out.push(`ltm virtual /Common/vs${v} {`, `    destination /Common/203.0.113.${100 + (v % 150)}:${8000 + v}`, '    ip-protocol tcp', '    mask 255.255.255.255',
      `    pool /Common/pool${v}`, '    profiles {', '        /Common/http { }', '        /Common/tcp { }', '    }', '    source 0.0.0.0/0', '    translate-address enabled', '    translate-port enabled', '}');
  }
  for (let r = 0; out.length < 4500; r++) out.push(`net route /Common/r${r} {`, `    gw 192.0.2.1`, `    network 198.51.100.${r % 250}/32`, '}');
  out.push('');
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
    const r = importF5(text, 'bench.conf');
    workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'bigip1', host: '192.0.2.250', driver: 'f5', manage: 'sections' }] });
  }),
  time('plan, unchanged', () => { if (planF5(workspace!, workspace!.appliances[0]!, text).steps.length) throw new Error('an unchanged workspace planned commands'); }),
];
const changed = structuredClone(workspace!);
changed.groups[0]!.members[0]!.weight = 50;
changed.groups[1]!.members.pop();
results.push(time('plan, a weight changed and a node removed', () => {
  const p = planF5(changed, changed.appliances[0]!, text);
  if (p.steps.length !== 3) throw new Error(`expected 3 steps, got ${p.steps.length}`);
}));
process.exitCode = results.every((m) => m < GOAL_MS) ? 0 : 1;
