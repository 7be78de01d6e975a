// Benchmark: `lbdesk import --driver netscaler` of a generated 4,500-line ns.conf, and the push
// plan (`render --onto --commands`) on it: unchanged, and with a weight changed and a server
// removed. Goal: each well under 1 s. Run: npx tsx bench/netscaler.ts (exit 1 when a median misses).
import { importNs } from '../main/services/drivers/netscaler/import';
import { planNs } from '../main/services/drivers/netscaler/plan';
import { workspaceSchema, type Workspace } from '../shared/model/schema';

const GOAL_MS = 1000;
const RUNS = 5;

/** A box's shape: a header and globals, 500 servers, 50 service groups of 10 with a monitor, 50 lb vservers. */
function generate(): string {
  const out = ['#NS13.1 Build 37.38', '# Last modified by `save config`, Mon May 03 12:34:56 2555', '', 'set ns config -IPAddress 192.0.2.250 -netmask 255.255.255.0', ''];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) out.push(`add server srv${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`);
  for (let g = 0; g < 50; g++) out.push(`add serviceGroup sg${g} HTTP -maxClient 0 -maxReq 0 -cip DISABLED -usip NO -useproxyport YES -cltTimeout 180 -svrTimeout 360 -CKA NO -TCPB NO -CMP NO`);
  for (let v = 0; v < 50; v++) out.push(`add lb vserver vs${v} HTTP 203.0.113.${100 + v} 80 -persistenceType NONE -lbMethod ROUNDROBIN -cltTimeout 180`);
  for (let v = 0; v < 50; v++) out.push(`bind lb vserver vs${v} sg${v}`);
  out.push('add lb monitor mon_http HTTP -respCode 200 -httpRequest "GET /health" -LRTM DISABLED');
  for (let g = 0; g < 50; g++) {
    for (let i = 0; i < 10; i++) out.push(`bind serviceGroup sg${g} srv${g * 10 + i} 80${i % 2 ? ` -weight ${1 + (i % 5)}` : ''}`);
    out.push(`bind serviceGroup sg${g} -monitorName mon_http`);
  }
  while (out.length < 4500) out.push(`add route 198.51.100.${out.length % 250} 255.255.255.255 192.0.2.1`);
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
    const r = importNs(text, 'bench.conf');
    workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'ns1', host: '192.0.2.250', driver: 'netscaler', manage: 'sections' }] });
  }),
  time('plan, unchanged', () => { if (planNs(workspace!, workspace!.appliances[0]!, text).steps.length) throw new Error('an unchanged workspace planned commands'); }),
];
const changed = structuredClone(workspace!);
changed.groups[0]!.members[0]!.weight = 50;
changed.groups[1]!.members.pop();
results.push(time('plan, a weight changed and a server removed', () => {
  const p = planNs(changed, changed.appliances[0]!, text);
  if (p.steps.length !== 3) throw new Error(`expected 3 steps, got ${p.steps.length}`);
}));
process.exitCode = results.every((m) => m < GOAL_MS) ? 0 : 1;
