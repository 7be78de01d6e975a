// Minimal edits of one imported HAProxy section: the members, check and balance the workspace
// now asks for, written into the lines the appliance has, one word at a time where possible.
import type { Group, HealthCheck, Server, Service, Workspace } from '../../../../shared/model/schema';
import { resolveTimers, type ResolvedTimers } from '../../../../shared/model/resolve';
import { sameAddress } from '../../../../shared/model/address';
import { formatDuration } from '../../../../shared/model/duration';
import { haproxyAddress, scaleWeights } from '../format';
import { isCheckLine } from '../../import/haproxy-proxy';
import type { CfgSection } from '../../import/haproxy-parse';
import type { MemberSource } from '../../import/types';
import { crOf, indentOf, type LineEdits } from './edits';
import { addFlag, removeWord, replaceWord, setOption } from './words';

export interface MemberView {
  name: string;
  address: string;
  port?: number;
  weight: number;
  enabled: boolean;
  timers: ResolvedTimers;
}

/** Name lookups built once per render (big sites have thousands of groups and servers). */
export interface WorkspaceIndex {
  workspace: Workspace;
  groups: Map<string, Group>;
  servers: Map<string, Server>;
  services: Map<string, Service>;
  /** The first service of each group. */
  serviceOfGroup: Map<string, Service>;
}

export function indexWorkspace(workspace: Workspace, services: Service[] = workspace.services): WorkspaceIndex {
  const serviceOfGroup = new Map<string, Service>();
  for (const s of services) if (!serviceOfGroup.has(s.group)) serviceOfGroup.set(s.group, s);
  return {
    workspace,
    groups: new Map(workspace.groups.map((g) => [g.name, g])),
    servers: new Map(workspace.servers.map((s) => [s.name, s])),
    services: new Map(services.map((s) => [s.name, s])),
    serviceOfGroup,
  };
}

export function membersOf(ix: WorkspaceIndex, g: Group): MemberView[] {
  const workspace = ix.workspace;
  const weights = scaleWeights(g.members.map((m) => m.weight), 256).weights;
  return g.members.map((m, i) => {
    const s = ix.servers.get(m.server);
    return {
      name: m.server,
      address: s?.address ?? '',
      port: m.port,
      weight: weights[i]!,
      enabled: s?.enabled ?? true,
      timers: resolveTimers({ server: s?.healthTimers, group: g.healthTimers, global: workspace.healthTimers }),
    };
  });
}

const same = (a: MemberView, b: MemberView): boolean => sameAddress(a.address, b.address) && a.port === b.port;

/** Pairs box members with workspace members: same address and port first, then in order. */
export function pair(box: MemberView[], want: MemberView[]): { pairs: [number, number][]; removed: number[]; added: number[] } {
  const pairs: [number, number][] = [];
  const usedBox = new Set<number>();
  const usedWant = new Set<number>();
  want.forEach((w, j) => {
    const i = box.findIndex((b, k) => !usedBox.has(k) && same(b, w));
    if (i >= 0) {
      pairs.push([i, j]);
      usedBox.add(i);
      usedWant.add(j);
    }
  });
  const restBox = box.map((_, i) => i).filter((i) => !usedBox.has(i));
  const restWant = want.map((_, j) => j).filter((j) => !usedWant.has(j));
  while (restBox.length && restWant.length) pairs.push([restBox.shift()!, restWant.shift()!]);
  return { pairs, removed: restBox, added: restWant };
}

const t = formatDuration;

/** The `check …` arguments of a new server line, as the driver renders them. */
export function checkArgs(check: HealthCheck, timers: ResolvedTimers): string {
  if (check.type === 'none') return '';
  const tls = check.type === 'https' || check.type === 'ssl' ? ' check-ssl verify none' : '';
  return ` check${tls} inter ${t(timers.interval)} fastinter ${t(timers.retryInterval)} downinter ${t(timers.retryInterval)} rise ${timers.restoreAfter} fall ${timers.failAfter}`;
}

