// `manage: sections` for keepalived: the workspace's virtual servers rendered onto the
// keepalived.conf the appliance holds. Imported virtual servers are edited in place; VRRP,
// global_defs, groups, fwmark and every other block stay byte for byte.
import type { Appliance, Service, Workspace } from '../../../../shared/model/schema';
import { workspaceSchema } from '../../../../shared/model/schema';
import { sameAddress } from '../../../../shared/model/address';
import { renderKeepalived } from '../keepalived';
import { keepalivedChecker } from '../keepalived-checks';
import { keepalivedSeconds } from '../format';
import { selectIncluded, targetSetIncludeName } from '../include';
import { servicePool, type PoolMember } from '../pools';
import { importKeepalived } from '../../import/keepalived-import';
import { parseKeepalivedText, type KaNode } from '../../import/keepalived-parse';
import { ImportError, type SectionBinding } from '../../import/types';
import type { DriverProblem } from '../types';
import { attachedFrom, crOf, indentOf, LineEdits, removeLines } from './edits';
import { markerHash, markerLine, sectionHash } from './markers';
import type { OntoOptions, OntoResult } from './types';

const LB_ALGO: Record<string, string> = { 'round-robin': 'rr', 'weighted-round-robin': 'wrr', 'least-connections': 'lc', 'source-hash': 'sh', 'health-weighted': 'wlc' };

const keyOf = (n: KaNode): string => n.words.join(' ');
const blockLines = (lines: string[], n: KaNode): string[] => lines.slice(n.line, n.endLine + 1);

/** Names a kept block may refer to: vrrp_script (track_script), vrrp_instance (sync groups), groups. Any block lbdesk renders (virtual_server, vrrp_script, vrrp_instance…) can be owned. */
function refNames(n: KaNode): string[] {
  const out: string[] = [];
  const walk = (x: KaNode): void => {
    out.push(...x.words);
    for (const c of x.children ?? []) walk(c);
  };
  for (const c of n.children ?? []) walk(c);
  if (n.words[0] === 'virtual_server' && n.words[1] === 'group' && n.words[2]) out.push(n.words[2]);
  return out;
}

