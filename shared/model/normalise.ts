// Fm + Fc normalised to 100 on save, as the IPFE does "on commit of this form" (seed 003).
import { isMap, isSeq, type Document } from 'yaml';
import { setField } from './document';
import { normaliseFactorValues } from './ipfe';

const inRange = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100;

/**
 * Rewrites every target set's leastLoad factors whose sum is not 100 (missing ones count as
 * the default 50), keeping comments. Values that are invalid, or both 0, are left for
 * validation to report. Returns one line per change, e.g. `targetSets[0].leastLoad: 30+50 -> 38+62`.
 */
export function normaliseFactors(doc: Document): string[] {
  const changes: string[] = [];
  const sets = isMap(doc.contents) ? doc.contents.get('targetSets', true) : undefined;
  if (!isSeq(sets)) return changes;
  sets.items.forEach((item, i) => {
    if (!isMap(item)) return;
    const ll = item.get('leastLoad', true);
    if (ll !== undefined && !isMap(ll)) return;
    const fm = ll ? (ll.get('mpsFactor') ?? 50) : 50;
    const fc = ll ? (ll.get('connectionFactor') ?? 50) : 50;
    if (!inRange(fm) || !inRange(fc) || fm + fc === 100) return;
    const n = normaliseFactorValues(fm, fc);
    if (!n) return;
    setField(doc, ['targetSets', i, 'leastLoad', 'mpsFactor'], n.mpsFactor);
    setField(doc, ['targetSets', i, 'leastLoad', 'connectionFactor'], n.connectionFactor);
    changes.push(`targetSets[${i}].leastLoad: ${fm}+${fc} -> ${n.mpsFactor}+${n.connectionFactor}`);
  });
  return changes;
}
