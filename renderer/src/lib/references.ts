// Who refers to whom by name, so a rename can follow its references and a delete can warn.
import type { Path } from './tree';

export type RenameKind = 'server' | 'group' | 'service' | 'appliance';
type Raw = Record<string, unknown>;

const LIST: Record<RenameKind, string> = { server: 'servers', group: 'groups', service: 'services', appliance: 'appliances' };

const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

/** Every place that names the object: [path of the reference, its current value]. */
export function referencesTo(raw: Raw, kind: RenameKind, name: string): Path[] {
  const out: Path[] = [];
  if (!name) return out;
  if (kind === 'server') {
    arr(raw.groups).forEach((g, gi) =>
      arr(g?.members).forEach((m, mi) => m?.server === name && out.push(['groups', gi, 'members', mi, 'server'])),
    );
  } else if (kind === 'group') {
    arr(raw.services).forEach((s, si) => s?.group === name && out.push(['services', si, 'group']));
  } else if (kind === 'service') {
    arr(raw.appliances).forEach((a, ai) => {
      const inc = a?.include;
      if (Array.isArray(inc)) inc.forEach((n, ii) => n === name && out.push(['appliances', ai, 'include', ii]));
    });
  }
  return out;
}

/** The edits of a rename: the name itself first, then each reference. */
export function renameOps(raw: Raw, kind: RenameKind, index: number, to: string): [Path, unknown][] {
  const item = arr(raw[LIST[kind]])[index];
  const from = typeof item?.name === 'string' ? item.name : '';
  const refs = from && from !== to ? referencesTo(raw, kind, from) : [];
  return [[[LIST[kind], index, 'name'], to], ...refs.map((p): [Path, unknown] => [p, to])];
}

/** A name not used yet in a list: `web`, `web-2`, `web-3` … */
export function freeName(raw: Raw, list: string, base: string): string {
  const used = new Set(arr(raw[list]).map((x) => x?.name));
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** The lowest free target set number (1-32), or undefined when all are taken. */
export function freeTargetSetNumber(raw: Raw): number | undefined {
  const used = new Set(arr(raw.targetSets).map((t) => t?.number));
  for (let i = 1; i <= 32; i++) if (!used.has(i)) return i;
  return undefined;
}