/** Patches the server lines of a backend or listen section. */
export function patchMembers(edits: LineEdits, section: CfgSection, sources: MemberSource[], box: MemberView[], want: MemberView[], check: HealthCheck): void {
  const { pairs, removed, added } = pair(box, want);
  for (const [i, j] of pairs) {
    const line = sources[i]!.line;
    const b = box[i]!;
    const w = want[j]!;
    let raw = edits.current(line)!;
    if (!same(b, w)) raw = replaceWord(raw, 2, haproxyAddress(w.address, w.port));
    if (b.weight !== w.weight) raw = setOption(raw, 'weight', String(w.weight), 3);
    if (b.enabled !== w.enabled) raw = w.enabled ? removeWord(raw, 'disabled', false, 3) : addFlag(raw, 'disabled', 3);
    const bt = b.timers;
    const wt = w.timers;
    if (check.type !== 'none') {
      if (bt.interval !== wt.interval) raw = setOption(raw, 'inter', t(wt.interval), 3);
      if (bt.retryInterval !== wt.retryInterval) raw = setOption(setOption(raw, 'fastinter', t(wt.retryInterval), 3), 'downinter', t(wt.retryInterval), 3);
      if (bt.restoreAfter !== wt.restoreAfter) raw = setOption(raw, 'rise', String(wt.restoreAfter), 3);
      if (bt.failAfter !== wt.failAfter) raw = setOption(raw, 'fall', String(wt.failAfter), 3);
    }
    if (raw !== edits.lines[line]) edits.replace(line, [raw]);
  }
  for (const i of removed) edits.replace(sources[i]!.line, []);
  if (added.length) {
    const last = sources.length ? sources[sources.length - 1]!.line : lastDirective(section);
    const ref = edits.lines[last];
    const indent = sources.length ? indentOf(ref) : '    ';
    edits.insertAfter(last, added.map((j) => {
      const w = want[j]!;
      return `${indent}server ${w.name} ${haproxyAddress(w.address, w.port)} weight ${w.weight}${w.enabled ? '' : ' disabled'}${checkArgs(check, w.timers)}${crOf(ref)}`;
    }));
  }
}

/** 0-based index of the section's last directive (header when it has none). */
export function lastDirective(s: CfgSection): number {
  for (let k = s.body.length - 1; k >= 0; k--) if (s.body[k]!.first !== undefined) return s.body[k]!.index;
  return s.header.index;
}

function bodyIndent(edits: LineEdits, s: CfgSection): string {
  const first = s.body.find((l) => l.first !== undefined);
  return first ? indentOf(first.raw) : '    ';
}

/** Sets a section directive (`balance …`, `timeout check …`): replaces its line, else adds one after the header. */
export function setDirective(edits: LineEdits, s: CfgSection, match: (w: string[]) => boolean, lines: string[]): void {
  const found = s.body.filter((l) => match(l.words.map((x) => x.text)));
  const indent = bodyIndent(edits, s);
  const cr = crOf(s.header.raw);
  const text = lines.map((l) => `${indent}${l}${cr}`);
  if (found.length) {
    edits.replace(found[0]!.index, text);
    for (const l of found.slice(1)) edits.replace(l.index, []);
  } else {
    edits.insertAfter(s.header.index, text);
  }
}

/** Replaces the backend's check directives with the driver's lines for the new check. */
export function replaceCheck(edits: LineEdits, s: CfgSection, lines: string[], sources: MemberSource[], check: HealthCheck, box: MemberView[]): void {
  const old = s.body.filter((l) => isCheckLine(l) || (l.first === 'timeout' && l.words[1]?.text === 'check'));
  const indent = bodyIndent(edits, s);
  const cr = crOf(s.header.raw);
  const text = lines.map((l) => `${indent}${l}${cr}`);
  if (old.length) {
    edits.replace(old[0]!.index, text);
    for (const l of old.slice(1)) edits.replace(l.index, []);
  } else edits.insertAfter(s.header.index, text);
  // Server lines: the check flags follow the new type.
  sources.forEach((src, i) => {
    let raw = edits.current(src.line)!;
    for (const k of ['check-ssl', 'check']) raw = removeWord(raw, k, false, 3);
    for (const k of ['inter', 'fastinter', 'downinter', 'rise', 'fall']) raw = removeWord(raw, k, true, 3);
    const w = box[i];
    if (w) raw = raw.replace(/\r?$/, (end) => `${checkArgs(check, w.timers)}${end}`);
    edits.replace(src.line, [raw]);
  });
}

export function serviceTimeout(svc: Service): string {
  return t(svc.idleTimeout);
}
