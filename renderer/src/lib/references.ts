// Who refers to whom by name, so a rename can follow its references and a delete can warn.
import { getIn, type Path } from './tree';

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
    arr(raw.pairs).forEach((p, pi) => arr(p?.instances).forEach((inst, ii) => {
      const svc = inst?.services;
      if (Array.isArray(svc)) svc.forEach((n, si) => n === name && out.push(['pairs', pi, 'instances', ii, 'services', si]));
    }));
  } else if (kind === 'appliance') {
    // A pair names its boxes (and their keepalived), and an instance its master.
    arr(raw.pairs).forEach((p, pi) => {
      arr(p?.members).forEach((m, mi) => {
        if (m?.appliance === name) out.push(['pairs', pi, 'members', mi, 'appliance']);
        if (m?.keepalived === name) out.push(['pairs', pi, 'members', mi, 'keepalived']);
      });
      arr(p?.instances).forEach((inst, ii) => inst?.master === name && out.push(['pairs', pi, 'instances', ii, 'master']));
    });
  }
  return out;
}

/**
 * A rename in progress (typing in the name field): the references that pointed to the item when
 * the edit began, tracked by place. Each keystroke moves only these, so passing through another
 * item's name (`web1` on the way to `web1b`) never picks up that item's references; and they do
 * not follow onto a name another item has (pasting `web2` over `web1`), which would hand them to
 * that item: they wait, holding `refName`, until the name is free again.
 */
export interface RenameSession { kind: RenameKind; index: number; name: string; refs: Path[]; refName: string }

/**
 * The references an item owns: those naming it, when no other item has its name. With two
 * `web1`s nobody can tell whose a `web1` is, so a rename or a delete of either moves or warns
 * about none of them.
 */
export function ownedReferences(raw: Raw, kind: RenameKind, index: number): Path[] {
  const list = arr(raw[LIST[kind]]);
  const name = list[index]?.name;
  if (typeof name !== 'string' || !name) return [];
  return list.some((x, i) => i !== index && x?.name === name) ? [] : referencesTo(raw, kind, name);
}

export function beginRename(raw: Raw, kind: RenameKind, index: number): RenameSession {
  const name = arr(raw[LIST[kind]])[index]?.name;
  const n = typeof name === 'string' ? name : '';
  return { kind, index, name: n, refs: ownedReferences(raw, kind, index), refName: n };
}

const takenByOther = (raw: Raw, s: RenameSession, to: string) => arr(raw[LIST[s.kind]]).some((x, i) => i !== s.index && x?.name === to);

/** The edits of one rename step: the name itself first, then each reference the session still tracks. */
export function renameOps(raw: Raw, s: RenameSession, to: string): [Path, unknown][] {
  const name: [Path, unknown] = [[LIST[s.kind], s.index, 'name'], to];
  if (s.refName === to || !to || takenByOther(raw, s, to)) return [name];
  // A reference changed meanwhile by something else is no longer ours to move.
  return [name, ...live(raw, s).map((p): [Path, unknown] => [p, to])];
}

const live = (raw: Raw, s: RenameSession) => s.refs.filter((p) => getIn(raw, p) === s.refName);

/** The session after a step: the name it now carries, and the references still following it. */
export function advanceRename(raw: Raw, s: RenameSession, to: string): RenameSession {
  const moved = s.refName !== to && !!to && !takenByOther(raw, s, to);
  return { ...s, name: to, refs: live(raw, s), refName: moved ? to : s.refName };
}

/** Who names an item, once each (for a delete): `group web`, `service web-vip`, `appliance edge`. */
export function describeReferences(raw: Raw, refs: Path[]): string[] {
  const out = new Set<string>();
  for (const [list, i] of refs) {
    const owner = getIn(raw, [list!, i!, 'name']);
    const noun = list === 'groups' ? 'group' : list === 'services' ? 'service' : list === 'pairs' ? 'pair' : 'appliance';
    out.add(`${noun} ${typeof owner === 'string' && owner ? owner : `#${Number(i) + 1}`}`);
  }
  return [...out];
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
