// A replay as text: the recorded timers and the others side by side, times from the trace's start.
import type { ReplayReport, ReplayRun, ReplayTimers } from '../../../shared/api/whatif';

const secs = (ms: number) => `${+(ms / 1000).toFixed(3)}s`;
const iso = (ms: number) => new Date(ms).toISOString();
const timersWords = (t: ReplayTimers) => `interval ${secs(t.interval)}, retryInterval ${secs(t.retryInterval)}, failAfter ${t.failAfter}, restoreAfter ${t.restoreAfter}, timeout ${secs(t.timeout)}`;

export function formatReplay(r: ReplayReport): string {
  const rel = (t: number) => `+${secs(t - r.start)}`;
  const col = (label: string, a: string, b: string) => `${label.padEnd(26)}${a.padEnd(30)}${b}`;
  const lines = [
    `replay ${r.member}: ${r.results} results from ${r.source}, ${iso(r.start)} to ${iso(r.end)} (${secs(r.end - r.start)})`,
    `recorded timers: ${timersWords(r.recorded.timers)}`,
    `replayed timers: ${timersWords(r.replayed.timers)}`,
    col('', 'recorded', 'replayed'),
    col('checks', String(r.recorded.checks), String(r.replayed.checks)),
    col('in service while failing', secs(r.recorded.servedWhileFailingMs), secs(r.replayed.servedWhileFailingMs)),
    col('out while passing', secs(r.recorded.outWhilePassingMs), secs(r.replayed.outWhilePassingMs)),
  ];
  r.recorded.failures.forEach((f, i) => {
    const other = r.replayed.failures[i];
    const words = (x: ReplayRun['failures'][number] | undefined) => (x?.afterMs === undefined ? 'not detected' : `out after ${secs(x.afterMs)}`);
    lines.push(col(`failure at ${rel(f.began)}`, words(f), words(other)));
  });
  for (const [name, run] of [['recorded', r.recorded], ['replayed', r.replayed]] as const) {
    lines.push(`state changes (${name}):`);
    for (const c of run.changes) lines.push(`  ${rel(c.at).padEnd(10)} ${c.from} -> ${c.to}: ${c.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
