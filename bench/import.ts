// Benchmark: `lbdesk import` of a generated 2,000-backend / 20,000-server haproxy.cfg and
// `render --onto` of it (unchanged, and with one weight changed). Goal: each under 1 s.
// Run: npx tsx bench/import.ts   (exit status 1 when a median misses its goal)
import { importConfig, newWorkspaceText } from '../main/services/import';
import { renderOnto } from '../main/services/drivers/sections';
import { parseWorkspace } from '../shared/model/validate';
import { cpus, loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';

const GOAL_MS = 1000;
const RUNS = 5;
const BACKENDS = 2_000;
const PER = 10;

/** Real-site shape: global, defaults, a kept TLS frontend and stats, then frontend/backend pairs. */
function generate(): string {
  const out = ['global', '    log /dev/log local0', '    maxconn 50000', '', 'defaults', '    mode tcp', '    timeout connect 5s', '    timeout client 1m', '    timeout server 1m', '    default-server inter 5s fall 3 rise 2', ''];
  out.push('frontend https-in', '    bind 192.0.2.1:443 ssl crt /etc/haproxy/site.pem', '    acl api path_beg /api/', '    use_backend b0 if api', '    default_backend b1', '');
  out.push('listen stats', '    bind 192.0.2.1:8404', '    mode http', '    stats enable', '    stats uri /', '');
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  let n = 0;
  for (let b = 0; b < BACKENDS; b++) {
    out.push(`# farm ${b}`, `frontend f${b}`, `    bind 192.0.2.10:${10_000 + b}`, `    default_backend b${b}`, '');
    out.push(`backend b${b}`, '    balance roundrobin', '    option httpchk GET /health HTTP/1.0', '    http-check expect status 200-299', '    timeout check 2s');
    for (let s = 0; s < PER; s++, n++) {
      const address = `${nets[n % 3]}.${1 + (Math.floor(n / 3) % 250)}`;
      out.push(`    server s${b}-${s} ${address}:${8000 + (n % 1000)} weight ${1 + (s % 5)} check`);
    }
    out.push('');
  }
  return out.join('\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cpu: Record<string, number[]> = {};
/** Time in the garbage collector during each measured step (a loaded machine stretches it most). */
const gc: Record<string, number[]> = {};
/** GC entries come in after the step that caused them: matched to steps by time at the end. */
const gcEntries: { start: number; ms: number }[] = [];
const steps: { key: string; start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcEntries.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ['gc'] });
function gcPerStep(): void {
  for (const st of steps) (gc[st.key] ??= []).push(gcEntries.filter((e) => e.start >= st.start && e.start < st.end).reduce((a, e) => a + e.ms, 0));
}

/** Wall time, and CPU time under `key` (a loaded machine stretches the first, less the second). */
function time<T>(fn: () => T, key?: string): { ms: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const c = process.cpuUsage(c0);
  if (key) (cpu[key] ??= []).push((c.user + c.system) / 1000);
  if (key) steps.push({ key, start: t0, end: performance.now() });
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const text = generate();
  const bytes = Buffer.from(text);
  const figures: Record<string, number[]> = { import: [], yaml: [], validate: [], onto: [], ontoEdit: [] };
  let summary = '';
  for (let i = 0; i < RUNS; i++) {
    // GC entries arrive after the step: let them in between runs.
    await new Promise((r) => setTimeout(r, 20));
    const imp = time(() => importConfig({ bytes, file: 'big.cfg', driver: 'haproxy' }), 'import');
    figures.import!.push(imp.ms);
    const yaml = time(() => newWorkspaceText(imp.value, { name: 'big', driver: 'haproxy', workspaceName: 'big', source: 'big.cfg' }), 'yaml');
    figures.yaml!.push(yaml.ms);
    const parsed = time(() => parseWorkspace(yaml.value, 'big.yaml'), 'validate');
    figures.validate!.push(parsed.ms);
    (figures.whole ??= []).push(imp.ms + yaml.ms + parsed.ms);
    (cpu.whole ??= []).push(cpu.import!.at(-1)! + cpu.yaml!.at(-1)! + cpu.validate!.at(-1)!);
    const workspace = parsed.value.workspace!;
    if (!workspace || workspace.groups.length !== BACKENDS) throw new Error('the imported workspace should hold every backend');
    const a = workspace.appliances[0]!;
    const same = time(() => renderOnto(workspace, a, text, { workspacePath: 'big.yaml' }, { file: 'big.cfg' }), 'onto');
    if (same.value.text !== text) throw new Error('render --onto the same file must give the same bytes');
    figures.onto!.push(same.ms);
    workspace.groups[1234]!.members[5]!.weight = 200;
    const edit = time(() => renderOnto(workspace, a, text, { workspacePath: 'big.yaml' }, { file: 'big.cfg' }), 'ontoEdit');
    const after = edit.value.text.split('\n');
    const diff = text.split('\n').filter((l, k) => after[k] !== l).length;
    if (diff !== 1) throw new Error(`one weight changed must change one line (${diff} did)`);
    figures.ontoEdit!.push(edit.ms);
    summary = `${(bytes.length / 1024 / 1024).toFixed(1)} MiB, ${imp.value.workspace.groups.length} groups, ${imp.value.workspace.services.length} services, ${BACKENDS * PER} server lines -> ${imp.value.workspace.servers.length} servers (shared by address), ${imp.value.items.length} report rows`;
  }
  await new Promise((r) => setTimeout(r, 50));
  gcPerStep();
  console.log(`import bench: ${summary}; median of ${RUNS} runs (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs)`);
  const row = (label: string, key: string, goal?: number) => {
    const m = median(figures[key]!);
    const inGc = gc[key] ? `, ${median(gc[key]!).toFixed(0).padStart(4)} ms GC` : '';
    console.log(`  ${label.padEnd(44)} ${m.toFixed(0).padStart(6)} ms wall, ${median(cpu[key]!).toFixed(0).padStart(6)} ms CPU${inGc}${goal ? `  (goal < ${goal} ms: ${m < goal ? 'met' : 'MISSED'})` : ''}`);
    return goal === undefined || m < goal;
  };
  const ok = [
    row('import (parse + map + report)', 'import', GOAL_MS),
    row('  write the workspace YAML', 'yaml'),
    row('  validate it (lbdesk validate)', 'validate'),
    row('  lbdesk import: all three', 'whole'),
    row('render --onto the same file (same bytes)', 'onto', GOAL_MS),
    row('render --onto with one weight changed', 'ontoEdit', GOAL_MS),
  ].every(Boolean);
  process.exitCode = ok ? 0 : 1;
}

void main();
