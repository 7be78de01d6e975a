// The compare report as text: per member side by side, then each difference and its cause.
import type { CompareReport } from '../../../shared/api/compare';

const kinds = (k: Record<string, number>) => (Object.keys(k).length ? ` (${Object.entries(k).map(([what, n]) => `${n} ${what}`).join(', ')})` : '');
const ms = (v: number | undefined) => (v === undefined ? '-' : `${v}`);

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}

export function formatReport(r: CompareReport): string {
  const out: string[] = [`compare ${r.workspace}: lab vs appliance ${r.appliance} (driver ${r.driver}), ${(r.durationMs / 1000).toFixed(1)} s`];
  if (r.remapped.length) out.push('', 'remapped to loopback for the run (private addresses, free ports):', ...r.remapped.map((l) => `  ${l}`));
  for (const s of r.skipped) out.push(`not compared: ${s.service}: ${s.reason}`);
  out.push('', ...table([
    ['service', 'member', 'share lab', 'share appliance', 'connections lab', 'connections appliance'],
    ...r.members.map((m) => [m.service, m.member, `${m.share.lab.toFixed(1)} %`, `${m.share.appliance.toFixed(1)} %`, String(m.connections.lab), String(m.connections.appliance)]),
  ]));
  out.push('', ...table([
    ['service', 'member', 'fault', 'down lab ms', 'down appliance ms', 'up lab ms', 'up appliance ms'],
    ...r.faults.map((f) => [f.service, f.member, f.fault, `${ms(f.lab.downMs)}${f.lab.degraded ? ' (degraded)' : ''}`, ms(f.appliance.downMs), ms(f.lab.upMs), ms(f.appliance.upMs)]),
  ]));
  out.push('', ...table([
    ['service', 'errors lab', 'errors appliance', 'connections lab', 'connections appliance'],
    ...r.errors.map((e) => [e.service, `${e.errors.lab}${kinds(e.kinds.lab)}`, `${e.errors.appliance}${kinds(e.kinds.appliance)}`, String(e.attempts.lab), String(e.attempts.appliance)]),
  ]));
  out.push('');
  if (r.differences.length === 0) out.push('no differences beyond measurement noise');
  for (const d of r.differences) {
    out.push(`${d.explainedBy ? 'explained' : 'UNEXPLAINED'}: ${d.service}${d.member ? ` ${d.member}` : ''}: ${d.what}: lab ${d.lab}, appliance ${d.appliance}`);
    if (d.explainedBy) out.push(`    by the render warning: ${d.explainedBy}`);
  }
  out.push(`${r.differences.length} difference(s), ${r.unexplained} unexplained`);
  return `${out.join('\n')}\n`;
}