function attachedStart(lines: string[], line: number): number {
  let i = line;
  while (i - 1 >= 0 && /^\s*[#!]/.test(lines[i - 1]!) && markerHash(lines[i - 1]) === undefined) i--;
  return i;
}

export function keepalivedOnto(workspace: Workspace, appliance: Appliance, current: string, opts: OntoOptions): OntoResult {
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const conflicts: string[] = [];
  const subject = `appliance ${appliance.name}`;
  let tree;
  let box;
  try {
    tree = parseKeepalivedText(current, opts.file);
    box = importKeepalived(current, opts.file, { includes: false });
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    return { text: '', errors: [{ subject, message: `the appliance's file cannot be read as keepalived.conf: ${e.message}` }], warnings, conflicts };
  }
  const parsed = workspaceSchema.safeParse(box.workspace);
  if (!parsed.success) return { text: '', errors: [{ subject, message: `the appliance's file does not import cleanly: ${parsed.error.issues[0]?.message}` }], warnings, conflicts };
  const boxWorkspace = parsed.data;
  const lines = tree.lines;
  const edits = new LineEdits(lines);
  const byLine = new Map(tree.nodes.map((n) => [n.line, n]));
  const marked = new Set(tree.nodes.filter((n) => n.children && markerHash(lines[n.line - 1]) !== undefined));
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const served = new Map(included.services.map((s) => [s.name, s]));
  const removed = new Set<KaNode>();
  const owned = new Set<KaNode>([...marked, ...box.sections.map((b) => byLine.get(b.start)!)]);

  for (const n of marked) {
    if (markerHash(lines[n.line - 1]) !== sectionHash(blockLines(lines, n))) conflicts.push(`${opts.file}:${n.line + 1}: ${keyOf(n)} was edited on the appliance since lbdesk wrote it`);
  }
  if (opts.base !== undefined) baseConflicts(opts.base, opts.file, [...owned].filter((n) => !marked.has(n)), lines, conflicts);

  const bound = new Set<string>();
  for (const b of box.sections) {
    const n = byLine.get(b.start)!;
    if (marked.has(n)) continue;
    for (const x of b.services) bound.add(x.name);
    patchVirtualServer(workspace, boxWorkspace, served, b, n, edits, removed, errors);
  }
  // lbdesk's own blocks: rendered afresh, compared by their header.
  const fresh = freshBlocks(workspace, appliance, included.services.filter((s) => !bound.has(s.name)), included.targetSets.map((t) => targetSetIncludeName(t.number)), errors, warnings);
  const existing = new Map(tree.nodes.filter((n) => n.children).map((n) => [keyOf(n), n]));
  const append: string[][] = [];
  for (const [key, block] of fresh) {
    const n = existing.get(key);
    if (n && !marked.has(n)) {
      errors.push({ subject, message: `${key} (line ${n.line + 1}) is not lbdesk's: the workspace's block for it cannot be added` });
      continue;
    }
    const text = [markerLine(block.lines), ...block.lines];
    if (!n) append.push([...block.comments, ...text]);
    else if ([lines[n.line - 1]!, ...blockLines(lines, n)].join('\n') !== text.join('\n')) {
      edits.remove(n.line - 1, n.endLine + 1);
      edits.insertBefore(n.line - 1, text);
    }
  }
  for (const n of marked) if (!fresh.has(keyOf(n))) removed.add(n);
  for (const n of removed) removeLines(edits, attachedFrom(lines, marked.has(n) ? n.line - 1 : n.line, -1), n.endLine + 1);
  const goneNames = new Set([...removed].map((n) => n.words[1]).filter((x): x is string => !!x));
  for (const n of tree.nodes) {
    if (owned.has(n) || !n.children) continue;
    const hit = refNames(n).find((w) => goneNames.has(w) && [...removed].some((r) => r.words[0] !== 'virtual_server' && r.words[1] === w));
    if (hit) errors.push({ subject, message: `${opts.file}:${n.line + 1}: ${keyOf(n)} (kept as written) refers to ${hit}, which the workspace no longer has` });
  }
  if (append.length) {
    let last = lines.length - 1;
    while (last > 0 && lines[last] === '') last--;
    edits.insertAfter(last, append.flatMap((b) => ['', ...b]));
  }
  if (conflicts.length && !opts.force) {
    errors.push({ subject, message: `${conflicts.length} owned block${conflicts.length === 1 ? '' : 's'} edited on the appliance (pull to accept the edit, or override with --force)` });
  }
  return { text: errors.length ? '' : edits.apply(), errors, warnings, conflicts };
}

function baseConflicts(base: string, file: string, owned: KaNode[], lines: string[], conflicts: string[]): void {
  let tree;
  try {
    tree = parseKeepalivedText(base, file);
  } catch {
    return;
  }
  const before = new Map(tree.nodes.filter((n) => n.children).map((n) => [keyOf(n), blockLines(tree.lines, n).join('\n')]));
  for (const n of owned) {
    const was = before.get(keyOf(n));
    if (was === undefined) conflicts.push(`${file}:${n.line + 1}: ${keyOf(n)} was added on the appliance since lbdesk's last pull or push`);
    else if (was !== blockLines(lines, n).join('\n')) conflicts.push(`${file}:${n.line + 1}: ${keyOf(n)} was edited on the appliance since lbdesk's last pull or push`);
  }
}

/** Sets `key value` inside a block: replaces its line, else adds one after the block's opening line. */
function setIn(edits: LineEdits, block: KaNode, key: string, value: string | undefined): void {
  const line = (block.children ?? []).find((c) => c.words[0] === key && !c.children);
  const first = (block.children ?? [])[0];
  const indent = first ? indentOf(edits.lines[first.line]) : `${indentOf(edits.lines[block.line])}    `;
  const cr = crOf(edits.lines[block.line]);
  if (line) edits.replace(line.line, value === undefined ? [] : [`${indentOf(edits.lines[line.line])}${key} ${value}${cr}`]);
  else if (value !== undefined) edits.insertAfter(block.line, [`${indent}${key} ${value}${cr}`]);
}

function patchVirtualServer(workspace: Workspace, boxWorkspace: Workspace, served: Map<string, Service>, b: SectionBinding, n: KaNode, edits: LineEdits, removed: Set<KaNode>, errors: DriverProblem[]): void {
  const name = b.services[0]!.name;
  const want = served.get(name);
  const have = boxWorkspace.services.find((s) => s.name === name);
  if (!want || !have) {
    removed.add(n);
    return;
  }
  const lines = edits.lines;
  const cr = crOf(lines[n.line]);
  if (!sameAddress(want.address, have.address) || want.port !== have.port) {
    edits.replace(n.line, [lines[n.line]!.replace(/virtual_server\s+\S+\s+\S+/, `virtual_server ${want.address} ${want.port}`)]);
  }
  if (want.protocol !== have.protocol) setIn(edits, n, 'protocol', want.protocol.toUpperCase());
  if (want.algorithm !== have.algorithm) setIn(edits, n, 'lb_algo', LB_ALGO[want.algorithm]);
  if (JSON.stringify(want.persistence) !== JSON.stringify(have.persistence)) {
    setIn(edits, n, 'persistence_timeout', want.persistence.type === 'client-ip' ? String(Math.ceil(want.persistence.timeout / 1000)) : undefined);
  }
  const { pool, errors: poolErrors } = servicePool(workspace, [...served.values()], want);
  errors.push(...poolErrors);
  const { pool: boxPool } = servicePool(boxWorkspace, boxWorkspace.services, have);
  if (!pool || !boxPool) return;
  const rsNodes = b.members.map((m) => (n.children ?? []).find((c) => c.line === m.line)!);
  const boxMembers = boxPool.members;
  const wantMembers = pool.members;
  const checkChanged = JSON.stringify(pool.healthCheck) !== JSON.stringify(boxPool.healthCheck);
  const usedBox = new Set<number>();
  const pairs: [number, number][] = [];
  const restWant: number[] = [];
  wantMembers.forEach((w, j) => {
    const i = boxMembers.findIndex((x, k) => !usedBox.has(k) && sameAddress(x.address, w.address) && x.port === w.port);
    if (i >= 0) {
      usedBox.add(i);
      pairs.push([i, j]);
    } else restWant.push(j);
  });
  const restBox = boxMembers.map((_, i) => i).filter((i) => !usedBox.has(i));
  while (restBox.length && restWant.length) pairs.push([restBox.shift()!, restWant.shift()!]);
  for (const [i, j] of pairs) {
    const rs = rsNodes[i]!;
    const x = boxMembers[i]!;
    const w = wantMembers[j]!;
    if (!w.enabled) {
      edits.remove(attachedStart(lines, rs.line), rs.endLine + 1);
      edits.insertBefore(rs.line, [`${indentOf(lines[rs.line])}# ${w.name}: disabled in the workspace, not rendered${cr}`]);
      continue;
    }
    if (!sameAddress(x.address, w.address) || x.port !== w.port) {
      edits.replace(rs.line, [lines[rs.line]!.replace(/real_server\s+\S+(\s+\d+)?/, `real_server ${w.address} ${w.port ?? want.port}`)]);
    }
    if (x.weight !== w.weight) setIn(edits, rs, 'weight', String(w.weight));
    const checker = (rs.children ?? []).find((c) => c.children && /_(CHECK|GET)$/.test(c.words[0]!));
    if (checkChanged || !checker) {
      replaceChecker(edits, rs, checker, keepalivedChecker(pool.healthCheck, w, false).lines);
      continue;
    }
    patchTimers(edits, checker, x, w);
  }
  for (const i of restBox) {
    const rs = rsNodes[i]!;
    edits.remove(attachedStart(lines, rs.line), rs.endLine + 1);
  }
  const added = restWant.map((j) => wantMembers[j]!).filter((w) => w.enabled);
  if (added.length) {
    const last = rsNodes.length ? rsNodes[rsNodes.length - 1]!.endLine : n.line;
    const indent = rsNodes.length ? indentOf(lines[rsNodes[0]!.line]) : `${indentOf(lines[n.line])}    `;
    edits.insertAfter(last, added.flatMap((w) => realServerLines(w, want.port, pool.healthCheck, indent, cr)));
  }
}

function patchTimers(edits: LineEdits, checker: KaNode, x: PoolMember, w: PoolMember): void {
  const a = x.timers;
  const b = w.timers;
  if (a.timeout !== b.timeout) setIn(edits, checker, 'connect_timeout', keepalivedSeconds(b.timeout));
  if (a.failAfter !== b.failAfter) setIn(edits, checker, 'retry', String(b.failAfter - 1));
  if (a.retryInterval !== b.retryInterval) setIn(edits, checker, 'delay_before_retry', keepalivedSeconds(b.retryInterval));
  if (a.interval !== b.interval) setIn(edits, checker, 'delay_loop', keepalivedSeconds(b.interval));
}

function replaceChecker(edits: LineEdits, rs: KaNode, checker: KaNode | undefined, text: string[]): void {
  const lines = edits.lines;
  const indent = checker ? indentOf(lines[checker.line]) : `${indentOf(lines[rs.line])}    `;
  const cr = crOf(lines[rs.line]);
  const out = text.map((l) => `${indent}${l}${cr}`);
  if (checker) {
    edits.remove(checker.line, checker.endLine + 1);
    edits.insertBefore(checker.line, out);
  } else edits.insertBefore(rs.endLine, out);
}

function realServerLines(w: PoolMember, servicePort: number, hc: Parameters<typeof keepalivedChecker>[0], indent: string, cr: string): string[] {
  const inner = [`weight ${w.weight}`, ...keepalivedChecker(hc, w, false).lines];
  return [`# ${w.name}`, `real_server ${w.address} ${w.port ?? servicePort} {`, ...inner.map((l) => `    ${l}`), '}'].map((l) => `${indent}${l}${cr}`);
}

interface FreshBlock {
  comments: string[];
  lines: string[];
}

function freshBlocks(workspace: Workspace, appliance: Appliance, services: Service[], targetSets: string[], errors: DriverProblem[], warnings: DriverProblem[]): Map<string, FreshBlock> {
  const out = new Map<string, FreshBlock>();
  const include = [...services.map((s) => s.name), ...targetSets];
  const r = renderKeepalived(workspace, { ...appliance, include });
  errors.push(...r.errors);
  warnings.push(...r.warnings);
  if (r.errors.length) return out;
  const tree = parseKeepalivedText(r.text, 'rendered');
  for (const n of tree.nodes) {
    if (!n.children) continue;
    if (n.words[0] === 'global_defs') {
      // Host-wide settings stay the appliance's: said, not written.
      warnings.push({ subject: `appliance ${appliance.name}`, message: 'manage: sections keeps global_defs as the appliance has it; lbdesk\'s global settings (lvs_timeouts, VRRP defaults) are not written' });
      continue;
    }
    const start = attachedStart(tree.lines, n.line);
    out.set(keyOf(n), { comments: tree.lines.slice(start, n.line), lines: blockLines(tree.lines, n) });
  }
  return out;
}
