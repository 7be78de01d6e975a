// The what-if answer as text: those left with nothing first, then each service and target set.
import type { WhatIfPool, WhatIfReport } from '../../../shared/api/whatif';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function formatWhatIf(r: WhatIfReport): string {
  const lines: string[] = [];
  lines.push(`whatif ${r.workspace}: with ${r.failed.map((f) => `${f.name} (${f.kind})`).join(', ')} failed`);
  const none = r.pools.filter((p) => p.none);
  lines.push(none.length ? `NO MEMBER LEFT: ${none.map((p) => p.name).join(', ')}` : 'every service and target set keeps a member');
  for (const p of r.pools) lines.push(...pool(p));
  if (r.takeovers.length) {
    lines.push('HA takeover:');
    for (const t of r.takeovers) {
      lines.push(t.to
        ? `  ${t.address} (${t.from}): ${t.failed} failed, ${t.to} takes it over (pair ${t.pair}, instance ${t.instance})`
        : `  ${t.address} (${t.from}): LOST, both boxes of pair ${t.pair} failed`);
    }
  }
  for (const n of r.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

function pool(p: WhatIfPool): string[] {
  const was = p.before === p.left ? '' : `, ${p.before} before`;
  const head = `${p.kind === 'service' ? 'service ' : ''}${p.name} (${p.algorithm}${p.persistence === 'none' ? '' : `, ${p.persistence}`}): ${p.left} of ${p.total} members left${was}`;
  const out = [`${p.none ? '!! ' : ''}${head}`];
  if (p.unserved) out.push(`  no appliance: ${p.unserved}`);
  for (const m of p.members) {
    out.push(m.state === 'left' ? `  ${m.name}  weight ${m.weight}  ${pct(m.share)} of new connections` : `  ${m.name}  ${m.state}`);
  }
  if (p.moves) {
    const to = Object.entries(p.moves.to).map(([k, n]) => `${n} to ${k}`).join(', ');
    out.push(`  moves (${p.moves.by}): ${p.moves.moved} of ${p.moves.clients} clients were on a failed member and choose again: ${to}`);
  }
  return out;
}
